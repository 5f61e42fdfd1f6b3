import EmptyStateStore
import GRDB

/// Reading events: counts straight from the events (audits, tests), the export cursor, counts.
extension SQLiteEventStore {
    /// Displays and taps between `from` (inclusive) and `to` (exclusive), in total and per group,
    /// from the events themselves (every one in the window is read).
    package func countEvents(
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
                    groups: try groupBy.map { try counts($0.sqliteColumn) },
                    grouping: groupBy
                )
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
                            session_id, occurred_at, received_at, clock_skew_ms, request_id, variant, install_id
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
                            requestID: row["request_id"],
                            variant: row["variant"],
                            installID: row["install_id"]
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
        case .revision: return "CAST(COALESCE(revision, 0) AS TEXT)"
        case .action: return "action_id"
        case .locale: return "locale"
        case .platform: return "platform"
        case .appVersion: return "app_version"
        case .day: return "strftime('%Y-%m-%d', occurred_at / 1000, 'unixepoch')"
        }
    }
}
