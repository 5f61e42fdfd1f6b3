import EmptyStateStore
import EmptyStateStoreSQL
import Logging
import PostgresNIO

/// Reading events: the rollups, counts straight from the events, the export cursor and the
/// counts. The event reads cover both the partitioned `event` and `event_legacy` (an earlier
/// release's table). Reads of events wait up to `analyticsWait`: a count over months of events
/// may take a while.
extension PostgresEventStore {
    package func rollupRows(_ query: RollupQuery) throws(StoreError) -> [RollupRow] {
        let logger = logger
        var binds = PostgresBindings()
        for argument in query.arguments {
            switch argument {
            case .integer(let value): binds.append(value)
            case .text(let value): binds.append(value)
            }
        }
        // `?` → `$1`, `$2`, … in order (the query's SQL has no other question mark).
        var sql = ""
        var placeholder = 0
        for character in query.sql(text: { "\($0)::text" }) {
            if character == "?" {
                placeholder += 1
                sql += "$\(placeholder)"
            } else {
                sql.append(character)
            }
        }
        let keys = query.groupBy.count
        let statement = PostgresQuery(unsafeSQL: sql, binds: binds)
        return try database.blocking(timeout: Self.analyticsWait) { client in
            var result: [RollupRow] = []
            for row in try await client.all(statement, logger: logger) {
                let columns = row.makeRandomAccess()
                result.append(
                    RollupRow(
                        keys: try (0..<keys).map { try columns[$0].decode(String.self) },
                        type: try columns[keys].decode(String.self),
                        action: try columns[keys + 1].decode(String.self),
                        count: try columns[keys + 2].decode(Int.self)
                    )
                )
            }
            return result
        }
    }

    package func countEvents(
        from: Int64,
        to: Int64,
        templateID: String?,
        groupBy: SummaryGrouping?
    ) throws(StoreError) -> (totals: SummaryRow, groups: [SummaryRow]) {
        let logger = logger
        let (totals, groups): (SummaryCounts, SummaryCounts?) = try database.blocking(
            timeout: Self.analyticsWait
        ) { client in
            func counts(_ grouping: SummaryGrouping?) async throws -> SummaryCounts {
                let key = grouping.map(Self.keyExpression) ?? "NULL::text"
                // Totals are one group: no GROUP BY (PostgreSQL refuses to group by a constant).
                let groupBy = grouping == nil ? "" : "GROUP BY \(key)"
                let orderBy = grouping == nil ? "" : "ORDER BY \(key) COLLATE \"C\" NULLS FIRST"
                let filter =
                    templateID == nil
                    ? "occurred_at >= $1 AND occurred_at < $2"
                    : "occurred_at >= $1 AND occurred_at < $2 AND template_id = $3"
                var binds = PostgresBindings()
                binds.append(from)
                binds.append(to)
                if let templateID { binds.append(templateID) }
                var counts = SummaryCounts()
                for try await row in try await client.query(
                    PostgresQuery(
                        unsafeSQL: """
                            SELECT \(key) AS k, COUNT(*) FILTER (WHERE type = 'displayed'),
                                COUNT(*) FILTER (WHERE type = 'actionTapped')
                            FROM \(Self.allEvents) WHERE \(filter) \(groupBy) \(orderBy)
                            """,
                        binds: binds
                    ),
                    logger: logger
                ).decode((String?, Int, Int).self) {
                    counts.groups.append(row)
                }
                for try await row in try await client.query(
                    PostgresQuery(
                        unsafeSQL: """
                            SELECT \(key) AS k, action_id, COUNT(*) FROM \(Self.allEvents)
                            WHERE \(filter) AND type = 'actionTapped' GROUP BY \(grouping == nil ? "" : key + ",") action_id
                            """,
                        binds: binds
                    ),
                    logger: logger
                ).decode((String?, String?, Int).self) {
                    counts.actionTaps.append(row)
                }
                return counts
            }
            let totals = try await counts(nil)
            guard let groupBy else { return (totals, nil) }
            return (totals, try await counts(groupBy))
        }
        return SummaryCounts.summary(totals: totals, groups: groups, grouping: groupBy)
    }

