import Foundation
import HTTPServer
import Logging

/// A bearer token of the admin API and what it may do.
package struct AdminToken: Sendable, Equatable {
    package enum Role: String, Sendable, CaseIterable {
        /// Reads only.
        case viewer
        /// Reads and writes.
        case editor
    }

    /// Who the token belongs to: recorded as the author of every change made with it.
    package var name: String
    package var role: Role
    package var secret: String

    package init(name: String, role: Role, secret: String) {
        self.name = name
        self.role = role
        self.secret = secret
    }

    /// Parses `name:role:secret` (the `--admin-token` and `EMPTY_STATE_ADMIN_TOKENS` format).
    package init?(specification: String) {
        let parts = specification.split(separator: ":", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, let role = Role(rawValue: String(parts[1])), parts[2].count >= 16
        else {
            return nil
        }
        self.init(name: String(parts[0]), role: role, secret: String(parts[2]))
    }
}

/// Checks bearer tokens in constant time and says who is asking.
struct AdminAuthorization: Sendable {
    let tokens: [AdminToken]

    /// The token of the request when it is valid and its role allows `needed`; otherwise the
    /// 401 (missing or unknown token, with `WWW-Authenticate`) or 403 (role too weak) to send.
    func authorize(_ request: HTTPRequest, needs needed: AdminToken.Role) -> Result<AdminToken, ProblemDetails> {
        let challenge = ProblemDetails(
            status: 401,
            slug: "unauthorized",
            title: "Unauthorized",
            detail: "Send an admin token as Authorization: Bearer <token>.",
            errors: [.init(.header("Authorization"), "missing or not a valid admin token")]
        )
        guard let header = request.headers["authorization"], header.count > 7,
            header.prefix(7).lowercased() == "bearer "
        else { return .failure(challenge) }
        let offered = Array(header.dropFirst(7).utf8)
        // Compare against every token, always, so timing says nothing about which matched.
        var match: AdminToken?
        for token in tokens where Self.constantTimeEquals(offered, Array(token.secret.utf8)) {
            match = token
        }
        guard let match else { return .failure(challenge) }
        if needed == .editor, match.role != .editor {
            return .failure(
                ProblemDetails(
                    status: 403,
                    slug: "forbidden",
                    title: "Forbidden",
                    detail: "This token has the \(match.role.rawValue) role; changes need an editor token."
                )
            )
        }
        return .success(match)
    }

    /// Runs `handler` with the caller's token when it allows `role`; otherwise answers 401 (with
    /// `WWW-Authenticate`) or 403.
    func guarded(
        _ request: HTTPRequest,
        _ role: AdminToken.Role,
        _ handler: (AdminToken) -> HTTPResponse
    ) -> HTTPResponse {
        switch authorize(request, needs: role) {
        case .success(let token): return handler(token)
        case .failure(let problem):
            let challenge: [(name: String, value: String)] =
                problem.status == 401 ? [("WWW-Authenticate", #"Bearer realm="empty-state-admin""#)] : []
            return problem.response(requestID: request.id, extraHeaders: challenge)
        }
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

    /// The configured tokens or, when there are none, the editor token kept in `admin-token` in
    /// the data directory (generated on first start, readable by the owner only). The token
    /// itself is never logged: only where to find it.
    static func load(configured: [AdminToken], dataDirectory: String, logger: Logger) throws -> AdminAuthorization {
        if !configured.isEmpty {
            logger.info(
                "admin tokens from configuration",
                metadata: ["admin.tokens": "\(configured.map { "\($0.name):\($0.role.rawValue)" })"]
            )
            return AdminAuthorization(tokens: configured)
        }
        let path = (dataDirectory as NSString).appendingPathComponent("admin-token")
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
            logger.notice("admin editor token read from file", metadata: ["admin.token_file": "\(path)"])
            return AdminAuthorization(tokens: [AdminToken(name: "admin", role: .editor, secret: secret)])
        }
        var generator = SystemRandomNumberGenerator()
        let secret = (0..<4).map { _ in
            let hex = String(generator.next() as UInt64, radix: 16)
            return String(repeating: "0", count: 16 - hex.count) + hex
        }.joined()
        // Created with mode 0600 from the start (Foundation's createFile writes a 0644 temp file
        // first), exclusively, and synced before the path is logged.
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
        logger.notice(
            "generated an admin editor token (no --admin-token configured)",
            metadata: ["admin.token_file": "\(path)"]
        )
        return AdminAuthorization(tokens: [AdminToken(name: "admin", role: .editor, secret: secret)])
    }
}
