import Crypto
import EmptyStateStore
import Logging
import PostgresNIO

/// Admin tokens kept in PostgreSQL, so a token is valid on every replica: only the SHA-256 of
/// each secret is stored, never the secret.
///
/// When no token is configured, the first replica to start creates one (`createFirstToken`):
/// the insert succeeds for exactly one replica, which alone learns the secret and writes it to a
/// file of its data directory; the others read the hash. The tokens are read, created and revoked
/// as every store's are (`PostgresTemplateStore+AdminTokens`); this one is listed as generated
/// (created by `first start`) and may be revoked like the others.
package enum PostgresAdminTokens {
    /// Lowercase hex of the SHA-256 of `secret`.
    package static func hash(_ secret: String) -> String { SecretDigest.sha256Hex(secret) }

    /// The author recorded for the token a first start generates.
    package static let firstStart = StoredAdminToken.firstStartAuthor

    /// Stores `secret` as the admin token `name` when the database has no token yet (the
    /// operator's: every role).
    /// - Returns: whether this call created it (exactly one of several racing replicas does).
    package static func createFirstToken(
        _ database: PostgresBackend,
        name: String,
        secret: String
    ) throws(StoreError) -> Bool {
        let logger = database.logger
        let hash = hash(secret)
        return try database.transaction { connection in
            // Serialized with the other replicas' first start, so "no token yet" holds.
            try await connection.all(
                "SELECT pg_advisory_xact_lock(\(PostgresSchema.migrationLock))",
                logger: logger
            )
            let created = try await connection.all(
                """
                INSERT INTO admin_token (id, name, role, secret_sha256, created_by)
                SELECT \(StoredAdminToken.newID()), \(name), 'admin', \(hash), \(firstStart)
                WHERE NOT EXISTS (SELECT 1 FROM admin_token)
                RETURNING name
                """,
                logger: logger
            )
            return !created.isEmpty
        }
    }
}
