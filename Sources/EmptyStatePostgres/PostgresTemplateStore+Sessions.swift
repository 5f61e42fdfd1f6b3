import EmptyStateStore
import Logging
import PostgresNIO

/// Console sessions in `console_session`, shared by every replica. Session writes do not take
/// the catalogue's write lock: they change no template, and must not wait behind publications.
extension PostgresTemplateStore: SessionStoring {
    package func createSession(_ session: ConsoleSession) throws(StoreError) {
        let logger = logger
        do {
            try database.transaction { connection in
                try await connection.all(
                    """
                    INSERT INTO console_session (id_hash, token_name, role, created_at, last_seen_at, expires_at)
                    VALUES (\(session.idHash), \(session.tokenName), \(session.role), \(session.createdAt),
                            \(session.lastSeenAt), \(session.expiresAt))
                    """,
                    logger: logger
                )
            }
        } catch {
            throw logged(error, "session write failed")
        }
    }

    package func session(idHash: String) throws(StoreError) -> ConsoleSession? {
        let logger = logger
        return try read { client in
            for try await (hash, name, role, created, seen, expires) in try await client.query(
                """
                SELECT id_hash, token_name, role, created_at, last_seen_at, expires_at
                FROM console_session WHERE id_hash = \(idHash)
                """,
                logger: logger
            ).decode((String, String, String, Int64, Int64, Int64).self) {
                return ConsoleSession(
                    idHash: hash,
                    tokenName: name,
                    role: role,
                    createdAt: created,
                    lastSeenAt: seen,
                    expiresAt: expires
                )
            }
            return nil
        }
    }

    package func touchSession(idHash: String, at: Int64) throws(StoreError) {
        try sessionWrite(
            "UPDATE console_session SET last_seen_at = GREATEST(last_seen_at, \(at)) WHERE id_hash = \(idHash) RETURNING id_hash"
        )
    }

    @discardableResult
    package func deleteSession(idHash: String) throws(StoreError) -> Bool {
        try sessionWrite("DELETE FROM console_session WHERE id_hash = \(idHash) RETURNING id_hash") > 0
    }

    @discardableResult
    package func removeExpiredSessions(now: Int64, idleMilliseconds: Int64) throws(StoreError) -> Int {
        try sessionWrite(
            """
            DELETE FROM console_session WHERE expires_at <= \(now) OR last_seen_at <= \(now - idleMilliseconds)
            RETURNING id_hash
            """
        )
    }

    /// Runs one statement that returns a row per row it changed, in a transaction of its own.
    /// - Returns: how many rows it changed.
    @discardableResult
    private func sessionWrite(_ query: PostgresQuery) throws(StoreError) -> Int {
        let logger = logger
        do {
            return try database.transaction { connection in
                try await connection.all(query, logger: logger).count
            }
        } catch {
            throw logged(error, "session write failed")
        }
    }
}
