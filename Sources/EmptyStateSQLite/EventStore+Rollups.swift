import EmptyStateStore
import GRDB

/// The rollups on SQLite: what a group commit appends (a delta row per hour and key), the fold of the deltas into the cubes, what summaries read, and the backfill of events
/// stored before the rollups existed.
extension EventStore {
    /// Appends the counts of the events stored with `seqs` to the deltas, in the group's
    /// transaction: counted by SQLite from the rows just written (in its cache), once per hour
    /// and key, without a value crossing into Swift.
    static func addRollups(ofEvents seqs: ClosedRange<Int64>, in db: Database) throws {
        let statement = try db.cachedStatement(
            sql: """
                INSERT INTO \(RollupDelta.table) (\(RollupDelta.columns.joined(separator: ", ")))
                \(HourlyCounts.sql(from: "(SELECT * FROM event WHERE seq >= ? AND seq <= ?)"))
                """
        )
        try statement.execute(arguments: [seqs.lowerBound, seqs.upperBound])
    }

    @discardableResult
    package func foldRollups() throws(StoreError) -> Int {
        do {
            return try pool.write { db in
                let folded = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(RollupDelta.table)") ?? 0
                guard folded > 0 else { return 0 }
                // SQLite's one writer is this transaction: every delta it reads is the one it deletes.
                // The deltas summed once by hour and full key (many groups' rows for the same key
                // become one), then each cube and grain from those few rows.
                try db.execute(sql: "CREATE TEMP TABLE IF NOT EXISTS folded AS \(RollupDelta.summedSQL) LIMIT 0")
                try db.execute(sql: "DELETE FROM temp.folded")
                try db.execute(sql: "INSERT INTO temp.folded \(RollupDelta.summedSQL)")
                for cube in RollupCube.allCases {
                    for grain in RollupGrain.allCases {
                        try db.execute(sql: cube.countingSQL(grain: grain, fromHourlyCounts: "temp.folded"))
                    }
                }
                try db.execute(sql: "DELETE FROM \(RollupDelta.table)")
                return folded
            }
        } catch {
            throw .database("\(error)")
        }
    }

    package func rollupRows(_ query: RollupQuery) throws(StoreError) -> [RollupRow] {
        let arguments: [any DatabaseValueConvertible] = query.arguments.map {
            switch $0 {
            case .integer(let value): return value
            case .text(let value): return value
            }
        }
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
                // The batch counted once by hour and key, appended to the deltas like a group commit's.
                try db.execute(
                    sql: """
                        INSERT INTO \(RollupDelta.table) (\(RollupDelta.columns.joined(separator: ", ")))
                        \(HourlyCounts.sql(from: "(SELECT * FROM event WHERE \(filter))"))
                        """
                )
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
