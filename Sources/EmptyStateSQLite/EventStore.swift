import Dispatch
import EmptyStateStore
import Foundation
import GRDB
import Logging
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Durable storage of analytics events, with group commit.
///
/// `append` returns only once the events are committed (`synchronous=FULL`), so an event
/// acknowledged to the app survives `kill -9` or power loss. Concurrent `append` calls share one
/// transaction: a writer thread takes everything queued since its last commit and commits it at
/// once, so durability costs one fsync per group rather than per request.
package final class EventStore: Sendable {
    package let path: String
    private let pool: DatabasePool
    private let logger: Logger
    /// The group commit: one writer thread, committing with `commit(_:pool:)`.
    private let groups: GroupCommitQueue

    /// Opens (creating and migrating when needed) the event database at `path`.
    package init(path: String, logger: Logger, onCommit: (@Sendable (Double) -> Void)? = nil) throws(StoreError) {
        self.path = path
        self.logger = logger
        let pool = try DurablePool.open(path: path, migrator: Self.migrator, foreignKeys: false)
        self.pool = pool
        groups = GroupCommitQueue(onCommit: onCommit) { group in
            Self.commit(group, pool: pool, logger: logger, path: path)
        }
    }

    private static var migrator: DatabaseMigrator {
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
        return migrator
    }

    /// Starts the group-commit writer thread. Call once; `stop()` ends it.
    package func start() { groups.start() }

    /// Commits what is queued, then ends the writer thread.
    package func stop() { groups.stop() }

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
        logger: Logger,
        path: String
    ) -> Result<[[Bool]], StoreError> {
        do {
            return .success(
                try pool.write { db -> [[Bool]] in
                    let insertEvent = try db.cachedStatement(
                        sql: """
                            INSERT OR IGNORE INTO event (id, type, template_id, revision, etag, locale, platform, app_version,
                                action_id, session_id, occurred_at, received_at, clock_skew_ms, request_id)
                            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                            """
                    )
                    let insertQuarantine = try db.cachedStatement(
                        sql: "INSERT INTO quarantine (received_at, reason, payload, request_id) VALUES (?, ?, ?, ?)"
                    )
                    var outcomes: [[Bool]] = []
                    for submission in group {
                        var inserted: [Bool] = []
                        inserted.reserveCapacity(submission.events.count)
                        for event in submission.events {
                            try insertEvent.execute(arguments: [
                                event.id, event.kind.rawValue, event.templateID, event.revision, event.etag,
                                event.locale, event.platform, event.appVersion, event.actionID, event.sessionID,
                                event.occurredAt, event.receivedAt, event.clockSkewMilliseconds, event.requestID,
                            ])
                            inserted.append(db.changesCount > 0)
                        }
                        for item in submission.quarantined {
                            try insertQuarantine.execute(arguments: [
                                item.receivedAt, item.reason, item.payload, item.requestID,
                            ])
                        }
                        outcomes.append(inserted)
                    }
                    return outcomes
                }
            )
        } catch {
            logger.error("event commit failed", metadata: ["error": "\(error)", "store.path": "\(path)"])
            return .failure(.database("\(error)"))
        }
    }

    // MARK: - Reading

    /// Displays and taps between `from` (inclusive) and `to` (exclusive), in total and per group.
    package func summary(
        from: Int64,
        to: Int64,
        templateID: String?,
        groupBy: SummaryGrouping?
    ) throws(StoreError)
        -> (totals: SummaryRow, groups: [SummaryRow])
    {
        do {
            return try pool.read { db in
                var filter = "occurred_at >= ? AND occurred_at < ?"
                var arguments: StatementArguments = [from, to]
                if let templateID {
                    filter += " AND template_id = ?"
                    arguments += [templateID]
                }
                func counts(_ key: String?) throws -> SummaryCounts {
                    let keyExpression = key ?? "NULL"
                    var counts = SummaryCounts()
                    for row in try Row.fetchAll(
                        db,
                        sql: """
                            SELECT \(keyExpression) AS k, SUM(type = 'displayed') AS displays,
                                SUM(type = 'actionTapped') AS taps
                            FROM event WHERE \(filter) GROUP BY k ORDER BY k
                            """,
                        arguments: arguments
                    ) {
                        counts.groups.append((row["k"], row["displays"] ?? 0, row["taps"] ?? 0))
                    }
                    for row in try Row.fetchAll(
                        db,
                        sql: """
                            SELECT \(keyExpression) AS k, action_id, COUNT(*) AS n FROM event
                            WHERE \(filter) AND type = 'actionTapped' GROUP BY k, action_id
                            """,
                        arguments: arguments
                    ) {
                        counts.actionTaps.append((row["k"], row["action_id"], row["n"]))
                    }
                    return counts
                }
                return SummaryCounts.summary(
                    totals: try counts(nil),
                    groups: try groupBy.map { try counts($0.sqliteColumn) }
                )
            }
        } catch {
            throw .database("\(error)")
        }
    }

    /// How many `displayed` events each of `templateIDs` had per app version between `from`
    /// (inclusive) and `to` (exclusive): how many users still see an update state.
    package func displaysByAppVersion(
        from: Int64,
        to: Int64,
        templateIDs: [String]
    ) throws(StoreError) -> [(templateID: String, appVersion: String, displays: Int)] {
        guard !templateIDs.isEmpty else { return [] }
        do {
            return try pool.read { db in
                let marks = Array(repeating: "?", count: templateIDs.count).joined(separator: ", ")
                return try Row.fetchAll(
                    db,
                    sql: """
                        SELECT template_id, app_version, COUNT(*) AS n FROM event
                        WHERE occurred_at >= ? AND occurred_at < ? AND type = 'displayed' AND template_id IN (\(marks))
                        GROUP BY template_id, app_version ORDER BY template_id, app_version
                        """,
                    arguments: StatementArguments([from, to] + templateIDs.map { $0 as any DatabaseValueConvertible })
                ).map { (templateID: $0["template_id"], appVersion: $0["app_version"], displays: $0["n"]) }
            }
        } catch {
            throw .database("\(error)")
        }
    }

    /// Events after the cursor `after` (the `seq` of the last one read), oldest first.
    package func events(after: Int64, limit: Int) throws(StoreError) -> [(cursor: Int64, event: AnalyticsEvent)] {
        do {
            return try pool.read { db in
                try Row.fetchAll(
                    db,
                    sql: """
                        SELECT seq, id, type, template_id, revision, etag, locale, platform, app_version, action_id,
                            session_id, occurred_at, received_at, clock_skew_ms, request_id
                        FROM event WHERE seq > ? ORDER BY seq LIMIT ?
                        """,
                    arguments: [after, limit]
                ).map { row in
                    (
                        row["seq"],
                        AnalyticsEvent(
                            id: row["id"],
                            kind: AnalyticsEvent.Kind(rawValue: row["type"]) ?? .displayed,
                            templateID: row["template_id"],
                            revision: row["revision"],
                            etag: row["etag"],
                            locale: row["locale"],
                            platform: row["platform"],
                            appVersion: row["app_version"],
                            actionID: row["action_id"],
                            sessionID: row["session_id"],
                            occurredAt: row["occurred_at"],
                            receivedAt: row["received_at"],
                            clockSkewMilliseconds: row["clock_skew_ms"],
                            requestID: row["request_id"]
                        )
                    )
                }
            }
        } catch {
            throw .database("\(error)")
        }
    }

    /// How many events and quarantined events are stored (for tests and logs).
    package func counts() throws(StoreError) -> (events: Int, quarantined: Int) {
        do {
            return try pool.read { db in
                (
                    try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM event") ?? 0,
                    try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM quarantine") ?? 0
                )
            }
        } catch {
            throw .database("\(error)")
        }
    }

    /// Deletes events that happened before `cutoff` and quarantined ones received before it, in
    /// chunks of `chunk` rows per transaction so group commits are never held up for long.
    /// - Returns: how many rows were deleted.
    @discardableResult
    package func prune(before cutoff: Int64, chunk: Int) throws(StoreError) -> Int {
        var total = 0
        do {
            for table in [("event", "occurred_at"), ("quarantine", "received_at")] {
                while true {
                    let deleted = try pool.write { db in
                        try db.execute(
                            sql:
                                "DELETE FROM \(table.0) WHERE seq IN (SELECT seq FROM \(table.0) WHERE \(table.1) < ? LIMIT ?)",
                            arguments: [cutoff, chunk]
                        )
                        return db.changesCount
                    }
                    total += deleted
                    if deleted < chunk { break }
                }
            }
        } catch {
            throw .database("\(error)")
        }
        return total
    }

    /// The writer connection's `PRAGMA synchronous` (2 = FULL: every commit is fsync'd).
    package func synchronousMode() throws -> Int {
        try pool.write { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1 }
    }
}

extension SummaryGrouping {
    /// SQLite's expression of the group key (a fixed set: never built from input).
    var sqliteColumn: String {
        switch self {
        case .template: return "template_id"
        case .action: return "action_id"
        case .locale: return "locale"
        case .platform: return "platform"
        case .appVersion: return "app_version"
        case .day: return "strftime('%Y-%m-%d', occurred_at / 1000, 'unixepoch')"
        }
    }
}
