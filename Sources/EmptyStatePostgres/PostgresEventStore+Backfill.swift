import EmptyStateStore
import Logging
import PostgresNIO

/// The fold of the rollup deltas into the cubes, and the backfill of the rollups from
/// `event_legacy` (the events an earlier release stored): batches by `seq`, each one transaction
/// with the progress, one replica at a time.
extension PostgresEventStore {
    /// The advisory lock of the backfill: "ESRB" in ASCII and the schema (see `partitionLock`).
    static let backfillLock = "\(0x4553_5242 as Int32), hashtext(current_schema())"
    /// The advisory lock of the fold: "ESRF" in ASCII and the schema. Two folds at once would
    /// upsert the same cube rows in different orders (and could deadlock); one waits its turn.
    static let foldLock = "\(0x4553_5246 as Int32), hashtext(current_schema())"

    /// The fold as one statement: `DELETE … RETURNING` takes the deltas committed before it began
    /// (a delta appended meanwhile stays for the next fold), and each cube and grain is upserted
    /// from them, in its snapshot and its transaction.
    private static let foldSQL: String = {
        let upserts = RollupCube.allCases.enumerated().flatMap { index, cube in
            RollupGrain.allCases.enumerated().map { position, grain in
                ", r\(index)\(position) AS (\(cube.countingSQL(grain: grain, fromHourlyCounts: "summed")))"
            }
        }
        // Summed once by hour and full key first: the cubes aggregate those few rows.
        return """
            WITH moved AS (DELETE FROM \(RollupDelta.table) RETURNING *),
            summed AS (\(RollupDelta.summedSQL.replacingOccurrences(of: "FROM \(RollupDelta.table)", with: "FROM moved")))
            """ + upserts.joined(separator: "\n") + "\nSELECT COUNT(*)::int8 FROM moved"
    }()

    @discardableResult
    package func foldRollups() throws(StoreError) -> Int {
        let logger = logger
        return try database.transaction(timeout: .seconds(120)) { connection in
            try await connection.all(
                PostgresQuery(unsafeSQL: "SELECT pg_advisory_xact_lock(\(Self.foldLock))"),
                logger: logger
            )
            let rows = try await connection.all(PostgresQuery(unsafeSQL: Self.foldSQL), logger: logger)
            return Int(try rows.first?.decode(Int64.self) ?? 0)
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
        // The batch counted once by hour and key, appended to the deltas like a group commit's.
        let counting = """
            , delta AS (
                INSERT INTO \(RollupDelta.table) (\(RollupDelta.columns.joined(separator: ", ")))
                \(HourlyCounts.sql(from: "batch"))
            )
            """
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
