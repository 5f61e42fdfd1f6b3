import EmptyStatePostgres
import EmptyStateSQLite
import EmptyStateStore
import EmptyStateStoreSQL
import Foundation
import GRDB
import Logging
import PostgresNIO
import Testing

/// The store backends the parameterized store tests run against: SQLite always, PostgreSQL when
/// `EMPTY_STATE_TEST_DATABASE_URL` names a server that answers (`make test` starts a throwaway
/// one). When it does not, `TestDatabaseTests` says so (see `TestDatabase`).
enum StoreBackend: String, Sendable, CustomTestStringConvertible {
    case sqlite, postgres

    var testDescription: String { rawValue }

    static let all: [StoreBackend] = testDatabaseURL == nil ? [.sqlite] : [.sqlite, .postgres]

    static var testDatabaseURL: PostgresURL? { TestDatabase.url }
}

/// How to get at the same stored data again (reopen the file, or a new pool on the schema).
struct StoreHandle: Sendable {
    let reopenTemplates: @Sendable () throws -> any TemplateStoring
    let reopenEvents: @Sendable (_ onCommit: (@Sendable (Double) -> Void)?) throws -> any EventStoring
}

/// A database of its own for one test: a fresh schema (`search_path`) in the test database, so
/// tests run in parallel without seeing each other's rows.
private func freshDatabase() throws -> @Sendable () -> PostgresBackend {
    let url = try #require(StoreBackend.testDatabaseURL)
    let schema = "test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    let setup = PostgresBackend(url: url, maximumConnections: 1, logger: Logger(label: "test"))
    setup.startPool()
    defer { setup.stopPool() }
    try setup.blocking(timeout: .seconds(20)) { client in
        try await client.all(PostgresQuery(unsafeSQL: "CREATE SCHEMA \(schema)"), logger: Logger(label: "test"))
    }
    return {
        let database = PostgresBackend(
            url: url,
            maximumConnections: 2,
            searchPath: schema,
            logger: Logger(label: "test")
        )
        database.startPool()
        return database
    }
}

/// Opens a migrated PostgreSQL database of its own (a fresh schema). Every test's migration takes
/// the one migration lock of the database, in turns: under a loaded machine a test may wait for
/// dozens of others, hence the long bound.
private func openDatabase(_ make: () -> PostgresBackend) throws -> PostgresBackend {
    let database = make()
    try database.blocking(timeout: .seconds(120)) { client in
        try await PostgresSchema.migrate(client, logger: Logger(label: "test"))
    }
    return database
}

/// Opens an empty templates store of `backend`.
func makeStore(_ backend: StoreBackend = .sqlite) throws -> (any TemplateStoring, StoreHandle) {
    switch backend {
    case .sqlite:
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/store.sqlite"
        let handle = StoreHandle(
            reopenTemplates: { try SQLiteTemplateStore(path: path, logger: Logger(label: "test")) },
            reopenEvents: {
                try SQLiteEventStore(path: directory + "/events.sqlite", logger: Logger(label: "test"), onCommit: $0)
            }
        )
        return (try handle.reopenTemplates(), handle)
    case .postgres:
        let make = try freshDatabase()
        let handle = StoreHandle(
            reopenTemplates: { PostgresTemplateStore(database: try openDatabase(make), logger: Logger(label: "test")) },
            reopenEvents: {
                PostgresEventStore(database: try openDatabase(make), logger: Logger(label: "test"), onCommit: $0)
            }
        )
        return (try handle.reopenTemplates(), handle)
    }
}

/// Opens (without starting) an empty event store of `backend`.
func makeEventStore(
    _ backend: StoreBackend = .sqlite,
    onCommit: (@Sendable (Double) -> Void)? = nil
) throws -> (any EventStoring, StoreHandle) {
    let (_, handle) = try makeStore(backend)
    return (try handle.reopenEvents(onCommit), handle)
}

/// Opens (without starting) an empty PostgreSQL event store, on a fresh schema, whose duplicate
/// watch is `duplicates` (with a test's clock).
func makePostgresEventStore(duplicates: DuplicateWatch) throws -> PostgresEventStore {
    let make = try freshDatabase()
    return PostgresEventStore(database: try openDatabase(make), duplicates: duplicates, logger: Logger(label: "test"))
}

/// Runs `body` on a thread of its own and waits for it without blocking a thread of Swift
/// concurrency's pool: the PostgreSQL stores block their calling thread on work that itself
/// needs that pool (two cores give it two threads).
func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread {
            do {
                continuation.resume(returning: try body())
            } catch {
                continuation.resume(throwing: error)
            }
        }.start()
    }
}

