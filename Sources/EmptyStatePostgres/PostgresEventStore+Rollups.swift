import EmptyStateStore
import EmptyStateStoreSQL
import Logging
import PostgresNIO

/// The fold of the rollup deltas into the cubes, and the backfill of the rollups from
/// `event_legacy` (the events an earlier release stored): batches by `seq`, each one transaction
/// with the progress, one replica at a time.
extension PostgresEventStore {
    /// The advisory lock of the backfill: "ESRB" in ASCII and the schema (see `partitionLock`).
    static let backfillLock = "\(0x4553_5242 as Int32), hashtext(current_schema())"
    /// The advisory lock of the cubes' writers, the fold and the backfill: "ESRF" in ASCII and
    /// the schema. Two of them at once would upsert the same cube rows in different orders (and
    /// could deadlock); each takes it with `pg_try_advisory_xact_lock` and, when another holds
    /// it, leaves its work to the next run rather than wait (holding a pooled connection).
    static let cubeLock = "\(0x4553_5246 as Int32), hashtext(current_schema())"

    /// Upserts of every cube and grain from the `HourlyCounts`-shaped rows of `source` (a `WITH`
    /// name), as data-modifying `WITH` entries (each begins with a comma).
    private static func cubeUpserts(from source: String) -> String {
        RollupCube.allCases.enumerated().flatMap { index, cube in
            RollupGrain.allCases.enumerated().map { position, grain in
                ", r\(index)\(position) AS (\(cube.countingSQL(grain: grain, fromHourlyCounts: source)))"
            }
        }.joined(separator: "\n")
    }

    /// One fold batch as one statement: `DELETE … RETURNING` takes at most `batch` of
    /// the deltas committed before it began (one appended meanwhile stays for the next batch),
    /// sums them by hour and full key, and upserts each cube and grain from those rows.
    private static func foldSQL(batch: Int) -> String {
        """
        WITH moved AS (
            DELETE FROM \(RollupDelta.table)
            WHERE ctid = ANY(ARRAY(SELECT ctid FROM \(RollupDelta.table) LIMIT \(batch)))
            RETURNING *
        ), summed AS (\(RollupDelta.summedSQL(from: "moved")))
        \(cubeUpserts(from: "summed"))
        SELECT COUNT(*)::int8 FROM moved
        """
    }

    @discardableResult
    package func foldRollups(batch: Int) throws(StoreError) -> Int {
        precondition(batch > 0)
        let logger = logger
        var total = 0
        while true {
            // A batch a transaction: row locks on the cubes held for one batch, not a backlog.
            let folded = try database.transaction(timeout: .seconds(120)) { connection -> Int? in
                let mine =
                    try await connection.all(
                        PostgresQuery(unsafeSQL: "SELECT pg_try_advisory_xact_lock(\(Self.cubeLock))"),
                        logger: logger
                    )
                    .first?.decode(Bool.self) ?? false
                guard mine else { return nil }  // another replica, or the backfill, is at it
                let rows = try await connection.all(
                    PostgresQuery(unsafeSQL: Self.foldSQL(batch: batch)),
                    logger: logger
                )
                return Int(try rows.first?.decode(Int64.self) ?? 0)
            }
            guard let folded else { return total }
            total += folded
            if folded < batch { return total }
        }
    }

    package func backfillProgress() throws(StoreError) -> RollupBackfill {
        let logger = logger
        return try database.blocking { client in
            try await Self.progress(
                client.all("SELECT counted, total FROM rollup_backfill WHERE id = 1", logger: logger)
            )
        }
    }

    @discardableResult
    package func backfillRollups(limit: Int) throws(StoreError) -> RollupBackfill {
        precondition(limit > 0)
        let logger = logger
        // The batch counted once by hour and key, straight into the cubes (under the cubes' lock):
        // a batch is thousands of events and about as many keys, which deltas would only carry
        // to the fold.
        let counting = ", hourly AS (\(HourlyCounts.sql(from: "batch")))\n" + Self.cubeUpserts(from: "hourly")
        return try database.transaction(timeout: .seconds(120)) { connection in
            // Another replica backfilling, or a fold writing the cubes: leave it to them, this
            // batch is taken at the next run.
            let mine =
                try await connection.all(
                    PostgresQuery(
                        unsafeSQL: """
                            SELECT pg_try_advisory_xact_lock(\(Self.backfillLock))
                                AND pg_try_advisory_xact_lock(\(Self.cubeLock))
                            """
                    ),
                    logger: logger
                )
                .first?.decode(Bool.self) ?? false
            let state = try await connection.all(
                "SELECT through_seq, next_seq, counted, total FROM rollup_backfill WHERE id = 1",
                logger: logger
            )
            guard mine, let row = state.first else {
                return try Self.progress(state.map { $0 })
            }
            let (through, next, counted, total) = try row.decode((Int64, Int64, Int64, Int64).self)
            guard counted < total else { return RollupBackfill(counted: Int(counted), total: Int(total)) }
            var query: PostgresQuery = """
                WITH batch AS (
                    SELECT type, template_id, revision, variant, locale, platform, app_version, action_id, occurred_at, seq
                    FROM event_legacy WHERE seq >= \(next) AND seq <= \(through) ORDER BY seq LIMIT \(limit)
                )
                """
            query.sql += counting
            query.sql += "\nSELECT MAX(seq), COUNT(*)::int8 FROM batch"
            let (last, batch) =
                try await connection.all(query, logger: logger).first?.decode((Int64?, Int64).self)
                ?? (nil, Int64(0))
            // Retention may have deleted the rest: then the backfill is done.
            let done = last == nil || last! >= through
            let nowCounted = done ? total : min(total, counted + batch)
            try await connection.all(
                """
                UPDATE rollup_backfill SET next_seq = \((last ?? through) + 1), counted = \(nowCounted) WHERE id = 1
                """,
                logger: logger
            )
            return RollupBackfill(counted: Int(nowCounted), total: Int(total))
        }
    }

    private static func progress(_ rows: [PostgresRow]) throws -> RollupBackfill {
        guard let row = rows.first else { return RollupBackfill(counted: 0, total: 0) }
        let columns = row.makeRandomAccess()
        // The state read with the lock answers four columns, the plain read two.
        let offset = columns.count == 4 ? 2 : 0
        return RollupBackfill(
            counted: Int(try columns[offset].decode(Int64.self)),
            total: Int(try columns[offset + 1].decode(Int64.self))
        )
    }
}
