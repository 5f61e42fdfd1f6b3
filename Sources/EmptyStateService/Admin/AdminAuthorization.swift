import EmptyStateStore
import Foundation
import HTTPServer
import Logging
import Synchronization

/// A bearer token of the admin API and what it may do.
package struct AdminToken: Sendable, Equatable {
    /// What a token may do. Each role may do everything the roles before it may.
    package enum Role: String, Sendable, CaseIterable, Comparable {
        /// Reads only.
        case viewer
        /// Reads and writes: templates, policies, experiments, change requests.
        case editor
        /// An editor who also approves and rejects change requests (never their own).
        case reviewer
        /// A reviewer who also sets the review rules (the token a first start generates).
        case admin

        /// The role's rank: a token may do what any role of a lower rank may.
        private var rank: Int { Self.allCases.firstIndex(of: self)! }

        package static func < (lhs: Role, rhs: Role) -> Bool { lhs.rank < rhs.rank }

        /// What the role is for, in an error that says it is too weak.
        var purpose: String {
            switch self {
            case .viewer: "reading"
            case .editor: "making changes"
            case .reviewer: "approving and rejecting change requests"
            case .admin: "managing admin tokens and the review rules"
            }
        }
    }

    /// Where a token comes from: what `GET /v1/admin/tokens` says of it, and whether the admin
    /// API may revoke it (only the store's).
    package enum Source: String, Sendable {
        /// `--admin-token` or `EMPTY_STATE_ADMIN_TOKENS`.
        case configuration
        /// The admin tokens file (`--admin-tokens-file`).
        case file
        /// Generated on the first start (`admin-token` in the data directory).
        case generated
        /// Created through the admin API, kept hashed in the store (`StoredAdminToken`).
        case api
    }

    /// Who the token belongs to: recorded as the author of every change made with it.
    package var name: String
    package var role: Role
    /// Empty for a token of the store: only its hash is known.
    package var secret: String
    package var source: Source
    /// The store's id of the token (`tok_…`); `nil` outside the store.
    package var id: String?

    package init(name: String, role: Role, secret: String, source: Source = .configuration, id: String? = nil) {
        self.name = name
        self.role = role
        self.secret = secret
        self.source = source
        self.id = id
    }

    /// Parses `name:role:secret` (the `--admin-token`, `EMPTY_STATE_ADMIN_TOKENS` and tokens
    /// file format). A control character in it is refused: the name is stored as the author of
    /// changes and logged, and no header can carry one in the secret.
    package init?(specification: String) {
        let parts = specification.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, let role = Role(rawValue: String(parts[1])), parts[2].count >= 16,
            !specification.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        else {
            return nil
        }
        self.init(name: String(parts[0]), role: role, secret: String(parts[2]))
    }

    /// Why a tokens file cannot be used; the description names the file (and the line), never a
    /// secret.
    package struct FileError: Error, Sendable, CustomStringConvertible {
        package var description: String
    }

    /// Reads the tokens of an admin tokens file (`--admin-tokens-file`): one `name:role:secret`
    /// a line; blank lines and lines starting with `#` are skipped, surrounding spaces and a
    /// CRLF ending ignored.
    ///
    /// The file holds secrets, which is why it exists (a flag's value is readable by every local
    /// user in `/proc/<pid>/cmdline`): it is refused unless only its owner may read or write it
    /// (mode 0600 or stricter), as ssh does with a private key, rather than silently exposed.
    /// - Throws: `FileError` when the file cannot be read, is not a regular file, has group or
    ///   other permission bits, holds no token, or has a line that is not a token.
    package static func load(file path: String) throws(FileError) -> [AdminToken] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw FileError(
                description: "cannot open the admin tokens file \(path): \(String(cString: strerror(errno)))"
            )
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            throw FileError(description: "the admin tokens file \(path) is not a regular file")
        }
        let mode = status.st_mode & 0o777
        guard mode & 0o077 == 0 else {
            let octal = String(mode, radix: 8)
            throw FileError(
                description:
                    "the admin tokens file \(path) has mode 0\(String(repeating: "0", count: max(0, 3 - octal.count)))\(octal): it holds secrets, so group and others must have no access (chmod 600 \(path))"
            )
        }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else {
                throw FileError(
                    description: "cannot read the admin tokens file \(path): \(String(cString: strerror(errno)))"
                )
            }
            if count == 0 { break }
            bytes.append(contentsOf: buffer[0..<count])
            guard bytes.count <= 1 << 20 else {
                throw FileError(description: "the admin tokens file \(path) is over 1 MiB")
            }
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw FileError(description: "the admin tokens file \(path) is not UTF-8 text")
        }
        var tokens: [AdminToken] = []
        for (index, rawLine) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespaces.union(CharacterSet(charactersIn: "\r")))
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard var token = AdminToken(specification: line) else {
                throw FileError(
                    description:
                        "the admin tokens file \(path), line \(index + 1): not a token (name:role:secret, role viewer, editor, reviewer or admin, a secret of at least 16 characters, no control characters)"
                )
            }
            token.source = .file
            tokens.append(token)
        }
        guard !tokens.isEmpty else {
            throw FileError(description: "the admin tokens file \(path) holds no token")
        }
        return tokens
    }
}