/// `store.events(after:limit:)` once it returns `count` events, or what it returns after 5 s.
/// PostgreSQL exports only the rows of transactions older than every transaction still running
/// (so that its cursor never skips a row), and other tests' transactions count: a row committed
/// a moment ago may not be exported yet.
func exported(
    _ store: any EventStoring,
    after: Int64 = 0,
    limit: Int,
    count: Int
) throws -> [(cursor: Int64, event: AnalyticsEvent)] {
    let deadline = ContinuousClock.now + .seconds(5)
    while true {
        let rows = try store.events(after: after, limit: limit)
        if rows.count >= count || ContinuousClock.now >= deadline { return rows }
        Thread.sleep(forTimeInterval: 0.01)
    }
}

/// An event database of the release before rollups (schema v1), holding `events` as that release
/// stored them; `open()` opens it with this release's store, which migrates it (the rollups start
/// empty and the backfill has `events` to count).
func makeLegacyEventStore(
    _ backend: StoreBackend,
    events: [AnalyticsEvent]
) throws -> (open: @Sendable () throws -> any EventStoring, ids: [String]) {
    let logger = Logger(label: "test")
    switch backend {
    case .sqlite:
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("legacy-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/events.sqlite"
        let queue = try DatabaseQueue(path: path)
        try SQLiteEventStore.migrator.migrate(queue, upTo: "v1: events, quarantine")
        try queue.write { db in
            for event in events {
                try db.execute(
                    sql: """
                        INSERT INTO event (id, type, template_id, revision, etag, locale, platform, app_version,
                            action_id, session_id, occurred_at, received_at, clock_skew_ms, request_id)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        event.id, event.kind.rawValue, event.templateID, event.revision, event.etag, event.locale,
                        event.platform, event.appVersion, event.actionID, event.sessionID, event.occurredAt,
                        event.receivedAt, event.clockSkewMilliseconds, event.requestID,
                    ]
                )
            }
        }
        try queue.close()
        return ({ try SQLiteEventStore(path: path, logger: logger) }, events.map(\.id))
    case .postgres:
        let make = try freshDatabase()
        let database = make()
        defer { database.stopPool() }
        try database.blocking(timeout: .seconds(60)) { client in
            try await PostgresSchema.migrate(client, upTo: 3, logger: logger)  // the release before rollups
            for (position, event) in events.enumerated() {
                try await client.all(
                    """
                    INSERT INTO event (seq, id, type, template_id, revision, etag, locale, platform, app_version,
                        action_id, session_id, occurred_at, received_at, clock_skew_ms, request_id)
                    VALUES (\(Int64(position + 1)), \(event.id), \(event.kind.rawValue), \(event.templateID),
                        \(event.revision), \(event.etag), \(event.locale), \(event.platform), \(event.appVersion),
                        \(event.actionID), \(event.sessionID), \(event.occurredAt), \(event.receivedAt),
                        \(event.clockSkewMilliseconds), \(event.requestID))
                    """,
                    logger: logger
                )
            }
        }
        return ({ PostgresEventStore(database: try openDatabase(make), logger: logger) }, events.map(\.id))
    }
}

/// One row of the `overall` cube of the first release with rollups (locale × platform × app
/// version), which later releases replaced by one cube per facet.
struct OverallCubeRow: Sendable {
    var grain: RollupGrain
    var bucket: Int64
    var locale: String
    var platform: String
    var appVersion: String
    var type: AnalyticsEvent.Kind
    var action: String
    var n: Int
}

/// An events database as the first release with rollups left it (SQLite migration v2,
/// PostgreSQL version 4), holding `rows` in its `overall` cube and no events; opening the store
/// migrates it.
func makeFirstRollupsEventStore(
    _ backend: StoreBackend,
    overall rows: [OverallCubeRow]
) throws -> @Sendable () throws -> any EventStoring {
    let logger = Logger(label: "test")
    @Sendable func insert(_ row: OverallCubeRow) -> String {
        """
        INSERT INTO \(RollupCube.table("overall", row.grain))
            (bucket, locale, platform, app_version, type, action_id, n)
        VALUES (\(row.bucket), '\(row.locale)', '\(row.platform)', '\(row.appVersion)', '\(row.type.rawValue)',
            '\(row.action)', \(row.n))
        """
    }
    switch backend {
    case .sqlite:
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rollups-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/events.sqlite"
        let queue = try DatabaseQueue(path: path)
        try SQLiteEventStore.migrator.migrate(queue, upTo: "v2: rollups, variant and install of an event")
        try queue.write { db in
            for row in rows { try db.execute(sql: insert(row)) }
        }
        try queue.close()
        return { try SQLiteEventStore(path: path, logger: logger) }
    case .postgres:
        let make = try freshDatabase()
        let database = make()
        defer { database.stopPool() }
        try database.blocking(timeout: .seconds(60)) { client in
            try await PostgresSchema.migrate(client, upTo: 4, logger: logger)
            for row in rows { try await client.all(PostgresQuery(unsafeSQL: insert(row)), logger: logger) }
        }
        return { PostgresEventStore(database: try openDatabase(make), logger: logger) }
    }
}

/// A PostgreSQL database at schema version 6 with one day's partition (`keptDay`) and `ids`
/// claimed in `event_id` (id, day), then migrated to the newest version: the ids left, sorted,
/// and whether `event_id` still has an index by day.
func eventIDsAfterVersion7(keptDay: Int64, ids: [(String, Int64)]) throws -> (ids: [String], dayIndex: Bool) {
    let logger = Logger(label: "test")
    let database = try freshDatabase()()
    defer { database.stopPool() }
    return try database.blocking(timeout: .seconds(60)) { client in
        try await PostgresSchema.migrate(client, upTo: 6, logger: logger)
        let name = PostgresEventStore.partitionName(day: keptDay)
        try await client.all(
            PostgresQuery(
                unsafeSQL: """
                    CREATE TABLE \(name) PARTITION OF event
                        FOR VALUES FROM (\(keptDay * 86_400_000)) TO (\((keptDay + 1) * 86_400_000))
                    """
            ),
            logger: logger
        )
        for (id, day) in ids {
            try await client.all(
                PostgresQuery(unsafeSQL: "INSERT INTO event_id (id, day) VALUES ('\(id)', \(day))"),
                logger: logger
            )
        }
        try await PostgresSchema.migrate(client, logger: logger)
        let dayIndex =
            try await client.all(
                PostgresQuery(
                    unsafeSQL: """
                        SELECT COUNT(*)::int8 FROM pg_indexes
                        WHERE schemaname = current_schema() AND indexname = 'event_id_by_day'
                        """
                ),
                logger: logger
            ).first?.decode(Int.self) ?? 0
        var left: [String] = []
        for row in try await client.all(PostgresQuery(unsafeSQL: "SELECT id FROM event_id ORDER BY id"), logger: logger)
        {
            left.append(try row.decode(String.self))
        }
        return (left, dayIndex > 0)
    }
}

/// A wait in a test that gave up: what it waited for never came.
struct WaitTimedOut: Error, CustomStringConvertible {
    var description: String
}

/// Waits for `semaphore` at most `seconds`, so a test whose other side never signals (its thread
/// failed before the signal, say) fails with a reason instead of hanging the whole run.
func waitOrFail(_ semaphore: DispatchSemaphore, _ what: String, seconds: Int = 120) throws {
    if semaphore.wait(timeout: .now() + .seconds(seconds)) == .timedOut {
        throw WaitTimedOut(description: "\(what): not signalled within \(seconds) s")
    }
}

/// An events database as the release before experiment segments left it (SQLite migration v5,
/// PostgreSQL version 11), holding `installs` (experiment, install, variant key, first seen) in
/// `experiment_install` without attributes; opening the store migrates it.
func makePreSegmentsEventStore(
    _ backend: StoreBackend,
    installs: [(experiment: String, install: String, variant: String, firstSeenAt: Int64)]
) throws -> @Sendable () throws -> any EventStoring {
    let logger = Logger(label: "test")
    @Sendable func insert(_ row: (experiment: String, install: String, variant: String, firstSeenAt: Int64)) -> String {
        """
        INSERT INTO experiment_install (experiment_id, install_id, variant, first_seen_at)
        VALUES ('\(row.experiment)', '\(row.install)', '\(row.variant)', \(row.firstSeenAt))
        """
    }
    switch backend {
    case .sqlite:
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("segments-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/events.sqlite"
        let queue = try DatabaseQueue(path: path)
        try SQLiteEventStore.migrator.migrate(queue, upTo: "v5: a delta row per hour and key")
        try queue.write { db in
            for row in installs { try db.execute(sql: insert(row)) }
        }
        try queue.close()
        return { try SQLiteEventStore(path: path, logger: logger) }
    case .postgres:
        let make = try freshDatabase()
        let database = make()
        defer { database.stopPool() }
        try database.blocking(timeout: .seconds(60)) { client in
            try await PostgresSchema.migrate(client, upTo: 11, logger: logger)
            for row in installs { try await client.all(PostgresQuery(unsafeSQL: insert(row)), logger: logger) }
        }
        return { PostgresEventStore(database: try openDatabase(make), logger: logger) }
    }
}
