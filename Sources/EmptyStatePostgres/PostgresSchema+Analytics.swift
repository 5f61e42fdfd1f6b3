import EmptyStateStore
import EmptyStateStoreSQL

extension PostgresSchema {
    /// Version 4: events partitioned by day, their ids in a table of their own, the rollups, and
    /// the backfill of what an earlier release stored.
    ///
    /// - **`event`** becomes a table partitioned by range of `occurred_at`, one partition a UTC
    ///   day (`event_pYYYYMMDD`), made ahead of time by the service and dropped whole by retention:
    ///   no `DELETE`, no bloat, no vacuum storm. A partitioned table cannot hold a unique index that
    ///   leaves out the partition key, so the ids that make a resent event a duplicate live in
    ///   **`event_id`** (one narrow row an event; since version 7 deleted with its partition).
    /// - What the table held is kept as **`event_legacy`** (renamed, with the two new columns): it
    ///   is read by the export and the backfill, and emptied by retention in batches as before. An
    ///   event resent later is recognised by its id there too. On a new database it is empty.
    /// - The **rollups** (`RollupCube` × `RollupGrain`), and **`rollup_delta`**, where group
    ///   commits append their counts (a heap without an index: concurrent commits never wait for
    ///   each other's row locks) until a fold moves them into the cubes.
    /// - **`rollup_backfill`** says how far the legacy events are counted into the rollups.
    static let analytics = Migration(
        version: 4,
        description: "events partitioned by day, event ids, rollups and their backfill",
        statements: [
            "ALTER TABLE event RENAME TO event_legacy",
            "ALTER INDEX event_by_time RENAME TO event_legacy_by_time",
            "ALTER TABLE event_legacy ADD COLUMN variant TEXT, ADD COLUMN install_id TEXT",
            """
            CREATE TABLE event (
                seq BIGINT NOT NULL,                    -- export cursor: inserting transaction << 16 + row
                id TEXT COLLATE "C" NOT NULL,           -- unique through event_id
                type TEXT NOT NULL,
                template_id TEXT NOT NULL,
                revision BIGINT,
                etag TEXT,
                locale TEXT NOT NULL,
                platform TEXT NOT NULL,
                app_version TEXT NOT NULL,
                action_id TEXT,
                session_id TEXT,
                occurred_at BIGINT NOT NULL,            -- ms since the epoch, skew-corrected: the partition key
                received_at BIGINT NOT NULL,
                clock_skew_ms BIGINT NOT NULL,
                request_id TEXT NOT NULL,
                variant TEXT,
                install_id TEXT
            ) PARTITION BY RANGE (occurred_at)
            """,
            "CREATE INDEX event_by_seq ON event (seq)",
            """
            CREATE TABLE event_id (
                id TEXT COLLATE "C" PRIMARY KEY,
                day INTEGER NOT NULL                    -- the event's UTC day since the epoch, for retention
            )
            """,
            "CREATE INDEX event_id_by_day ON event_id (day)",
            """
            CREATE TABLE rollup_backfill (
                id INTEGER PRIMARY KEY CHECK (id = 1),
                through_seq BIGINT NOT NULL,            -- the newest legacy event
                next_seq BIGINT NOT NULL,               -- legacy events with seq < next_seq are counted
                counted BIGINT NOT NULL,
                total BIGINT NOT NULL
            )
            """,
            """
            INSERT INTO rollup_backfill (id, through_seq, next_seq, counted, total)
                SELECT 1, COALESCE(MAX(seq), 0), 0, 0, COUNT(*) FROM event_legacy
            """,
            """
            CREATE TABLE \(RollupDelta.table) (
                hour BIGINT NOT NULL, \(deltaColumns), n BIGINT NOT NULL
            )
            """,
        ]
            + RollupCube.ofAnalyticsRelease.flatMap { cube in
                RollupGrain.allCases.map { grain in cubeTableSQL(RollupCube.table(cube.name, grain), cube.dimensions) }
            }
    )

    /// Version 5: the catalogue-wide cube `overall` (locale × platform × app version) becomes one
    /// small cube per facet (`RollupCube.fromOverall`), filled from it, so a month of the whole
    /// catalogue per app version reads a few hundred rows a day instead of thousands; and the
    /// cubes with a template get an index by template first (`RollupCube.templateIndexSQL`). The cubes'
    /// writers wait: the migration lock is held, and no replica of this release folds before it
    /// has migrated.
    static let facetCubes = Migration(
        version: 5,
        description: "one rollup cube per catalogue-wide facet, cubes searchable by template",
        statements: RollupCube.fromOverall.flatMap { cube in
            RollupGrain.allCases.flatMap { grain in
                let key = (["bucket"] + cube.dimensions.map(\.column)).joined(separator: ", ")
                return [
                    cubeTableSQL(cube.table(grain), cube.dimensions),
                    """
                    INSERT INTO \(cube.table(grain)) (\(key), n)
                    SELECT \(key), SUM(n) FROM \(RollupCube.table("overall", grain)) GROUP BY \(key)
                    """,
                ]
            }
        } + RollupGrain.allCases.map { "DROP TABLE \(RollupCube.table("overall", $0))" }
            // One template's month reads that template's rows, not the month's.
            + RollupCube.allCases.flatMap { cube in RollupGrain.allCases.flatMap(cube.templateIndexSQL) }
    )

    /// The table of a cube, keyed by the bucket and its dimensions.
    private static func cubeTableSQL(_ table: String, _ dimensions: [RollupDimension]) -> String {
        let key = (["bucket"] + dimensions.map(\.column)).joined(separator: ", ")
        return """
            CREATE TABLE \(table) (
                bucket BIGINT NOT NULL, \(dimensions.map(columnDefinition).joined(separator: ", ")), n BIGINT NOT NULL,
                PRIMARY KEY (\(key))
            )
            """
    }

    /// A rollup dimension's column, bytewise for text (no collation work per comparison).
    private static func columnDefinition(_ dimension: RollupDimension) -> String {
        "\(dimension.column) \(dimension.isInteger ? "BIGINT" : "TEXT COLLATE \"C\"") NOT NULL"
    }

    private static var deltaColumns: String {
        RollupDimension.allCases.map(columnDefinition).joined(separator: ", ")
    }
}