/// Says who is asking, and whether they may: a bearer token (checked in constant time against
/// every configured one), or the console's session cookie.
///
/// A request with an `Authorization` header is judged by it alone, exactly as before the console
/// existed: scripts and CI are unaffected by sessions. A request without one may be
/// authenticated by the console's cookie (`ConsoleSessions`), and then, since a browser attaches
/// a cookie to requests other pages make too, it must come from the console's own origin: a
/// change needs an `Origin` equal to it, and no request may say (`Sec-Fetch-Site`) it was made by
/// another origin or site.
struct AdminAuthorization: Sendable {
    /// The configured tokens (flags, variable, tokens file), shared by every copy: the tokens
    /// file replaces them when it is read again (`AdminTokensFile`).
    let configured: ConfiguredAdminTokens
    var tokens: [AdminToken] { configured.current }
    /// The tokens kept in the store (made through the admin API, or the first one a PostgreSQL
    /// start generates), by the SHA-256 of their secret: read at start, after each change here,
    /// and when another replica changed them (`StoreAdminTokens`).
    let sharedTokens: StoreAdminTokens
    /// The console's sessions; `nil`: bearer tokens only.
    var sessions: ConsoleSessions?
    /// Where a store failure while reading a session is logged.
    var logger = Logger(label: "empty-state-server")

    /// Why a request is not let through: the response to send instead.
    struct Refusal: Error {
        let response: HTTPResponse

        init(_ response: HTTPResponse) { self.response = response }
    }

    init(tokens: [AdminToken], stored: StoreAdminTokens = StoreAdminTokens()) {
        configured = ConfiguredAdminTokens(tokens)
        sharedTokens = stored
    }

    static let challengeHeader: (name: String, value: String) = (
        "WWW-Authenticate", #"Bearer realm="empty-state-admin""#
    )

    /// 401: no credentials, or ones that are not valid.
    static let unauthorized = ProblemDetails(
        status: 401,
        slug: "unauthorized",
        title: "Unauthorized",
        detail: "Send an admin token as Authorization: Bearer <token>.",
        errors: [.init(.header("Authorization"), "missing or not a valid admin token")]
    )

    /// The token whose secret is `offered`; every configured token is compared, always, so
    /// timing says nothing about which matched. A token of the store is found by the SHA-256 of
    /// `offered` (a lookup of the digest, which says nothing of the secret), matches only while
    /// it is in force (not revoked, not expired), and its use is noted
    /// (`StoreAdminTokens.noteUse`).
    func token(secret offered: [UInt8]) -> AdminToken? {
        var match: AdminToken?
        for token in tokens where Self.constantTimeEquals(offered, Array(token.secret.utf8)) {
            match = token
        }
        if !sharedTokens.isEmpty {
            let now = Timestamp.nowMilliseconds()
            let digest = SecretDigest.sha256Hex(String(decoding: offered, as: UTF8.self))
            if let found = sharedTokens.entry(digest: digest), found.isInForce(at: now) {
                match = AdminToken(name: found.name, role: found.role, secret: "", source: .api, id: found.id)
                sharedTokens.noteUse(id: found.id, at: now)
            }
        }
        return match
    }

    /// Whether a token with this name and role is still configured (or in force in the store): a
    /// session lives only as long as the token it was opened with (removed, revoked, expired or
    /// given another role, its sessions end).
    func isConfigured(name: String, role: AdminToken.Role) -> Bool {
        if tokens.contains(where: { $0.name == name && $0.role == role }) { return true }
        let now = Timestamp.nowMilliseconds()
        return sharedTokens.current.contains { $0.name == name && $0.role == role && $0.isInForce(at: now) }
    }

