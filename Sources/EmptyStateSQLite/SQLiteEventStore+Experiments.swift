import EmptyStateCore
import EmptyStateStore
import GRDB

/// The exact exposures of copy experiments on SQLite (`ExperimentExposures`): the upsert a group
/// commit runs for each new event of an experiment (the results read them: `experimentDailyCounts`).
extension SQLiteEventStore {
    /// Counts `event` in its experiment's exposures, in the group commit's transaction; nothing
    /// for an event without an experiment variant or an install id.
    static func recordExposure(of event: AnalyticsEvent, in db: Database) throws {
        guard let variant = event.variant, let installID = event.installID,
            let (experimentID, key) = ExperimentExposures.split(variant)
        else { return }
        let tap = event.kind == .actionTapped ? event.occurredAt : nil
        try db.cachedStatement(sql: ExperimentExposureSQL.upsert).execute(arguments: [
            experimentID, installID, key, event.occurredAt, tap,
        ])
        if let tap, let action = event.actionID {
            try db.cachedStatement(sql: ExperimentExposureSQL.tap).execute(arguments: [
                experimentID, action, key, installID, tap,
            ])
        }
    }
}

/// The SQL of the exposures on SQLite (`?` placeholders; `crossed` is 0 or 1).
enum ExperimentExposureSQL {
    static let schema = """
        CREATE TABLE experiment_install (
            experiment_id TEXT NOT NULL,
            install_id TEXT NOT NULL,
            variant TEXT NOT NULL,              -- the key of the variant it was first seen in
            first_seen_at INTEGER NOT NULL,     -- ms since the epoch (the earliest event)
            converted_at INTEGER,               -- its first tap of any action
            crossed INTEGER NOT NULL DEFAULT 0, -- 1: seen in another variant too (excluded from results)
            PRIMARY KEY (experiment_id, install_id)
        ) WITHOUT ROWID;
        -- What the results count, read from the index alone.
        CREATE INDEX experiment_install_by_variant ON experiment_install (experiment_id, crossed, variant, converted_at);
        -- An install's first tap of each action, in each variant it tapped in (one, unless crossed).
        CREATE TABLE experiment_install_tap (
            experiment_id TEXT NOT NULL,
            action_id TEXT NOT NULL,
            variant TEXT NOT NULL,
            install_id TEXT NOT NULL,
            first_tapped_at INTEGER NOT NULL,
            PRIMARY KEY (experiment_id, action_id, variant, install_id)
        ) WITHOUT ROWID;
        CREATE INDEX experiment_install_tap_by_install ON experiment_install_tap (experiment_id, install_id);
        """

    /// First sight inserts; later, the row is written only when something changes (a crossing,
    /// a first conversion, an earlier event), so repeated displays cost a lookup, not a write.
    static let upsert = """
        INSERT INTO experiment_install (experiment_id, install_id, variant, first_seen_at, converted_at, crossed)
        VALUES (?, ?, ?, ?, ?, 0)
        ON CONFLICT (experiment_id, install_id) DO UPDATE SET
            crossed = crossed OR variant <> excluded.variant,
            first_seen_at = MIN(first_seen_at, excluded.first_seen_at),
            converted_at = COALESCE(converted_at, excluded.converted_at)
        WHERE (NOT crossed AND variant <> excluded.variant)
            OR (converted_at IS NULL AND excluded.converted_at IS NOT NULL)
            OR excluded.first_seen_at < first_seen_at
        """

    static let tap = """
        INSERT OR IGNORE INTO experiment_install_tap (experiment_id, action_id, variant, install_id, first_tapped_at)
        VALUES (?, ?, ?, ?, ?)
        """

}

