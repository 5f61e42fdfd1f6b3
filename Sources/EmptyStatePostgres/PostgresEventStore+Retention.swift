import EmptyStateStore
import Logging
import PostgresNIO

/// Retention: deleting events older than the configured window.
extension PostgresEventStore {
    /// Deletes in batches of `chunk` rows, one short transaction each, so group commits are
    /// never held up for long and the table is never rewritten (the index on the time column
    /// finds the oldest rows; autovacuum reclaims the space).
    @discardableResult
    package func prune(before cutoff: Int64, chunk: Int) throws(StoreError) -> Int {
        let logger = logger
        var total = 0
        for (table, column) in [("event", "occurred_at"), ("quarantine", "received_at")] {
            while true {
                // Each batch commits itself when sent: a batch abandoned before is never sent.
                let deleted = try database.blocking(timeout: .seconds(60)) { client, commit in
                    try await client.withConnection { connection in
                        try commit.reach()
                        return try await connection.all(
                            PostgresQuery(
                                unsafeSQL: """
                                    WITH gone AS (
                                        DELETE FROM \(table) WHERE seq IN (
                                            SELECT seq FROM \(table) WHERE \(column) < $1 ORDER BY \(column) LIMIT $2)
                                        RETURNING 1)
                                    SELECT COUNT(*) FROM gone
                                    """,
                                binds: {
                                    var binds = PostgresBindings()
                                    binds.append(cutoff)
                                    binds.append(chunk)
                                    return binds
                                }()
                            ),
                            logger: logger
                        ).first?.decode(Int.self) ?? 0
                    }
                }
                total += deleted
                if deleted < chunk { break }
            }
        }
        return total
    }
}