    /// The caller's token when its credentials are valid and allow `needed`; otherwise the
    /// response to send: 401 (with `WWW-Authenticate`), 403 (role too weak, or a cookie request
    /// from another origin), or the store's error while reading a session (503 …).
    func authenticate(_ request: HTTPRequest, needs needed: AdminToken.Role) -> Result<AdminToken, Refusal> {
        let caller: AdminToken
        if let header = request.headers["authorization"] {
            guard header.count > 7, header.prefix(7).lowercased() == "bearer ",
                let match = token(secret: Array(header.dropFirst(7).utf8))
            else { return .failure(Refusal(Self.challenge(request))) }
            caller = match
        } else if let sessions, let id = sessions.sessionID(in: request) {
            switch session(id, of: request, sessions: sessions) {
            case .success(let token): caller = token
            case .failure(let response): return .failure(response)
            }
        } else {
            return .failure(Refusal(Self.challenge(request)))
        }
        if caller.role < needed {
            let article = needed == .admin ? "an" : "a"
            return .failure(
                Refusal(
                    ProblemDetails(
                        status: 403,
                        slug: "forbidden",
                        title: "Forbidden",
                        detail:
                            "This token has the \(caller.role.rawValue) role; \(needed.purpose) needs \(article) \(needed.rawValue) token (or a stronger one)."
                    ).response(requestID: request.id)
                )
            )
        }
        return .success(caller)
    }

    /// The token of the console session `id`, once the request is known to come from the
    /// console's origin.
    private func session(
        _ id: String,
        of request: HTTPRequest,
        sessions: ConsoleSessions
    ) -> Result<AdminToken, Refusal> {
        if let refusal = RequestOrigin.refusal(of: request, expected: sessions.publicOrigin) {
            return .failure(Refusal(refusal.response(requestID: request.id)))
        }
        let session: ConsoleSession?
        do {
            session = try sessions.current(id)
        } catch {
            return .failure(Refusal(AdminProblems.response(for: error, request: request, logger: logger)))
        }
        guard let session, let role = AdminToken.Role(rawValue: session.role),
            isConfigured(name: session.tokenName, role: role)
        else {
            var response = ProblemDetails(
                status: 401,
                slug: "unauthorized",
                title: "Unauthorized",
                detail: "The console session has ended (signed out, idle, or expired); sign in again.",
                errors: [.init(.header("Cookie"), "no live console session")]
            ).response(requestID: request.id, extraHeaders: [Self.challengeHeader])
            response.headers.append(("Set-Cookie", sessions.clearCookie))
            return .failure(Refusal(response))
        }
        return .success(AdminToken(name: session.tokenName, role: role, secret: ""))
    }

    private static func challenge(_ request: HTTPRequest) -> HTTPResponse {
        unauthorized.response(requestID: request.id, extraHeaders: [challengeHeader])
    }

    /// Runs `handler` with the caller's token when it allows `role`; otherwise answers as
    /// `authenticate` says.
    func guarded(
        _ request: HTTPRequest,
        _ role: AdminToken.Role,
        _ handler: (AdminToken) -> HTTPResponse
    ) -> HTTPResponse {
        switch authenticate(request, needs: role) {
        case .success(let token): return handler(token)
        case .failure(let refusal): return refusal.response
        }
    }

    /// The 401 or 403 answer for a request whose credentials do not allow `role`, judged from its
    /// head; `nil` lets its body be read (a route's `BodyPolicy.admit`, checked before the body).
    /// A bearer token is checked in full. A console session is a store read, which the MHD
    /// thread asking must not wait for: here its request is only held to the console's origin,
    /// and the session itself (live, an editor's) is checked with the whole request by `require`.
    func refusal(_ request: HTTPRequest, needs role: AdminToken.Role) -> HTTPResponse? {
        if request.headers["authorization"] == nil, let sessions, sessions.sessionID(in: request) != nil {
            return RequestOrigin.refusal(of: request, expected: sessions.publicOrigin)?
                .response(requestID: request.id)
        }
        guard case .failure(let refusal) = authenticate(request, needs: role) else { return nil }
        return refusal.response
    }

    /// The auth middleware: a route handler that runs `handler` with the caller's token when it
    /// allows `role`, and otherwise answers 401, 403 (or the store's error) without calling it.
    func require(
        _ role: AdminToken.Role,
        _ handler: @escaping @Sendable (HTTPRequest, AdminToken) -> HTTPResponse
    ) -> Router.Handler {
        { request in guarded(request, role) { token in handler(request, token) } }
    }

