import EmptyStateStore
import EmptyStateStoreSQL
import Logging
import PostgresNIO

/// Retention: partitions made ahead and expired ones dropped whole; what is not partitioned (the
/// ids, the legacy table, quarantine, hour rollups) deleted in bounded batches.
extension PostgresEventStore {
    /// Makes the partitions ahead, drops the partitions whose whole day is before `cutoff`, then
    /// deletes in batches of `chunk` rows, one short transaction each, so group commits are never
    /// held up for long: the ids of the expired partitions' events (before their partitions go),
    /// legacy events before `cutoff`, quarantined events received before it, hour rollups before
    /// it and day rollups before `RollupRetention`. A partition is dropped whether or not its events were exported
    /// (retention does not wait for the export).
    ///
    /// Events go with their day's partition, so one that expires is deleted within a day (plus
    /// the hour between runs); ingestion refuses events older than the cutoff meanwhile.
    /// - Returns: how many events and quarantined events were deleted.
    @discardableResult
    package func prune(before cutoff: Int64, chunk: Int) throws(StoreError) -> Int {
        try ensurePartitionsAhead()
        // Deltas first, so none of an expired bucket is folded back in after its rows are gone.
        try foldRollups()
        // The expired partitions' ids first: while a partition exists, its rows say which ids
        // are its (`event_id` has no index by day; schema version 7).
        try deleteExpiredIDs(before: cutoff, chunk: chunk)
        var deleted = 0
        for partition in try dropExpiredPartitions(before: cutoff) {
            deleted += partition.events
            logger.notice(
                "dropped an expired event partition",
                metadata: [
                    "store.partition": "\(partition.name)", "store.events": "\(partition.events)",
                    "store.bytes_freed": "\(partition.bytes)", "store.drop_ms": "\(partition.milliseconds)",
                ]
            )
        }
        let now = Timestamp.nowMilliseconds()
        // (table, key column, condition column, bound, counted in the result)
        var batches: [(String, String, String, Int64, Bool)] = [
            ("event_legacy", "seq", "occurred_at", cutoff, true),
            ("quarantine", "seq", "received_at", cutoff, true),
        ]
        for cube in RollupCube.allCases {
            batches.append((cube.table(.hour), "bucket", "bucket", RollupGrain.hour.bucket(of: cutoff), false))
            batches.append(
                (
                    cube.table(.day), "bucket", "bucket", RollupRetention.firstDayKept(eventCutoff: cutoff, now: now),
                    false
                )
            )
        }
        for (table, key, column, bound, counted) in batches {
            while true {
                let removed = try deleteBatch(table: table, key: key, column: column, before: bound, chunk: chunk)
                if counted { deleted += removed }
                // A rollup batch removes whole buckets: it ends when a batch finds none.
                if key == "bucket" ? removed == 0 : removed < chunk { break }
            }
        }
        return deleted
    }

    /// Deletes from `event_id` the ids of the events of every partition whose whole day is before
    /// `cutoff` (a partition left half-detached by an interrupted run too), `chunk` at a time.
    private func deleteExpiredIDs(before cutoff: Int64, chunk: Int) throws(StoreError) {
        let lastExpired = RollupGrain.day.bucket(of: cutoff) - 1
        let logger = logger
        let expired = try database.blocking(timeout: .seconds(60)) { client in
            try await client.withConnection { connection in
                try await Self.partitions(connection, logger: logger).filter { $0.day <= lastExpired }.map(\.name)
            }
        }
        for name in expired { try deleteIDs(ofPartition: name, chunk: chunk) }
    }

    /// Deletes the ids of `partition`'s events from `event_id`: batches of `chunk` of its rows in
    /// `seq` order (its `event_by_seq` index), each deleted by primary key in a statement of its
    /// own. Deleting an id twice (a run interrupted and run again, two replicas at once) is harmless.
    private func deleteIDs(ofPartition partition: String, chunk: Int) throws(StoreError) {
        let logger = logger
        var after = Int64.min
        while true {
            var binds = PostgresBindings()
            binds.append(after)
            binds.append(chunk)
            let statement = PostgresQuery(
                unsafeSQL: """
                    WITH batch AS (SELECT id, seq FROM \(partition) WHERE seq > $1 ORDER BY seq LIMIT $2),
                    gone AS (DELETE FROM event_id e USING batch b WHERE e.id = b.id)
                    SELECT COALESCE(MAX(seq), $1), COUNT(*)::int8 FROM batch
                    """,
                binds: binds
            )
            let (last, count) = try database.blocking(timeout: .seconds(60)) { client, commit in
                try await client.withConnection { connection in
                    try commit.reach()
                    return try await connection.all(statement, logger: logger).first?.decode((Int64, Int).self)
                        ?? (Int64.min, 0)
                }
            }
            if count < chunk { return }
            after = last
        }
    }

    /// One batch: at most `chunk` rows of `table` whose `column` is below `bound`, by `key` (for
    /// rollups, whose key is not unique alone, the rows of the oldest bucket).
    private func deleteBatch(
        table: String,
        key: String,
        column: String,
        before bound: Int64,
        chunk: Int
    )
        throws(StoreError) -> Int
    {
        let logger = logger
        let sql =
            key == "bucket"
            ? """
            WITH gone AS (
                DELETE FROM \(table) WHERE bucket = (SELECT MIN(bucket) FROM \(table)) AND bucket < $1 RETURNING 1)
            SELECT COUNT(*) FROM gone
            """
            : """
            WITH gone AS (
                DELETE FROM \(table) WHERE \(key) IN (
                    SELECT \(key) FROM \(table) WHERE \(column) < $1 ORDER BY \(column) LIMIT $2)
                RETURNING 1)
            SELECT COUNT(*) FROM gone
            """
        var binds = PostgresBindings()
        binds.append(bound)
        if key != "bucket" { binds.append(chunk) }
        let statement = PostgresQuery(unsafeSQL: sql, binds: binds)
        // Each batch commits itself when sent: a batch abandoned before is never sent.
        return try database.blocking(timeout: .seconds(60)) { client, commit in
            try await client.withConnection { connection in
                try commit.reach()
                return try await connection.all(statement, logger: logger).first?.decode(Int.self) ?? 0
            }
        }
    }
}
