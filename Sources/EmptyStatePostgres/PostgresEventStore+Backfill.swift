import EmptyStateStore
import Logging
import PostgresNIO

/// The backfill of the rollups from `event_legacy` (the events an earlier release stored):
/// batches by `seq`, each one transaction with the progress, one replica at a time.
extension PostgresEventStore {
    /// The advisory lock of the backfill: "ESRB" in ASCII and the schema (see `partitionLock`).
    static let backfillLock = "\(0x4553_5242 as Int32), hashtext(current_schema())"
    /// The shard the backfill adds to (the writers use 0 ..< writers).
    static let backfillShard = -1

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
        let counting =
            ", hourly AS (\(HourlyCounts.sql(from: "batch")))\n"
            + RollupCube.allCases.enumerated().flatMap { index, cube in
                RollupGrain.allCases.enumerated().map { position, grain in
                    ", r\(index)\(position) AS (\(cube.countingSQL(grain: grain, fromHourlyCounts: "hourly", shard: "\(Self.backfillShard)")))"
                }
            }.joined(separator: "\n")
        return try database.transaction(timeout: .seconds(120)) { connection in
            // Another replica backfilling: leave it to it.
            let mine =
                try await connection.all(
                    PostgresQuery(unsafeSQL: "SELECT pg_try_advisory_xact_lock(\(Self.backfillLock))"),
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
