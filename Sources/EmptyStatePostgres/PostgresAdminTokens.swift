import Crypto
import EmptyStateStore
import Logging
import PostgresNIO

/// Admin tokens kept in PostgreSQL, so a token is valid on every replica: only the SHA-256 of
/// each secret is stored, never the secret.
///
/// When no token is configured, the first replica to start creates one (`createFirstToken`):
/// the insert succeeds for exactly one replica, which alone learns the secret and writes it to a
/// file of its data directory; the others read the hash.
package enum PostgresAdminTokens {
    /// A token as the database keeps it.
    package struct Hashed: Sendable, Equatable {
        package var name: String
        package var role: String
        /// Lowercase hex of the SHA-256 of the secret's UTF-8 bytes.
        package var secretSHA256: String
    }

    /// Lowercase hex of the SHA-256 of `secret`.
    package static func hash(_ secret: String) -> String { SecretDigest.sha256Hex(secret) }

    /// Every token in the database.
    package static func load(_ database: PostgresBackend) throws(StoreError) -> [Hashed] {
        let logger = database.logger
        return try database.blocking { client in
            var tokens: [Hashed] = []
            for try await (name, role, hash) in try await client.query(
                "SELECT name, role, secret_sha256 FROM admin_token ORDER BY name",
                logger: logger
            ).decode((String, String, String).self) {
                tokens.append(Hashed(name: name, role: role, secretSHA256: hash))
            }
            return tokens
        }
    }

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
                INSERT INTO admin_token (name, role, secret_sha256)
                SELECT \(name), 'admin', \(hash) WHERE NOT EXISTS (SELECT 1 FROM admin_token)
                RETURNING name
                """,
                logger: logger
            )
            return !created.isEmpty
        }
    }
}
