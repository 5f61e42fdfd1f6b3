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