    /// The SQL of a group key (a fixed set: never built from input).
    private static func keyExpression(_ grouping: SummaryGrouping) -> String {
        switch grouping {
        case .template: return "template_id"
        case .revision: return "COALESCE(revision, 0)::text"
        case .action: return "action_id"
        case .locale: return "locale"
        case .platform: return "platform"
        case .appVersion: return "app_version"
        case .day: return "to_char(to_timestamp(occurred_at / 1000) AT TIME ZONE 'UTC', 'YYYY-MM-DD')"
        }
    }

    package func events(after: Int64, limit: Int) throws(StoreError) -> [(cursor: Int64, event: AnalyticsEvent)] {
        let logger = logger
        return try database.blocking(timeout: Self.analyticsWait) { client in
            var events: [(cursor: Int64, event: AnalyticsEvent)] = []
            let rows = try await client.all(
                """
                SELECT * FROM (
                    (SELECT \(unescaped: Self.exportColumns) FROM event_legacy WHERE seq > \(after) ORDER BY seq LIMIT \(limit))
                    UNION ALL
                    (SELECT \(unescaped: Self.exportColumns) FROM event WHERE seq > \(after) ORDER BY seq LIMIT \(limit))
                ) e WHERE seq < (pg_snapshot_xmin(pg_current_snapshot())::text::bigint << 16)
                ORDER BY seq LIMIT \(limit)
                """,
                logger: logger
            )
            for row in rows {
                let columns = row.makeRandomAccess()
                events.append(
                    (
                        try columns["seq"].decode(Int64.self),
                        AnalyticsEvent(
                            id: try columns["id"].decode(String.self),
                            kind: AnalyticsEvent.Kind(rawValue: try columns["type"].decode(String.self)) ?? .displayed,
                            templateID: try columns["template_id"].decode(String.self),
                            revision: try columns["revision"].decode(Int?.self),
                            etag: try columns["etag"].decode(String?.self),
                            locale: try columns["locale"].decode(String.self),
                            platform: try columns["platform"].decode(String.self),
                            appVersion: try columns["app_version"].decode(String.self),
                            actionID: try columns["action_id"].decode(String?.self),
                            sessionID: try columns["session_id"].decode(String?.self),
                            occurredAt: try columns["occurred_at"].decode(Int64.self),
                            receivedAt: try columns["received_at"].decode(Int64.self),
                            clockSkewMilliseconds: try columns["clock_skew_ms"].decode(Int64.self),
                            requestID: try columns["request_id"].decode(String.self),
                            variant: try columns["variant"].decode(String?.self),
                            installID: try columns["install_id"].decode(String?.self)
                        )
                    )
                )
            }
            return events
        }
    }

    package func counts() throws(StoreError) -> (events: Int, quarantined: Int) {
        let logger = logger
        return try database.blocking { client in
            let rows = try await client.all(
                """
                SELECT (SELECT COUNT(*) FROM event) + (SELECT COUNT(*) FROM event_legacy),
                    (SELECT COUNT(*) FROM quarantine)
                """,
                logger: logger
            )
            guard let row = rows.first else { return (0, 0) }
            return try row.decode((Int, Int).self)
        }
    }

    /// Every event: the partitioned table and the legacy one (SQL for a `FROM`).
    static let allEvents = """
        (SELECT type, template_id, revision, locale, platform, app_version, action_id, occurred_at FROM event
         UNION ALL SELECT type, template_id, revision, locale, platform, app_version, action_id, occurred_at FROM event_legacy) e
        """

    /// The columns the export reads.
    static let exportColumns = """
        seq, id, type, template_id, revision, etag, locale, platform, app_version, action_id, session_id, occurred_at,
        received_at, clock_skew_ms, request_id, variant, install_id
        """
}
