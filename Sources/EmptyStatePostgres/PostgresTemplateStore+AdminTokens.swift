import EmptyStateStore
import Logging
import PostgresNIO

/// Admin tokens on PostgreSQL (`AdminTokenStoring`, `AdminTokenTransaction`): the `admin_token`
/// table every replica reads, written in the catalogue transaction of the token's revision.
extension PostgresTemplateStore: AdminTokenStoring {
    /// The columns of a token, in `PostgresTemplateStore.adminToken(_:)`'s order.
    static let adminTokenColumns = """
        SELECT id, name, role, secret_sha256, created_by, created_ms, expires_at, revoked_at, revoked_by, last_used_at
        FROM admin_token
        """

    package func adminTokens() throws(StoreError) -> [StoredAdminToken] {
        let logger = logger
        return try read { client in
            try await client.all(
                "\(unescaped: Self.adminTokenColumns) ORDER BY created_ms, id",
                logger: logger
            ).map(Self.adminToken)
        }
    }

    package func recordAdminTokenUse(_ uses: [String: Int64]) throws(StoreError) {
        guard !uses.isEmpty else { return }
        let logger = logger
        let (ids, times) = (Array(uses.keys), uses.keys.map { uses[$0]! })
        do {
            try database.transaction { connection in
                try await connection.all(
                    """
                    UPDATE admin_token t SET last_used_at = u.at
                    FROM unnest(\(ids)::text[], \(times)::bigint[]) AS u(id, at)
                    WHERE t.id = u.id AND (t.last_used_at IS NULL OR t.last_used_at < u.at)
                    """,
                    logger: logger
                )
            }
        } catch {
            throw logged(error, "recording admin token use failed")
        }
    }

    /// A token from a row of `adminTokenColumns`.
    static func adminToken(_ row: PostgresRow) throws -> StoredAdminToken {
        let (id, name, role, hash, by, at, expires, revoked, revokedBy, used) = try row.decode(
            (String, String, String, String, String, Int64, Int64?, Int64?, String?, Int64?).self
        )
        return StoredAdminToken(
            id: id,
            name: name,
            role: role,
            secretSHA256: hash,
            createdBy: by,
            createdAt: at,
            expiresAt: expires,
            revokedAt: revoked,
            revokedBy: revokedBy,
            lastUsedAt: used
        )
    }
}

extension PostgresCatalogueTransaction {
    func adminTokenRows() throws(StoreError) -> [StoredAdminToken] {
        let logger = session.logger
        return try session.run { connection in
            try await connection.all(
                "\(unescaped: PostgresTemplateStore.adminTokenColumns) ORDER BY created_ms, id",
                logger: logger
            ).map(PostgresTemplateStore.adminToken)
        }
    }

    func insertAdminToken(_ token: StoredAdminToken) throws(StoreError) {
        let logger = session.logger
        try session.run { connection in
            try await connection.all(
                """
                INSERT INTO admin_token (id, name, role, secret_sha256, created_by, created_ms, created_at, expires_at)
                VALUES (\(token.id), \(token.name), \(token.role), \(token.secretSHA256), \(token.createdBy),
                    \(token.createdAt), to_timestamp(\(Double(token.createdAt) / 1000)), \(token.expiresAt))
                """,
                logger: logger
            )
        }
    }

    func revokeAdminToken(id: String, at: Int64, by: String) throws(StoreError) {
        let logger = session.logger
        try session.run { connection in
            try await connection.all(
                "UPDATE admin_token SET revoked_at = \(at), revoked_by = \(by) WHERE id = \(id) AND revoked_at IS NULL",
                logger: logger
            )
        }
    }
}
