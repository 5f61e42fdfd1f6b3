import EmptyStateStore
import EmptyStateStoreSQL
import GRDB

/// Retention on SQLite: deletes in bounded batches, each its own short write transaction.
extension SQLiteEventStore {
    /// Deletes events that happened before `cutoff`, quarantined ones received before it, hour
    /// rollups before it and day rollups before `RollupRetention`, in chunks of `chunk` rows per
    /// transaction so group commits are never held up for long (SQLite has one writer).
    /// - Returns: how many events and quarantined events were deleted.
    @discardableResult
    package func prune(before cutoff: Int64, chunk: Int) throws(StoreError) -> Int {
        // Deltas first, so none of an expired bucket is folded back in after its rows are gone.
        try foldRollups()
        var total = 0
        do {
            for table in [("event", "occurred_at"), ("quarantine", "received_at")] {
                while true {
                    let deleted = try pool.write { db in
                        try db.execute(
                            sql:
                                "DELETE FROM \(table.0) WHERE seq IN (SELECT seq FROM \(table.0) WHERE \(table.1) < ? LIMIT ?)",
                            arguments: [cutoff, chunk]
                        )
                        return db.changesCount
                    }
                    total += deleted
                    if deleted < chunk { break }
                }
            }
            // Rollups, one bucket per transaction (a bucket is at most its day's or hour's keys).
            let now = Timestamp.nowMilliseconds()
            let firstKept: [RollupGrain: Int64] = [
                .hour: RollupGrain.hour.bucket(of: cutoff),
                .day: RollupRetention.firstDayKept(eventCutoff: cutoff, now: now),
            ]
            for cube in RollupCube.allCases {
                for grain in RollupGrain.allCases {
                    let table = cube.table(grain)
                    while try pool.write({ db in
                        try db.execute(
                            sql:
                                "DELETE FROM \(table) WHERE bucket = (SELECT MIN(bucket) FROM \(table)) AND bucket < ?",
                            arguments: [firstKept[grain]!]
                        )
                        return db.changesCount > 0
                    }) {}
                }
            }
        } catch {
            throw .database("\(error)")
        }
        return total
    }
}