    /// Equal bytes, in time that depends only on the lengths.
    static func constantTimeEquals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        var difference = UInt8(truncatingIfNeeded: lhs.count ^ rhs.count)
        for index in 0..<max(lhs.count, rhs.count) {
            let a = index < lhs.count ? lhs[index] : 0
            let b = index < rhs.count ? rhs[index] : 0
            difference |= a ^ b
        }
        return difference == 0
    }

    /// The configured tokens or, when there are none, the admin token kept in `admin-token` in
    /// the data directory (generated on first start, readable by the owner only: the operator's,
    /// so it has every role). The token
    /// itself is never logged: only where to find it.
    ///
    /// With a shared store (PostgreSQL) and no configured token, the tokens are the store's (see
    /// `loadShared`).
    ///
    /// Nothing is written here: a token to be made (the first start on a data directory or a
    /// database) comes back as `first`, which the application creates once the server listens
    /// (`FirstAdminToken.create`), so a start that fails leaves no token file, and no token in
    /// the database whose secret nobody was given.
    ///
    /// The tokens made through the admin API (`store`) are valid beside all of these.
    static func load(
        configured: [AdminToken],
        dataDirectory: String,
        store: any AdminTokenStoring,
        shared: (any SharedStore)?,
        logger: Logger
    ) throws -> (authorization: AdminAuthorization, first: FirstAdminToken?) {
        let stored = StoreAdminTokens(store: store, logger: logger)
        try FirstAdminToken.reload(stored, logger: logger)
        if !configured.isEmpty {
            logger.info(
                "admin tokens from configuration",
                metadata: ["admin.tokens": "\(configured.map { "\($0.name):\($0.role.rawValue)" })"]
            )
            return (AdminAuthorization(tokens: configured, stored: stored), nil)
        }
        let path = (dataDirectory as NSString).appendingPathComponent("admin-token")
        if let shared { return try loadShared(shared, stored: stored, tokenFile: path) }
        if let data = FileManager.default.contents(atPath: path),
            let secret = String(data: data, encoding: .utf8)?.trimmingCharacters(in: .whitespacesAndNewlines),
            secret.count >= 16
        {
            var status = stat()
            if stat(path, &status) == 0, status.st_mode & 0o077 != 0 {
                chmod(path, 0o600)
                logger.warning(
                    "the admin token file was readable by others; made it owner-only",
                    metadata: ["admin.token_file": "\(path)"]
                )
            }
            logger.notice("admin token read from file", metadata: ["admin.token_file": "\(path)"])
            return (
                AdminAuthorization(
                    tokens: [AdminToken(name: "admin", role: .admin, secret: secret, source: .generated)],
                    stored: stored
                ),
                nil
            )
        }
        // Valid from the first request on; written to `path` once the server listens.
        let secret = Self.generateSecret()
        return (
            AdminAuthorization(
                tokens: [AdminToken(name: "admin", role: .admin, secret: secret, source: .generated)],
                stored: stored
            ),
            FirstAdminToken(secret: secret, path: path, shared: nil, tokens: nil)
        )
    }

    /// The tokens kept in PostgreSQL. When it holds none, the first (an admin token named
    /// `admin`) is to be created once the server listens (`FirstAdminToken`): exactly one of
    /// several replicas starting together succeeds, and it alone writes the secret to
    /// `admin-token` in its data directory (mode 0600). The database keeps only the secret's
    /// SHA-256. Until then, no token is valid on this replica.
    private static func loadShared(
        _ shared: any SharedStore,
        stored: StoreAdminTokens,
        tokenFile: String
    ) throws -> (authorization: AdminAuthorization, first: FirstAdminToken?) {
        let authorization = AdminAuthorization(tokens: [], stored: stored)
        let now = Timestamp.nowMilliseconds()
        guard !authorization.sharedTokens.current.contains(where: { $0.isInForce(at: now) }) else {
            return (authorization, nil)
        }
        return (
            authorization,
            FirstAdminToken(
                secret: generateSecret(),
                path: tokenFile,
                shared: shared,
                tokens: authorization.sharedTokens
            )
        )
    }

    /// 256 random bits as 64 hex digits.
    static func generateSecret() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<4).map { _ in
            let hex = String(generator.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
    }

    /// Creates `path` holding `secret`: mode 0600 from the start (Foundation's createFile
    /// writes a 0644 temp file first), exclusively, and synced before the path is logged.
    static func writeSecretFile(_ path: String, _ secret: String) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else {
            throw EmptyStateApplication.StartupError(
                description: "cannot create the admin token file \(path): \(String(cString: strerror(errno)))"
            )
        }
        let line = Array((secret + "\n").utf8)
        let written = line.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        let synced = fsync(descriptor) == 0
        close(descriptor)
        guard written == line.count, synced else {
            unlink(path)
            throw EmptyStateApplication.StartupError(description: "cannot write the admin token file \(path)")
        }
    }
}
