import EmptyStateStore
import EmptyStateStoreSQL
import GRDB

/// The rollups on SQLite: what a group commit appends (a delta row per hour and key), the fold of the deltas into the cubes, what summaries read, and the backfill of events
/// stored before the rollups existed.
extension SQLiteEventStore {
    /// Adds `tally`, the counts of the events the group stored, to the deltas, in the group's
    /// transaction: to the row of each hour and key, made when missing (events migration v5).
    /// Nothing else writes meanwhile (SQLite has one writer), so no commit waits for another's row.
    static func addRollups(_ tally: HourlyTally, in db: Database) throws {
        // The order of the bindings below.
        assert(RollupDelta.columns == ["hour"] + RollupDimension.allCases.map(\.column) + ["n"])
        assert(
            RollupDimension.allCases == [
                .template, .revision, .variant, .locale, .platform, .appVersion, .type, .action,
            ]
        )
        var insert = RawBindings(
            try db.cachedStatement(
                sql: """
                    INSERT INTO \(RollupDelta.table) (\(RollupDelta.columns.joined(separator: ", ")))
                    VALUES (\(Array(repeating: "?", count: RollupDelta.columns.count).joined(separator: ", ")))
                    ON CONFLICT (\(RollupDelta.columns.dropLast().joined(separator: ", ")))
                        DO UPDATE SET n = \(RollupDelta.table).n + excluded.n
                    """
            )
        )
        for (key, n) in tally.counts {
            insert.row()
            insert.bind(key.hour)
            insert.bind(key.template)
            insert.bind(key.revision)
            insert.bind(key.variant)
            insert.bind(key.locale)
            insert.bind(key.platform)
            insert.bind(key.appVersion)
            insert.bind(key.type)
            insert.bind(key.action)
            insert.bind(n)
            try insert.execute()
        }
    }

    @discardableResult
    package func foldRollups(batch: Int) throws(StoreError) -> Int {
        precondition(batch > 0)
        var total = 0
        do {
            // A batch a transaction: SQLite has one writer, and group commits wait for each.
            while true {
                let folded = try pool.write { db -> Int in
                    // The oldest deltas, by rowid; this transaction is the only writer, so the rows
                    // it sums are the rows it deletes.
                    guard
                        let last = try Int64.fetchOne(
                            db,
                            sql: """
                                SELECT MAX(rowid) FROM (
                                    SELECT rowid FROM \(RollupDelta.table) ORDER BY rowid LIMIT \(batch))
                                """
                        )
                    else { return 0 }
                    let batch = "(SELECT * FROM \(RollupDelta.table) WHERE rowid <= \(last))"
                    // Summed once by hour and full key (many groups' rows of a key become one),
                    // then each cube and grain from those few rows.
                    try Self.addToCubes(RollupDelta.summedSQL(from: batch), in: db)
                    try db.execute(sql: "DELETE FROM \(RollupDelta.table) WHERE rowid <= \(last)")
                    return db.changesCount
                }
                total += folded
                if folded < batch { return total }
            }
        } catch {
            throw .database("\(error)")
        }
    }

    /// Adds `HourlyCounts`-shaped rows (`select`: hour, every dimension, n) to every cube and
    /// grain, in `db`'s transaction.
    static func addToCubes(_ select: String, in db: Database) throws {
        try db.execute(sql: "CREATE TEMP TABLE IF NOT EXISTS hourly AS \(HourlyCounts.sql(from: "event")) LIMIT 0")
        try db.execute(sql: "DELETE FROM temp.hourly")
        try db.execute(sql: "INSERT INTO temp.hourly \(select)")
        for cube in RollupCube.allCases {
            for grain in RollupGrain.allCases {
                try db.execute(sql: cube.countingSQL(grain: grain, fromHourlyCounts: "temp.hourly"))
            }
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
                // The batch counted once by hour and key, straight into the cubes: one batch of
                // the backfill is thousands of events and as many keys, which deltas would only
                // carry to the fold.
                try Self.addToCubes(HourlyCounts.sql(from: "(SELECT * FROM event WHERE \(filter))"), in: db)
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
