import EmptyStateStore
import GRDB

/// Admin tokens on SQLite (`AdminTokenStoring`, `AdminTokenTransaction`): the `admin_token`
/// table of the templates database, written in the catalogue transaction of the token's revision.
extension SQLiteTemplateStore: AdminTokenStoring {
    package func adminTokens() throws(StoreError) -> [StoredAdminToken] {
        try read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM admin_token ORDER BY created_at, id").map(Self.adminToken)
        }
    }

    package func recordAdminTokenUse(_ uses: [String: Int64]) throws(StoreError) {
        guard !uses.isEmpty else { return }
        try transaction { db in
            for (id, at) in uses {
                try db.execute(
                    sql: """
                        UPDATE admin_token SET last_used_at = ?
                        WHERE id = ? AND (last_used_at IS NULL OR last_used_at < ?)
                        """,
                    arguments: [at, id, at]
                )
            }
        }
    }

    /// A token from a row of `admin_token`.
    static func adminToken(_ row: Row) -> StoredAdminToken {
        StoredAdminToken(
            id: row["id"],
            name: row["name"],
            role: row["role"],
            secretSHA256: row["secret_sha256"],
            createdBy: row["created_by"],
            createdAt: row["created_at"],
            expiresAt: row["expires_at"],
            revokedAt: row["revoked_at"],
            revokedBy: row["revoked_by"],
            lastUsedAt: row["last_used_at"]
        )
    }
}

extension SQLiteCatalogueTransaction {
    func adminTokenRows() throws(StoreError) -> [StoredAdminToken] {
        try sql {
            try Row.fetchAll(db, sql: "SELECT * FROM admin_token ORDER BY created_at, id").map(
                SQLiteTemplateStore.adminToken
            )
        }
    }

    func insertAdminToken(_ token: StoredAdminToken) throws(StoreError) {
        try sql {
            try db.execute(
                sql: """
                    INSERT INTO admin_token (id, name, role, secret_sha256, created_by, created_at, expires_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    token.id, token.name, token.role, token.secretSHA256, token.createdBy, token.createdAt,
                    token.expiresAt,
                ]
            )
        }
    }

    func revokeAdminToken(id: String, at: Int64, by: String) throws(StoreError) {
        try sql {
            try db.execute(
                sql: "UPDATE admin_token SET revoked_at = ?, revoked_by = ? WHERE id = ? AND revoked_at IS NULL",
                arguments: [at, by, id]
            )
        }
    }
}
