import EmptyStateStore
import Foundation
import HTTPServer

/// The admin console's cookie sessions: opened by signing in with an admin token, kept in the
/// store (every replica sees the same ones), ended by signing out, by 30 minutes without a
/// request, or 12 hours after sign-in, whichever comes first.
///
/// Why a cookie and not the token in the page: a token held by JavaScript (`localStorage`, a
/// variable) is readable by any script that runs in the page, and lives until it is rotated; an
/// `HttpOnly` cookie is sent by the browser and never readable by script, names a session that
/// ends, and lets a sign-out take effect on every replica. The token crosses the wire once, in
/// the body of the sign-in request (never a URL, so no access log line, history entry or
/// `Referer` holds it), and the store keeps only the SHA-256 of the session id.
///
/// The cookie is `HttpOnly; SameSite=Strict; Path=/`, and `Secure` (under the `__Host-` name
/// prefix) when the public URL is `https://`. `SameSite=Strict` keeps other sites' requests from
/// carrying it; a page on another origin of the same site (another port of the same host) is not
/// another site, which is why every change made with the cookie must also come from the
/// console's own origin (`Origin`, checked by `AdminAuthorization`).
struct ConsoleSessions: Sendable {
    /// A session ends after this long without a request.
    static let defaultIdleTimeout: Int64 = 30 * 60_000
    /// … and this long after sign-in, whatever its activity.
    static let defaultLifetime: Int64 = 12 * 3_600_000
    /// Activity is written to the store at most this often per session (a write per request
    /// would be an fsync per request); the idle timeout is exact to within it.
    static let touchInterval: Int64 = 60_000

    let store: any SessionStoring
    /// Where browsers reach the service: the origin a change must come from, and whether the
    /// cookie is `Secure`.
    let publicOrigin: PublicOrigin?
    var idleTimeout = defaultIdleTimeout
    var lifetime = defaultLifetime
    /// Milliseconds since the epoch, now (tests move it).
    var now: @Sendable () -> Int64 = { Timestamp.nowMilliseconds() }

    /// The cookie is only sent over TLS when the service is reached over TLS.
    var secure: Bool { publicOrigin?.isSecure ?? false }

    /// `__Host-` makes the browser refuse the cookie unless it is `Secure`, `Path=/` and has no
    /// `Domain`: no other host of the domain can set or shadow it.
    var cookieName: String { secure ? "__Host-es_console" : "es_console" }

    /// The session id the request's `Cookie` header holds, if any.
    func sessionID(in request: HTTPRequest) -> String? {
        guard let header = request.headers["cookie"] else { return nil }
        for pair in header.split(separator: ";") {
            let trimmed = pair.drop { $0 == " " || $0 == "\t" }
            guard let equals = trimmed.firstIndex(of: "="), trimmed[..<equals] == cookieName else { continue }
            let value = trimmed[trimmed.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            return value.isEmpty ? nil : value
        }
        return nil
    }

    /// Opens a session for `token`, removing expired ones first (sign-in is rare; nothing else
    /// needs to sweep).
    /// - Returns: the new session id (for the cookie only) and the session as stored.
    func open(for token: AdminToken) throws(StoreError) -> (id: String, session: ConsoleSession) {
        let now = now()
        try store.removeExpiredSessions(now: now, idleMilliseconds: idleTimeout)
        let id = Self.newID()
        let session = ConsoleSession(
            idHash: SecretDigest.sha256Hex(id),
            tokenName: token.name,
            role: token.role.rawValue,
            createdAt: now,
            lastSeenAt: now,
            expiresAt: now + lifetime
        )
        try store.createSession(session)
        return (id, session)
    }

    /// The live session `id` names; `nil` when there is none, or it expired (it is then deleted).
    /// Records the activity when the last record is older than `touchInterval`.
    func current(_ id: String) throws(StoreError) -> ConsoleSession? {
        let hash = SecretDigest.sha256Hex(id)
        guard var session = try store.session(idHash: hash) else { return nil }
        let now = now()
        if now >= session.expiresAt || now - session.lastSeenAt >= idleTimeout {
            try store.deleteSession(idHash: hash)
            return nil
        }
        if now - session.lastSeenAt >= Self.touchInterval {
            try store.touchSession(idHash: hash, at: now)
            session.lastSeenAt = now
        }
        return session
    }

    /// Ends the session `id` names, on every replica.
    func end(_ id: String) throws(StoreError) {
        try store.deleteSession(idHash: SecretDigest.sha256Hex(id))
    }

    /// The `Set-Cookie` value that gives the browser `id` until the session's absolute end.
    func setCookie(_ id: String) -> String {
        cookie(value: id, maxAge: lifetime / 1000)
    }

    /// The `Set-Cookie` value that makes the browser forget the session.
    var clearCookie: String { cookie(value: "", maxAge: 0) }

    private func cookie(value: String, maxAge: Int64) -> String {
        "\(cookieName)=\(value); Path=/; Max-Age=\(maxAge); HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
    }

    /// 256 random bits (the system's CSPRNG: getrandom on Linux), base64url without padding.
    static func newID() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<4).flatMap { _ in
            let word: UInt64 = generator.next()
            return (0..<8).map { UInt8(truncatingIfNeeded: word >> ($0 * 8)) }
        }
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var text: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = buffer << 8 | UInt32(byte)
            bits += 8
            while bits >= 6 {
                bits -= 6
                text.append(alphabet[Int((buffer >> UInt32(bits)) & 0x3F)])
            }
        }
        if bits > 0 { text.append(alphabet[Int((buffer << UInt32(6 - bits)) & 0x3F)]) }
        return String(decoding: text, as: UTF8.self)
    }
}
