import EmptyStateCore
import EmptyStateStore
import Logging
import PostgresNIO

/// The exposures' part of the group commit's statement (`PostgresEventStore.commit`): CTEs over
/// `inserted`, the events the statement inserted (a resent id is not among them, so it changes
/// nothing), committed with them.
///
/// One `INSERT … ON CONFLICT DO UPDATE` cannot touch a row twice, so the group's events are first
/// reduced to one row per experiment and install (its first variant by position, whether it saw
/// two, its earliest event and tap, the attributes of its earliest event: `ExperimentSegment`; the
/// install time is not stored with the event, so it is read from the statement's `input`, the
/// row whose position `n` is the low 16 bits of the event's `seq`). Rows go in key order, so two transactions upserting the same
/// installs wait for each other instead of deadlocking. A row is rewritten only when something
/// changes (a crossing, a first conversion, an earlier event): repeated displays take the row's
/// lock and write nothing.
enum ExperimentExposureSQL {
    static let upserts = """

        , exposure AS (
            SELECT split_part(e.variant, '/', 1) AS experiment_id, e.install_id,
                (array_agg(split_part(e.variant, '/', 2) ORDER BY e.seq))[1] AS variant,
                count(DISTINCT e.variant) > 1 AS crossed,
                min(e.occurred_at) AS first_seen_at,
                min(e.occurred_at) FILTER (WHERE e.type = 'actionTapped') AS converted_at,
                (array_agg(e.platform ORDER BY e.occurred_at, e.seq))[1] AS platform,
                (array_agg(e.locale ORDER BY e.occurred_at, e.seq))[1] AS locale,
                (array_agg(NULLIF(e.app_version, '') ORDER BY e.occurred_at, e.seq))[1] AS app_version,
                (array_agg(i.installed_at ORDER BY e.occurred_at, e.seq))[1] AS installed_at
            FROM inserted e JOIN input i ON i.n = (e.seq & 65535)
            WHERE e.install_id IS NOT NULL AND e.variant ~ '^[^/]+/[^/]+$'
            GROUP BY 1, 2
        ), exposed AS (
            INSERT INTO experiment_install AS x (experiment_id, install_id, variant, first_seen_at, converted_at, crossed,
                platform, locale, app_version, installed_at)
            SELECT experiment_id, install_id, variant, first_seen_at, converted_at, crossed, platform, locale, app_version,
                installed_at
            FROM exposure
            ORDER BY experiment_id, install_id
            ON CONFLICT (experiment_id, install_id) DO UPDATE SET
                crossed = x.crossed OR excluded.crossed OR x.variant <> excluded.variant,
                first_seen_at = LEAST(x.first_seen_at, excluded.first_seen_at),
                converted_at = COALESCE(x.converted_at, excluded.converted_at),
                platform = CASE WHEN excluded.first_seen_at < x.first_seen_at THEN excluded.platform ELSE x.platform END,
                locale = CASE WHEN excluded.first_seen_at < x.first_seen_at THEN excluded.locale ELSE x.locale END,
                app_version = CASE WHEN excluded.first_seen_at < x.first_seen_at
                    THEN excluded.app_version ELSE x.app_version END,
                installed_at = CASE WHEN excluded.first_seen_at < x.first_seen_at
                    THEN excluded.installed_at ELSE x.installed_at END
            WHERE (NOT x.crossed AND (excluded.crossed OR x.variant <> excluded.variant))
                OR (x.converted_at IS NULL AND excluded.converted_at IS NOT NULL)
                OR excluded.first_seen_at < x.first_seen_at
        ), tapped AS (
            INSERT INTO experiment_install_tap (experiment_id, action_id, variant, install_id, first_tapped_at)
            SELECT split_part(variant, '/', 1), action_id, split_part(variant, '/', 2), install_id, min(occurred_at)
            FROM inserted
            WHERE type = 'actionTapped' AND action_id IS NOT NULL AND install_id IS NOT NULL
                AND variant ~ '^[^/]+/[^/]+$'
            GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
            ON CONFLICT DO NOTHING
        )
        """
}

