import EmptyStateStore
import Foundation
import HTTPServer
import JSONCoding

/// `/v1/admin/tokens`: admin tokens listed, created and revoked through the API, for rotation
/// without downtime and without editing files on every replica. Admins only (others 403).
///
/// The list shows every token that authenticates requests, wherever it comes from (flags and
/// variable, the tokens file, the generated first token, the store), never a secret or a hash.
/// Tokens made here are kept hashed in the store (`StoredAdminToken`); the secret is in the
/// creation's response, once. A creation or revocation is a revision of the token's document (kind
/// `admin-token`), so it is in the audit trail with its author, and it is in force on this
/// replica before the response is sent and on the others when the change feed tells them
/// (`StoreAdminTokens`). Only tokens of the store can be revoked here; the others are removed
/// where they are configured.
extension AdminAPI {
    /// The longest token name: it is shown as the author of every change made with it.
    static let tokenNameLimit = 64

    func registerTokens(on router: inout Router) {
        router.get(
            "/v1/admin/tokens",
            blocking: true,
            route(.admin, subject: .adminToken) { request, _ in try listTokens(request) }
        )
        router.add(
            .post,
            "/v1/admin/tokens",
            blocking: true,
            route(.admin, subject: .adminToken) { try createToken($0, actor: $1) }
        )
        router.add(
            .delete,
            "/v1/admin/tokens/{id}",
            blocking: true,
            route(.admin, subject: .adminToken) { try revokeToken($0, actor: $1) }
        )
    }

    /// One token as the list shows it.
    struct TokenItem: Encodable {
        var id: String?
        var name: String
        var role: String
        var source: String
        var revocable: Bool
        var createdAt: String?
        var createdBy: String?
        var expiresAt: String?
        var revokedAt: String?
        var revokedBy: String?
        var lastUsedAt: String?
        /// Only in the creation's response.
        var secret: String?

        init(configured token: AdminToken) {
            name = token.name
            role = token.role.rawValue
            source = token.source.rawValue
            revocable = false
        }

        init(stored token: StoredAdminToken) {
            id = token.id
            name = token.name
            role = token.role
            source = token.createdBy == StoredAdminToken.firstStartAuthor ? "generated" : "api"
            revocable = token.revokedAt == nil
            createdAt = Timestamp.seconds(milliseconds: token.createdAt)
            createdBy = token.createdBy
            expiresAt = token.expiresAt.map(Timestamp.seconds(milliseconds:))
            revokedAt = token.revokedAt.map(Timestamp.seconds(milliseconds:))
            revokedBy = token.revokedBy
            lastUsedAt = token.lastUsedAt.map(Timestamp.seconds(milliseconds:))
        }
    }

    struct TokenList: Encodable {
        var items: [TokenItem]
    }

    private func listTokens(_ request: HTTPRequest) throws -> HTTPResponse {
        let stored = try tokenStore().adminTokens()
        let items = authorization.tokens.map(TokenItem.init(configured:)) + stored.map(TokenItem.init(stored:))
        return try .json(TokenList(items: items))
    }

    /// `{"name": …, "role": …, "expiresAt": …}`: the secret is in the 201's `secret`, once.
    private func createToken(_ request: HTTPRequest, actor: AdminToken) throws -> HTTPResponse {
        _ = try tokenStore()
        let (name, role, expiresAt) = try tokenRequest(request)
        let secret = "est_" + AdminAuthorization.generateSecret()
        let token = StoredAdminToken(
            id: StoredAdminToken.newID(),
            name: name,
            role: role.rawValue,
            secretSHA256: SecretDigest.sha256Hex(secret),
            createdBy: actor.name,
            createdAt: Timestamp.nowMilliseconds(),
            expiresAt: expiresAt
        )
        let created: StoredAdminToken
        do {
            created = try store.write { edits in
                try edits.createAdminToken(token, reserved: Set(authorization.tokens.map(\.name)))
            }
        } catch StoreError.alreadyExists {
            throw ProblemDetails(
                status: 409,
                slug: "token-name-taken",
                title: "Conflict",
                detail:
                    "A token named \"\(name)\" exists (configured, or made here, revoked ones included: a name is the author of changes, never reused); choose another name.",
                errors: [.init(.pointer("/name"), "taken by another token")]
            )
        }
        reloadTokens(request)
        logger.notice(
            "admin token created",
            metadata: [
                "admin.token_id": "\(created.id)", "admin.token_name": "\(created.name)",
                "admin.token_role": "\(created.role)", "admin.actor": "\(actor.name)", "request.id": "\(request.id)",
            ]
        )
        var body = TokenItem(stored: created)
        body.secret = secret
        return try .json(
            body,
            status: 201,
            headers: [("Location", "/v1/admin/tokens/\(created.id)")]
        )
    }

