/// A signed-in session of the admin console, as the store keeps it: never the session id the
/// browser's cookie holds, only its SHA-256 (`SecretDigest.sha256Hex`), so a copy of the database signs no
/// one in.
///
/// Sessions live in the store, not in a replica's memory, so a sign-out on one replica ends the
/// session on every replica, and a replica that restarts keeps its users signed in.
package struct ConsoleSession: Sendable, Equatable {
    /// Lowercase hex SHA-256 of the session id.
    package var idHash: String
    /// The admin token the session was opened with (its name): the author of every change made
    /// in the session, and what must still be configured for the session to stay valid.
    package var tokenName: String
    /// The token's role when the session was opened (`editor` or `viewer`).
    package var role: String
    /// Milliseconds since the epoch.
    package var createdAt: Int64
    /// The last request the session authenticated (refreshed at most once a minute).
    package var lastSeenAt: Int64
    /// The absolute end of the session, whatever its activity.
    package var expiresAt: Int64

    package init(
        idHash: String,
        tokenName: String,
        role: String,
        createdAt: Int64,
        lastSeenAt: Int64,
        expiresAt: Int64
    ) {
        self.idHash = idHash
        self.tokenName = tokenName
        self.role = role
        self.createdAt = createdAt
        self.lastSeenAt = lastSeenAt
        self.expiresAt = expiresAt
    }
}

/// Where console sessions are kept: the template store of either backend (a table beside the
/// templates: SQLite's `store.sqlite`, or the PostgreSQL every replica shares).
///
/// The store keeps rows; the rules (how long a session lives, when it is refreshed, what ends
/// it) are the service's. Every method is synchronous, like `TemplateStoring`'s, and each write
/// is durable when it returns.
package protocol SessionStoring: Sendable {
    /// Stores a new session.
    func createSession(_ session: ConsoleSession) throws(StoreError)

    /// The session whose id hashes to `idHash`; `nil` when there is none (never was, signed out,
    /// or removed as expired).
    func session(idHash: String) throws(StoreError) -> ConsoleSession?

    /// Records activity: `lastSeenAt` becomes `at` (never earlier than it was).
    func touchSession(idHash: String, at: Int64) throws(StoreError)

    /// Ends a session (sign-out).
    /// - Returns: whether there was one to end.
    @discardableResult
    func deleteSession(idHash: String) throws(StoreError) -> Bool

    /// Deletes every session past its absolute end (`expiresAt <= now`) or idle for
    /// `idleMilliseconds` or longer.
    /// - Returns: how many were deleted.
    @discardableResult
    func removeExpiredSessions(now: Int64, idleMilliseconds: Int64) throws(StoreError) -> Int
}
