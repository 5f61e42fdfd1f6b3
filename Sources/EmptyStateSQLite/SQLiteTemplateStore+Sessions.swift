import EmptyStateStore
import GRDB

/// Console sessions in the templates database (`console_session`): each write is one durable
/// transaction like every other, and reads use the reader connections.
extension SQLiteTemplateStore: SessionStoring {
    package func createSession(_ session: ConsoleSession) throws(StoreError) {
        try transaction { db in
            try db.execute(
                sql: """
                    INSERT INTO console_session (id_hash, token_name, role, created_at, last_seen_at, expires_at)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    session.idHash, session.tokenName, session.role, session.createdAt, session.lastSeenAt,
                    session.expiresAt,
                ]
            )
        }
    }

    package func session(idHash: String) throws(StoreError) -> ConsoleSession? {
        try read { db in
            try Row.fetchOne(
                db,
                sql: """
                    SELECT id_hash, token_name, role, created_at, last_seen_at, expires_at
                    FROM console_session WHERE id_hash = ?
                    """,
                arguments: [idHash]
            ).map { row in
                ConsoleSession(
                    idHash: row["id_hash"],
                    tokenName: row["token_name"],
                    role: row["role"],
                    createdAt: row["created_at"],
                    lastSeenAt: row["last_seen_at"],
                    expiresAt: row["expires_at"]
                )
            }
        }
    }

    package func touchSession(idHash: String, at: Int64) throws(StoreError) {
        try transaction { db in
            try db.execute(
                sql: "UPDATE console_session SET last_seen_at = MAX(last_seen_at, ?) WHERE id_hash = ?",
                arguments: [at, idHash]
            )
        }
    }

    @discardableResult
    package func deleteSession(idHash: String) throws(StoreError) -> Bool {
        try transaction { db in
            try db.execute(sql: "DELETE FROM console_session WHERE id_hash = ?", arguments: [idHash])
            return db.changesCount > 0
        }
    }

    @discardableResult
    package func removeExpiredSessions(now: Int64, idleMilliseconds: Int64) throws(StoreError) -> Int {
        try transaction { db in
            try db.execute(
                sql: "DELETE FROM console_session WHERE expires_at <= ? OR last_seen_at <= ?",
                arguments: [now, now - idleMilliseconds]
            )
            return db.changesCount
        }
    }
}
