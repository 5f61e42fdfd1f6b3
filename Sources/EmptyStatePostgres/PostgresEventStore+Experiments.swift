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
/// two, its earliest event and tap). Rows go in key order, so two transactions upserting the same
/// installs wait for each other instead of deadlocking. A row is rewritten only when something
/// changes (a crossing, a first conversion, an earlier event): repeated displays take the row's
/// lock and write nothing.
enum ExperimentExposureSQL {
    static let upserts = """

        , exposure AS (
            SELECT split_part(variant, '/', 1) AS experiment_id, install_id,
                (array_agg(split_part(variant, '/', 2) ORDER BY seq))[1] AS variant,
                count(DISTINCT variant) > 1 AS crossed,
                min(occurred_at) AS first_seen_at,
                min(occurred_at) FILTER (WHERE type = 'actionTapped') AS converted_at
            FROM inserted
            WHERE install_id IS NOT NULL AND variant ~ '^[^/]+/[^/]+$'
            GROUP BY 1, 2
        ), exposed AS (
            INSERT INTO experiment_install AS x (experiment_id, install_id, variant, first_seen_at, converted_at, crossed)
            SELECT experiment_id, install_id, variant, first_seen_at, converted_at, crossed FROM exposure
            ORDER BY experiment_id, install_id
            ON CONFLICT (experiment_id, install_id) DO UPDATE SET
                crossed = x.crossed OR excluded.crossed OR x.variant <> excluded.variant,
                first_seen_at = LEAST(x.first_seen_at, excluded.first_seen_at),
                converted_at = COALESCE(x.converted_at, excluded.converted_at)
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
    package func experimentDailyCounts(
        experimentID: String,
        metric: Experiment.Metric,
        from: Int64,
        to: Int64
    ) throws(StoreError) -> ExperimentDailyCounts {
        let logger = logger
        // One statement, so one snapshot. An install that counts: not crossed, in the variant it
        // is assigned (`~` marks a claim the assignment contradicts, `=` a QA override, `!` an install outside the target), first seen in the window;
        // its conversion is its first tap that counts, in the window. Excluded installs once each,
        // by the first reason that applies (`ExperimentDailyCounts`).
        let action = metric.convertingAction
        let query: PostgresQuery = """
            WITH counted AS (
                SELECT install_id, variant, first_seen_at, converted_at FROM experiment_install
                WHERE experiment_id = \(experimentID) AND NOT crossed AND left(variant, 1) NOT IN ('~', '=', '!')
                    AND first_seen_at BETWEEN \(from) AND \(to)
            )
            SELECT 'installs', variant, first_seen_at / 86400000, count(*) FROM counted GROUP BY 2, 3
            UNION ALL
            SELECT 'conversions', c.variant, coalesce(t.first_tapped_at, c.converted_at) / 86400000, count(*)
                FROM counted c
                LEFT JOIN experiment_install_tap t ON t.experiment_id = \(experimentID)
                    AND t.action_id = \(action ?? "") AND t.variant = c.variant AND t.install_id = c.install_id
                WHERE CASE WHEN \(action == nil) THEN c.converted_at <= \(to) ELSE t.first_tapped_at <= \(to) END
                GROUP BY 2, 3
            UNION ALL
            SELECT 'excluded', '', 0, count(*) FILTER (WHERE crossed) FROM experiment_install
                WHERE experiment_id = \(experimentID)
            UNION ALL
            SELECT 'override', '', 0, count(*) FILTER (WHERE NOT crossed AND left(variant, 1) = '=')
                FROM experiment_install WHERE experiment_id = \(experimentID)
            UNION ALL
            SELECT 'outside target', '', 0, count(*) FILTER (WHERE NOT crossed AND left(variant, 1) = '!')
                FROM experiment_install WHERE experiment_id = \(experimentID)
            UNION ALL
            SELECT 'not assigned', '', 0, count(*) FILTER (WHERE NOT crossed AND left(variant, 1) = '~')
                FROM experiment_install WHERE experiment_id = \(experimentID)
            UNION ALL
            SELECT 'before start', '', 0, count(*) FILTER (WHERE NOT crossed AND left(variant, 1) NOT IN ('~', '=', '!')
                AND first_seen_at < \(from)) FROM experiment_install WHERE experiment_id = \(experimentID)
            UNION ALL
            SELECT 'after stop', '', 0, count(*) FILTER (WHERE NOT crossed AND left(variant, 1) NOT IN ('~', '=', '!')
                AND first_seen_at > \(to)) FROM experiment_install WHERE experiment_id = \(experimentID)
            """
        return try database.blocking(timeout: Self.analyticsWait) { client in
            var installs: [(variant: String, day: Int64, count: Int)] = []
            var conversions: [(variant: String, day: Int64, count: Int)] = []
            var excluded = ExperimentDailyCounts.Exclusions()
            for try await (kind, variant, day, count) in try await client.query(query, logger: logger).decode(
                (String, String, Int64, Int).self
            ) {
                switch kind {
                case "installs": installs.append((variant, day, count))
                case "conversions": conversions.append((variant, day, count))
                case "excluded": excluded.crossed = count
                case "override": excluded.override = count
                case "outside target": excluded.outsideTarget = count
                case "not assigned": excluded.notAssigned = count
                case "before start": excluded.beforeStart = count
                default: excluded.afterStop = count
                }
            }
            return ExperimentDailyCounts(installs: installs, conversions: conversions, excluded: excluded)
        }
    }
}