extension PostgresEventStore {
    /// The counts grouped by `segment`'s column, or as one group (value `nil`, always present)
    /// when `segment` is `nil`.
    package func experimentSegmentCounts(
        experimentID: String,
        metric: Experiment.Metric,
        from: Int64,
        to: Int64,
        segment: ExperimentSegment?
    ) throws(StoreError) -> [ExperimentSegmentCounts] {
        let logger = logger
        // One statement, so one snapshot. An install that counts: not crossed, in the variant it
        // is assigned (`~` marks a claim the assignment contradicts, `=` a QA override, `!` an
        // install outside the target), first seen in the window; its conversion is its first tap
        // that counts, in the window. Excluded installs once each, by the first reason that
        // applies (`ExperimentDailyCounts`). Every row is led by its segment's value (`NULL` for
        // the whole: the excluded row is then one row, also for an experiment without installs).
        let action = metric.convertingAction
        let column = segment.map { "(\($0.expression(start: from)))" } ?? "NULL::text"
        let grouping = segment == nil ? "" : "GROUP BY 1"
        let query: PostgresQuery = """
            WITH counted AS (
                SELECT install_id, variant, first_seen_at, converted_at, \(unescaped: column) AS segment
                FROM experiment_install
                WHERE experiment_id = \(experimentID) AND NOT crossed AND left(variant, 1) NOT IN ('~', '=', '!')
                    AND first_seen_at BETWEEN \(from) AND \(to)
            ), left_out AS (
                SELECT \(unescaped: column) AS segment,
                    count(*) FILTER (WHERE crossed) AS crossed,
                    count(*) FILTER (WHERE NOT crossed AND left(variant, 1) = '=') AS override,
                    count(*) FILTER (WHERE NOT crossed AND left(variant, 1) = '!') AS outside_target,
                    count(*) FILTER (WHERE NOT crossed AND left(variant, 1) = '~') AS not_assigned,
                    count(*) FILTER (WHERE NOT crossed AND left(variant, 1) NOT IN ('~', '=', '!')
                        AND first_seen_at < \(from)) AS before_start,
                    count(*) FILTER (WHERE NOT crossed AND left(variant, 1) NOT IN ('~', '=', '!')
                        AND first_seen_at > \(to)) AS after_stop
                FROM experiment_install WHERE experiment_id = \(experimentID) \(unescaped: grouping)
            )
            SELECT 'installs', segment, variant, first_seen_at / 86400000, count(*) FROM counted GROUP BY 2, 3, 4
            UNION ALL
            SELECT 'conversions', c.segment, c.variant, coalesce(t.first_tapped_at, c.converted_at) / 86400000,
                    count(*)
                FROM counted c
                LEFT JOIN experiment_install_tap t ON t.experiment_id = \(experimentID)
                    AND t.action_id = \(action ?? "") AND t.variant = c.variant AND t.install_id = c.install_id
                WHERE CASE WHEN \(action == nil) THEN c.converted_at <= \(to) ELSE t.first_tapped_at <= \(to) END
                GROUP BY 2, 3, 4
            UNION ALL SELECT 'crossed', segment, '', 0, crossed FROM left_out
            UNION ALL SELECT 'override', segment, '', 0, override FROM left_out
            UNION ALL SELECT 'outside target', segment, '', 0, outside_target FROM left_out
            UNION ALL SELECT 'not assigned', segment, '', 0, not_assigned FROM left_out
            UNION ALL SELECT 'before start', segment, '', 0, before_start FROM left_out
            UNION ALL SELECT 'after stop', segment, '', 0, after_stop FROM left_out
            """
        let rows = try database.blocking(timeout: Self.analyticsWait) { client in
            var rows: [(kind: String, segment: String?, variant: String, day: Int64, count: Int)] = []
            for try await row in try await client.query(query, logger: logger).decode(
                (String, String?, String, Int64, Int).self
            ) {
                rows.append(row)
            }
            return rows
        }
        var installs: [(segment: String?, variant: String, day: Int64, count: Int)] = []
        var conversions: [(segment: String?, variant: String, day: Int64, count: Int)] = []
        var excluded: [String?: ExperimentDailyCounts.Exclusions] = [:]
        for row in rows {
            switch row.kind {
            case "installs": installs.append((row.segment, row.variant, row.day, row.count))
            case "conversions": conversions.append((row.segment, row.variant, row.day, row.count))
            case "crossed": excluded[row.segment, default: .init()].crossed = row.count
            case "override": excluded[row.segment, default: .init()].override = row.count
            case "outside target": excluded[row.segment, default: .init()].outsideTarget = row.count
            case "not assigned": excluded[row.segment, default: .init()].notAssigned = row.count
            case "before start": excluded[row.segment, default: .init()].beforeStart = row.count
            default: excluded[row.segment, default: .init()].afterStop = row.count
            }
        }
        let grouped = ExperimentSegmentCounts.group(
            installs: installs,
            conversions: conversions,
            excluded: excluded.map { (segment: $0.key, exclusions: $0.value) }
        )
        if segment == nil, grouped.isEmpty {
            return [ExperimentSegmentCounts(value: nil, counts: .init(days: [], excluded: .init()))]
        }
        return grouped
    }
}
