import Dispatch
import EmptyStateStore
import EmptyStateStoreSQL
import Foundation
import GRDB
import Logging
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Durable storage of analytics events, with group commit, and their rollups (`RollupCube`),
/// counted in the same transaction.
///
/// `append` returns only once the events are committed (`synchronous=FULL`), so an event
/// acknowledged to the app survives `kill -9` or power loss. Concurrent `append` calls share one
/// transaction: a writer thread takes everything queued since its last commit and commits it at
/// once, so durability costs one fsync per group rather than per request.
package final class SQLiteEventStore: Sendable, GroupCommitting {
    package let path: String
    let pool: DatabasePool
    private let logger: Logger
    /// The group commit: one writer thread, committing with `commit(_:pool:)`.
    private let groups: GroupCommitQueue

    /// Opens (creating and migrating when needed) the event database at `path`.
    /// - Parameter countsRollups: whether each commit counts its events into the rollups: always
    ///   in service; `false` only to measure what counting costs ingestion (`make bench`, with
    ///   `EMPTY_STATE_BENCH_WITHOUT_ROLLUPS=1`), and the summaries are then wrong.
    package init(
        path: String,
        countsRollups: Bool = true,
        logger: Logger,
        onCommit: (@Sendable (Double) -> Void)? = nil
    ) throws(StoreError) {
        self.path = path
        self.logger = logger
        let pool = try DurablePool.open(path: path, migrator: Self.migrator, foreignKeys: false)
        self.pool = pool
        groups = GroupCommitQueue(onCommit: onCommit) { group, _ in
            Self.commit(group, pool: pool, countsRollups: countsRollups, logger: logger, path: path)
        }
    }

    package static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: events, quarantine") { db in
            try db.execute(
                sql: """
                    CREATE TABLE event (
                        seq INTEGER PRIMARY KEY AUTOINCREMENT,  -- export cursor
                        id TEXT NOT NULL UNIQUE,                 -- client UUID: duplicates are dropped
                        type TEXT NOT NULL,
                        template_id TEXT NOT NULL,
                        revision INTEGER,
                        etag TEXT,
                        locale TEXT NOT NULL,
                        platform TEXT NOT NULL,
                        app_version TEXT NOT NULL,
                        action_id TEXT,
                        session_id TEXT,
                        occurred_at INTEGER NOT NULL,            -- ms since the epoch, skew-corrected
                        received_at INTEGER NOT NULL,
                        clock_skew_ms INTEGER NOT NULL,
                        request_id TEXT NOT NULL
                    );
                    CREATE INDEX event_by_time ON event(occurred_at);
                    CREATE TABLE quarantine (
                        seq INTEGER PRIMARY KEY AUTOINCREMENT,
                        received_at INTEGER NOT NULL,
                        reason TEXT NOT NULL,
                        payload TEXT NOT NULL,
                        request_id TEXT NOT NULL
                    );
                    CREATE INDEX quarantine_by_time ON quarantine(received_at);
                    """
            )
        }
        migrator.registerMigration("v2: rollups, variant and install of an event") { db in
            // Every event stored from now on is counted in the rollups by its own transaction;
            // those stored before (a database of an earlier release) are counted by the backfill,
            // in batches, up to the newest `seq` now.
            try db.execute(
                sql: """
                    ALTER TABLE event ADD COLUMN variant TEXT;
                    ALTER TABLE event ADD COLUMN install_id TEXT;
                    CREATE TABLE rollup_backfill (
                        id INTEGER PRIMARY KEY CHECK (id = 1),
                        through_seq INTEGER NOT NULL,   -- the newest event stored before rollups existed
                        next_seq INTEGER NOT NULL,      -- events with seq < next_seq are counted
                        counted INTEGER NOT NULL,
                        total INTEGER NOT NULL
                    );
                    INSERT INTO rollup_backfill (id, through_seq, next_seq, counted, total)
                        SELECT 1, COALESCE(MAX(seq), 0), 0, 0, COUNT(*) FROM event;
                    """
            )
            let deltaColumns = RollupDimension.allCases.map {
                "\($0.column) \($0.isInteger ? "INTEGER" : "TEXT") NOT NULL"
            }
            try db.execute(
                sql: """
                    CREATE TABLE \(RollupDelta.table) (
                        hour INTEGER NOT NULL, \(deltaColumns.joined(separator: ", ")), n INTEGER NOT NULL
                    )
                    """
            )
            for cube in RollupCube.ofAnalyticsRelease {
                for grain in RollupGrain.allCases {
                    try db.execute(sql: Self.cubeTableSQL(RollupCube.table(cube.name, grain), cube.dimensions))
                }
            }
        }
        migrator.registerMigration("v3: one cube per catalogue-wide facet, cubes searchable by template") { db in
            // `overall` (locale × platform × app version) becomes three small cubes, filled from
            // it: a catalogue-wide summary per app version then reads a few hundred rows a day
            // instead of thousands.
            for cube in RollupCube.fromOverall {
                for grain in RollupGrain.allCases {
                    let table = cube.table(grain)
                    let key = (["bucket"] + cube.dimensions.map(\.column)).joined(separator: ", ")
                    try db.execute(sql: Self.cubeTableSQL(table, cube.dimensions))
                    try db.execute(
                        sql: """
                            INSERT INTO \(table) (\(key), n)
                            SELECT \(key), SUM(n) FROM \(RollupCube.table("overall", grain)) GROUP BY \(key)
                            """
                    )
                }
            }
            for grain in RollupGrain.allCases {
                try db.execute(sql: "DROP TABLE \(RollupCube.table("overall", grain))")
            }
            // One template's month reads that template's rows, not the month's.
            for cube in RollupCube.allCases {
                for grain in RollupGrain.allCases {
                    for statement in cube.templateIndexSQL(grain) { try db.execute(sql: statement) }
                }
            }
        }
        migrator.registerMigration("v4: experiment exposures") { db in
            try db.execute(sql: ExperimentExposureSQL.schema)
        }
        migrator.registerMigration("v5: a delta row per hour and key") { db in
            // SQLite has one writer, so group commits can add to a key's row instead of appending
            // one row per key per commit (`addRollups`): the fold then moves a row per key, not a
            // row per key and commit, and holds the writer that much shorter. The rows waiting
            // are summed by key into the new table. (The key as of this release.)
            let key = "hour, template_id, revision, variant, locale, platform, app_version, type, action_id"
            try db.execute(
                sql: """
                    CREATE TABLE rollup_delta_by_key (
                        hour INTEGER NOT NULL, template_id TEXT NOT NULL, revision INTEGER NOT NULL,
                        variant TEXT NOT NULL, locale TEXT NOT NULL, platform TEXT NOT NULL,
                        app_version TEXT NOT NULL, type TEXT NOT NULL, action_id TEXT NOT NULL,
                        n INTEGER NOT NULL,
                        UNIQUE (\(key))
                    );
                    INSERT INTO rollup_delta_by_key (\(key), n)
                        SELECT \(key), SUM(n) FROM rollup_delta GROUP BY \(key);
                    DROP TABLE rollup_delta;
                    ALTER TABLE rollup_delta_by_key RENAME TO rollup_delta;
                    """
            )
        }
        migrator.registerMigration("v6: the attributes of an experiment's install") { db in
            // Rows already there keep no attributes: their installs are the "unknown" segment
            // (`ExperimentSegment`): the events they came from may be pruned, and an attribute
            // read from a later event would not be the one the install entered with.
            try db.execute(sql: ExperimentExposureSQL.segmentColumns)
        }
        return migrator
    }

    /// The table of a cube: keyed by the bucket and the dimensions, without a rowid (its key is
    /// its only order).
    private static func cubeTableSQL(_ table: String, _ dimensions: [RollupDimension]) -> String {
        let columns = dimensions.map { "\($0.column) \($0.isInteger ? "INTEGER" : "TEXT") NOT NULL" }
        let key = (["bucket"] + dimensions.map(\.column)).joined(separator: ", ")
        return """
            CREATE TABLE \(table) (
                bucket INTEGER NOT NULL, \(columns.joined(separator: ", ")), n INTEGER NOT NULL,
                PRIMARY KEY (\(key))
            ) WITHOUT ROWID
            """
    }

    /// Starts the group-commit writer thread. Call once; `stop()` ends it.
    package func start() { groups.start() }

    /// Commits what is queued, then ends the writer thread.
    package func stop() { groups.stop() }

    package var commitProgress: GroupCommitQueue.Progress { groups.progress }

    /// Stores `events` (dropping ids already stored) and `quarantined`, durably, in the next group
    /// commit; blocks until that commit is done.
    /// - Returns: for each event, whether it was new (`false`: a duplicate of a stored id).
    package func append(_ events: [AnalyticsEvent], quarantined: [QuarantinedEvent]) throws(StoreError) -> [Bool] {
        try groups.append(events, quarantined: quarantined)
    }

    /// One transaction for the whole group (`synchronous=FULL`: fsync'd before it returns).
    private static func commit(
        _ group: [GroupCommitQueue.Submission],
        pool: DatabasePool,
        countsRollups: Bool,
        logger: Logger,
        path: String
    ) -> Result<[[Bool]], StoreError> {
        do {
            return .success(
                try pool.write { db -> [[Bool]] in
                    var insertEvent = RawBindings(
                        try db.cachedStatement(
                            sql: """
                                INSERT OR IGNORE INTO event (id, type, template_id, revision, etag, locale, platform, app_version,
                                    action_id, session_id, occurred_at, received_at, clock_skew_ms, request_id, variant, install_id)
                                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                                """
                        )
                    )
                    // The stored events' counts, for the rollups.
                    var tally = HourlyTally()
                    let insertQuarantine = try db.cachedStatement(
                        sql: "INSERT INTO quarantine (received_at, reason, payload, request_id) VALUES (?, ?, ?, ?)"
                    )
                    var outcomes: [[Bool]] = []
                    for submission in group {
                        var inserted: [Bool] = []
                        inserted.reserveCapacity(submission.events.count)
                        for event in submission.events {
                            insertEvent.row()
                            insertEvent.bind(event.id)
                            insertEvent.bind(event.kind.rawValue)
                            insertEvent.bind(event.templateID)
                            insertEvent.bind(event.revision)
                            insertEvent.bind(event.etag)
                            insertEvent.bind(event.locale)
                            insertEvent.bind(event.platform)
                            insertEvent.bind(event.appVersion)
                            insertEvent.bind(event.actionID)
                            insertEvent.bind(event.sessionID)
                            insertEvent.bind(event.occurredAt)
                            insertEvent.bind(event.receivedAt)
                            insertEvent.bind(event.clockSkewMilliseconds)
                            insertEvent.bind(event.requestID)
                            insertEvent.bind(event.variant)
                            insertEvent.bind(event.installID)
                            try insertEvent.execute()
                            let stored = db.changesCount > 0
                            // Only a new event is counted, or an exposure: a resent id changes nothing.
                            if stored {
                                if countsRollups { tally.add(event) }
                                try Self.recordExposure(of: event, in: db)
                            }
                            inserted.append(stored)
                        }
                        for item in submission.quarantined {
                            try insertQuarantine.execute(arguments: [
                                item.receivedAt, item.reason, item.payload, item.requestID,
                            ])
                        }
                        outcomes.append(inserted)
                    }
                    if !tally.isEmpty { try Self.addRollups(tally, in: db) }
                    return outcomes
                }
            )
        } catch {
            logger.error("event commit failed", metadata: ["error": "\(error)", "store.path": "\(path)"])
            return .failure(.database("\(error)"))
        }
    }
}