    /// Revokes a token of the store. Revoking the caller's own token is allowed: the response is
    /// its last, and its console sessions end. The last admin token in force is refused (409), so
    /// that someone can always manage tokens.
    private func revokeToken(_ request: HTTPRequest, actor: AdminToken) throws -> HTTPResponse {
        _ = try tokenStore()
        let id = id(request)
        let otherAdmins = authorization.tokens.filter { $0.role == .admin }.count
        let revoked: StoredAdminToken
        do {
            revoked = try store.write { edits in
                try edits.revokeAdminToken(
                    id: id,
                    actor: actor.name,
                    now: Timestamp.nowMilliseconds(),
                    otherAdmins: otherAdmins
                )
            }
        } catch StoreError.notFound {
            throw ProblemDetails(
                status: 404,
                slug: "unknown-token",
                title: "Not Found",
                detail:
                    "No token made through the API has the id \"\(id)\". Tokens of the configuration or of the tokens file have no id: remove them where they are configured.",
                errors: [.init(.parameter("id"), "no such token")]
            )
        } catch is CatalogueWrite.LastAdminToken {
            throw ProblemDetails(
                status: 409,
                slug: "last-admin-token",
                title: "Conflict",
                detail:
                    "This is the last admin token in force: revoking it would leave nobody able to manage tokens. Create another admin token first.",
                errors: [.init(.parameter("id"), "the last admin token")]
            )
        }
        reloadTokens(request)
        logger.notice(
            "admin token revoked",
            metadata: [
                "admin.token_id": "\(revoked.id)", "admin.token_name": "\(revoked.name)",
                "admin.actor": "\(actor.name)", "request.id": "\(request.id)",
            ]
        )
        return HTTPResponse(status: 204, headers: [("Cache-Control", "no-store")])
    }

    /// The tokens of the store: 503 where the service runs without them (some tests).
    private func tokenStore() throws -> any AdminTokenStoring {
        guard let adminTokens else {
            throw ProblemDetails(
                status: 503,
                slug: "store-unavailable",
                title: "Service Unavailable",
                detail: "This server keeps no admin tokens of its own."
            )
        }
        return adminTokens
    }

    /// Puts this replica's change in force before the response (the others hear of it through
    /// the change feed). The change is committed: a failed read is logged, and the follower's
    /// next catch-up (PostgreSQL) reads again.
    private func reloadTokens(_ request: HTTPRequest) {
        do {
            try authorization.sharedTokens.reload()
        } catch {
            logger.error(
                "reading the admin tokens after a change failed",
                metadata: ["error": "\(error)", "request.id": "\(request.id)"]
            )
        }
    }

    /// The name, role and expiry of a creation request.
    /// - Throws: 400 (not JSON), 422 naming every member that is not valid.
    private func tokenRequest(_ request: HTTPRequest) throws -> (String, AdminToken.Role, Int64?) {
        let document = try body(request)
        guard case .object(let members) = document else { throw AdminProblems.notAnObject }
        var errors: [ProblemDetails.FieldError] = []
        for (key, _) in members where !["name", "role", "expiresAt"].contains(key) {
            errors.append(.init(.pointer("/" + jsonPointerToken(key)), "unknown member (name, role, expiresAt)"))
        }
        var name = ""
        // Counted and checked by Unicode scalar, exactly as openapi.yaml's pattern says.
        if case .string(let text) = document["name"], (1...Self.tokenNameLimit).contains(text.unicodeScalars.count),
            text.unicodeScalars.first != " ", text.unicodeScalars.last != " ",
            !text.unicodeScalars.contains(where: { $0 == ":" || $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        {
            name = text
        } else {
            errors.append(
                .init(
                    .pointer("/name"),
                    "required: 1 to \(Self.tokenNameLimit) characters, no colon, no control characters, no space first or last"
                )
            )
        }
        var role = AdminToken.Role.viewer
        if case .string(let text) = document["role"], let parsed = AdminToken.Role(rawValue: text) {
            role = parsed
        } else {
            errors.append(.init(.pointer("/role"), "required: viewer, editor, reviewer or admin"))
        }
        var expiresAt: Int64?
        if let value = document["expiresAt"], value != .null {
            // Whole seconds, as every time the API shows.
            if case .string(let text) = value, let at = Timestamp.parse(text).map({ $0 / 1000 * 1000 }),
                at > Timestamp.nowMilliseconds()
            {
                expiresAt = at
            } else {
                errors.append(.init(.pointer("/expiresAt"), "an RFC 3339 date-time in the future, or null"))
            }
        }
        if !errors.isEmpty { throw AdminProblems.unprocessable(errors, subject: .adminToken) }
        return (name, role, expiresAt)
    }
}
