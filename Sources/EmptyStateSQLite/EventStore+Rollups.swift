import EmptyStateStore
import GRDB

/// The rollups on SQLite: what a group commit adds (counted in Swift, one upsert per key and
/// table), what summaries read, and the backfill of events stored before the rollups existed.
extension EventStore {
    /// Adds a group's counts to every rollup table, in the group's transaction.
    static func add(_ rollups: RollupBatch, in db: Database) throws {
        guard !rollups.isEmpty else { return }
        for cube in RollupCube.allCases {
            for grain in RollupGrain.allCases {
                let statement = try db.cachedStatement(sql: cube.incrementSQL(grain: grain))
                for (bucketed, count) in rollups.counts(cube, grain) {
                    var arguments: [any DatabaseValueConvertible] = [bucketed.bucket]
                    for dimension in cube.dimensions {
                        let value = bucketed.key.value(dimension)
                        arguments.append((value as? Int) ?? (value as? String) ?? "")
                    }
                    arguments.append(count)
                    try statement.execute(arguments: StatementArguments(arguments))
                }
            }
        }
    }

    package func rollupRows(_ query: RollupQuery) throws(StoreError) -> [RollupRow] {
        var arguments: [any DatabaseValueConvertible] = [query.buckets.lowerBound, query.buckets.upperBound]
        arguments += (query.templates ?? []).map { $0 as any DatabaseValueConvertible }
        if let type = query.type { arguments.append(type.rawValue) }
        let sql = query.sql { "CAST(\($0) AS TEXT)" }
        let keys = query.groupBy.count
        do {
            return try pool.read { db in
                try Row.fetchAll(db, sql: sql, arguments: StatementArguments(arguments)).map { row in
                    RollupRow(
                        keys: (0..<keys).map { row[$0] as String },
                        type: row[keys],
                        action: row[keys + 1],
                        count: row[keys + 2]
                    )
                }
            }
        } catch {
            throw .database("\(error)")
        }
    }

    package func backfillProgress() throws(StoreError) -> RollupBackfill {
        do {
            return try pool.read { db in try Self.progress(db) }
        } catch {
            throw .database("\(error)")
        }
    }

    @discardableResult
    package func backfillRollups(limit: Int) throws(StoreError) -> RollupBackfill {
        precondition(limit > 0)
        do {
            // One short write transaction per batch: group commits wait at most for one batch.
            return try pool.write { db in
                guard
                    let row = try Row.fetchOne(
                        db,
                        sql: "SELECT through_seq, next_seq FROM rollup_backfill WHERE id = 1 AND counted < total"
                    )
                else { return try Self.progress(db) }
                let through: Int64 = row["through_seq"]
                let next: Int64 = row["next_seq"]
                // The batch: the next `limit` events by seq, up to the last one stored before rollups.
                guard
                    let last = try Int64.fetchOne(
                        db,
                        sql:
                            "SELECT MAX(seq) FROM (SELECT seq FROM event WHERE seq >= ? AND seq <= ? ORDER BY seq LIMIT ?)",
                        arguments: [next, through, limit]
                    )
                else {
                    // Nothing left (retention may have deleted the rest): done.
                    try db.execute(sql: "UPDATE rollup_backfill SET next_seq = through_seq + 1, counted = total")
                    return try Self.progress(db)
                }
                let filter = "seq >= \(next) AND seq <= \(last)"
                // The batch counted once by hour and key, then each cube and grain from those counts.
                try db.execute(
                    sql: "CREATE TEMP TABLE IF NOT EXISTS hourly AS \(HourlyCounts.sql(from: "event")) LIMIT 0"
                )
                try db.execute(sql: "DELETE FROM temp.hourly")
                try db.execute(
                    sql: "INSERT INTO temp.hourly \(HourlyCounts.sql(from: "(SELECT * FROM event WHERE \(filter))"))"
                )
                for cube in RollupCube.allCases {
                    for grain in RollupGrain.allCases {
                        try db.execute(sql: cube.countingSQL(grain: grain, fromHourlyCounts: "temp.hourly"))
                    }
                }
                let counted = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM event WHERE \(filter)") ?? 0
                try db.execute(
                    sql: """
                        UPDATE rollup_backfill SET next_seq = ?, counted = CASE WHEN ? >= through_seq THEN total
                            ELSE MIN(total, counted + ?) END
                        """,
                    arguments: [last + 1, last, counted]
                )
                return try Self.progress(db)
            }
        } catch {
            throw .database("\(error)")
        }
    }

    private static func progress(_ db: Database) throws -> RollupBackfill {
        guard let row = try Row.fetchOne(db, sql: "SELECT counted, total FROM rollup_backfill WHERE id = 1") else {
            return RollupBackfill(counted: 0, total: 0)
        }
        return RollupBackfill(counted: row["counted"], total: row["total"])
    }
}
