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
