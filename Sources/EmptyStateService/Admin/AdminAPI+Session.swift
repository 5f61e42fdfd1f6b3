import EmptyStateStore
import HTTPServer
import JSONCoding

/// `/v1/admin/session`: the admin console signs in with an admin token and gets a cookie session
/// (`ConsoleSessions`), asks who it is, and signs out.
extension AdminAPI {
    func registerSession(on router: inout Router) {
        router.add(.post, "/v1/admin/session", blocking: true) { request in
            do {
                return try signIn(request)
            } catch {
                return AdminProblems.response(for: error, request: request, logger: logger)
            }
        }
        let answer = AdminProblems.catching(logger: logger) { request, token in try whoAmI(request, token) }
        router.get("/v1/admin/session", blocking: true) { request in
            switch authorization.authenticate(request, needs: .viewer) {
            case .success(let token):
                return answer(request, token)
            case .failure where Self.offersNoCredentials(request, sessions: authorization.sessions):
                return Self.nobodySignedIn
            case .failure(let refusal):
                return refusal.response
            }
        }
        router.add(.delete, "/v1/admin/session", blocking: true) { request in
            do {
                return try signOut(request)
            } catch {
                return AdminProblems.response(for: error, request: request, logger: logger)
            }
        }
    }

    /// `POST {"token": "…"}`: 201 with the session and its cookie; 401 for a token that is not
    /// one; 403 from another origin; 404 when the console is off (no session store).
    private func signIn(_ request: HTTPRequest) throws -> HTTPResponse {
        guard let sessions = authorization.sessions else { throw Self.consoleOff }
        // A page elsewhere must not sign a browser in either (login CSRF): a browser's sign-in
        // carries Origin, which must be the console's; a tool's carries none.
        if request.headers["origin"] != nil || request.headers["sec-fetch-site"] != nil,
            let refusal = RequestOrigin.refusal(of: request, expected: sessions.publicOrigin)
        {
            throw refusal
        }
        let document = try body(request)
        guard case .object = document else { throw AdminProblems.notAnObject }
        guard case .string(let secret)? = document["token"], !secret.isEmpty else {
            throw ProblemDetails(
                status: 422,
                slug: "validation-failed",
                title: "Unprocessable Content",
                detail: "Send {\"token\": \"<admin token>\"}.",
                errors: [.init(.pointer("/token"), "required: an admin token (a string)")]
            )
        }
        guard let token = authorization.token(secret: Array(secret.utf8)) else {
            logger.notice("console sign-in refused: not an admin token", metadata: ["request.id": "\(request.id)"])
            throw ProblemDetails(
                status: 401,
                slug: "unauthorized",
                title: "Unauthorized",
                detail: "This is not an admin token.",
                errors: [.init(.pointer("/token"), "not a valid admin token")]
            )
        }
        let (id, session) = try sessions.open(for: token)
        logger.notice(
            "console session started",
            metadata: [
                "admin.actor": "\(token.name)", "admin.role": "\(token.role.rawValue)", "request.id": "\(request.id)",
            ]
        )
        return try .json(
            SessionInfo(session: session, sessions: sessions, eventRetentionDays: eventRetentionDays),
            status: 201,
            headers: [("Set-Cookie", sessions.setCookie(id))]
        )
    }

    /// `GET`: who the credentials are (a session, or a bearer token) and what they may do.
    private func whoAmI(_ request: HTTPRequest, _ token: AdminToken) throws -> HTTPResponse {
        if request.headers["authorization"] == nil, let sessions = authorization.sessions,
            let id = sessions.sessionID(in: request), let session = try sessions.current(id)
        {
            return try .json(
                SessionInfo(session: session, sessions: sessions, eventRetentionDays: eventRetentionDays)
            )
        }
        return try .json(SessionInfo(token: token, eventRetentionDays: eventRetentionDays))
    }

    /// Whether `request` offers no credentials at all: no `Authorization`, no console cookie.
    /// The console asks who it is on every load; "nobody" is then an answer (`204`), not an error:
    /// a `401` would be logged in the browser's console on every visit to the sign-in page.
    /// Credentials that are offered and refused (a wrong token, a session that has ended) still
    /// answer `401`, which says why.
    static func offersNoCredentials(_ request: HTTPRequest, sessions: ConsoleSessions?) -> Bool {
        request.headers["authorization"] == nil && sessions?.sessionID(in: request) == nil
    }

    /// `204`: nobody is signed in (`offersNoCredentials`).
    static let nobodySignedIn = HTTPResponse(status: 204, headers: [("Cache-Control", "no-store")])

    /// `DELETE`: ends the cookie's session on every replica and clears the cookie; with a bearer
    /// token and no cookie there is nothing to end (204 all the same).
    private func signOut(_ request: HTTPRequest) throws -> HTTPResponse {
        if let sessions = authorization.sessions, request.headers["authorization"] == nil,
            let id = sessions.sessionID(in: request)
        {
            if let refusal = RequestOrigin.refusal(of: request, expected: sessions.publicOrigin) { throw refusal }
            try sessions.end(id)
            logger.notice("console session ended", metadata: ["request.id": "\(request.id)"])
            return HTTPResponse(
                status: 204,
                headers: [("Set-Cookie", sessions.clearCookie), ("Cache-Control", "no-store")]
            )
        }
        switch authorization.authenticate(request, needs: AdminToken.Role.viewer) {
        case .success: return HTTPResponse(status: 204, headers: [("Cache-Control", "no-store")])
        case .failure(let refusal): return refusal.response
        }
    }

    /// 404 for the session routes when the service runs without console sessions.
    static let consoleOff = ProblemDetails(
        status: 404,
        slug: "not-found",
        title: "Not Found",
        detail: "The admin console's sessions are not enabled on this server."
    )
}

extension AdminAPI {
    /// `ConsoleSession` in `openapi.yaml`.
    struct SessionInfo: Encodable {
        var name: String
        var role: String
        /// `session` (the console's cookie) or `token` (a bearer token).
        var authenticatedBy: String
        var createdAt: String?
        var expiresAt: String?
        var idleTimeoutSeconds: Int64?
        var eventRetentionDays: Int

        init(session: ConsoleSession, sessions: ConsoleSessions, eventRetentionDays: Int) {
            name = session.tokenName
            role = session.role
            authenticatedBy = "session"
            createdAt = Timestamp.format(milliseconds: session.createdAt)
            expiresAt = Timestamp.format(milliseconds: session.expiresAt)
            idleTimeoutSeconds = sessions.idleTimeout / 1000
            self.eventRetentionDays = eventRetentionDays
        }

        init(token: AdminToken, eventRetentionDays: Int) {
            name = token.name
            role = token.role.rawValue
            authenticatedBy = "token"
            self.eventRetentionDays = eventRetentionDays
        }
    }
}