extension SQLiteEventStore {
    package func experimentDailyCounts(
        experimentID: String,
        metric: Experiment.Metric,
        from: Int64,
        to: Int64
    ) throws(StoreError) -> ExperimentDailyCounts {
        do {
            return try pool.read { db in
                func rows(_ sql: String, _ arguments: StatementArguments) throws -> [(String, Int64, Int)] {
                    try Row.fetchAll(db, sql: sql, arguments: arguments).map { ($0[0], $0[1], $0[2]) }
                }
                let window: StatementArguments = [experimentID, from, to]
                let installs = try rows(ExperimentDailySQL.installs, window)
                let conversions =
                    if let action = metric.convertingAction {
                        try rows(ExperimentDailySQL.actionConversions, window + [action])
                    } else {
                        try rows(ExperimentDailySQL.anyTapConversions, window)
                    }
                let row = try Row.fetchOne(db, sql: ExperimentDailySQL.excluded, arguments: window)
                return ExperimentDailyCounts(
                    installs: installs.map { (variant: $0.0, day: $0.1, count: $0.2) },
                    conversions: conversions.map { (variant: $0.0, day: $0.1, count: $0.2) },
                    excluded: .init(
                        crossed: row?[0] ?? 0,
                        override: row?[1] ?? 0,
                        outsideTarget: row?[2] ?? 0,
                        notAssigned: row?[3] ?? 0,
                        beforeStart: row?[4] ?? 0,
                        afterStop: row?[5] ?? 0
                    )
                )
            }
        } catch {
            throw .database("\(error)")
        }
    }
}

/// The SQL of the results over time on SQLite (`?1` the experiment, `?2`–`?3` the window in ms,
/// `?4` the metric's action). The installs that count are a range of
/// `experiment_install_by_variant` (experiment, not crossed); each is read once per results read,
/// so the cost grows with the experiment's installs, not its events.
enum ExperimentDailySQL {
    /// An install that counts: not crossed, in the variant it is assigned (no `~`, `=` or `!`
    /// prefix: `ExperimentDailyCounts`), first seen in the window.
    private static let counted = """
        i.experiment_id = ?1 AND i.crossed = 0 AND substr(i.variant, 1, 1) NOT IN ('~', '=', '!')
            AND i.first_seen_at BETWEEN ?2 AND ?3
        """

    static let installs = """
        SELECT i.variant, i.first_seen_at / 86400000, COUNT(*) FROM experiment_install AS i
        WHERE \(counted) GROUP BY 1, 2
        """

    static let anyTapConversions = """
        SELECT i.variant, i.converted_at / 86400000, COUNT(*) FROM experiment_install AS i
        WHERE \(counted) AND i.converted_at <= ?3 GROUP BY 1, 2
        """

    /// The install's first tap of the action in its variant (a counted install saw no other).
    static let actionConversions = """
        SELECT i.variant, t.first_tapped_at / 86400000, COUNT(*)
        FROM experiment_install AS i JOIN experiment_install_tap AS t
            ON t.experiment_id = i.experiment_id AND t.action_id = ?4 AND t.variant = i.variant
                AND t.install_id = i.install_id
        WHERE \(counted) AND t.first_tapped_at <= ?3 GROUP BY 1, 2
        """

    /// Each excluded install once, by the first reason that applies.
    static let excluded = """
        SELECT
            COALESCE(SUM(crossed = 1), 0),
            COALESCE(SUM(crossed = 0 AND substr(variant, 1, 1) = '='), 0),
            COALESCE(SUM(crossed = 0 AND substr(variant, 1, 1) = '!'), 0),
            COALESCE(SUM(crossed = 0 AND substr(variant, 1, 1) = '~'), 0),
            COALESCE(SUM(crossed = 0 AND substr(variant, 1, 1) NOT IN ('~', '=', '!') AND first_seen_at < ?2), 0),
            COALESCE(SUM(crossed = 0 AND substr(variant, 1, 1) NOT IN ('~', '=', '!') AND first_seen_at > ?3), 0)
        FROM experiment_install WHERE experiment_id = ?1
        """
}
