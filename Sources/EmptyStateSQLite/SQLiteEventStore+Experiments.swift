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
            event.platform, event.locale, event.appVersion.isEmpty ? nil : event.appVersion, event.installedAt,
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

    /// The attributes an install's results are segmented by (`ExperimentSegment`), added by the
    /// events migration v6: those of its earliest event.
    static let segmentColumns = """
        ALTER TABLE experiment_install ADD COLUMN platform TEXT;
        ALTER TABLE experiment_install ADD COLUMN locale TEXT;
        ALTER TABLE experiment_install ADD COLUMN app_version TEXT;
        ALTER TABLE experiment_install ADD COLUMN installed_at INTEGER; -- ms since the epoch, as the app said
        """

    /// First sight inserts; later, the row is written only when something changes (a crossing,
    /// a first conversion, an earlier event), so repeated displays cost a lookup, not a write.
    /// An earlier event brings its attributes too: the row keeps those of the earliest event.
    /// (In `SET`, every column read is the row's value before the update.)
    static let upsert = """
        INSERT INTO experiment_install (experiment_id, install_id, variant, first_seen_at, converted_at, crossed,
            platform, locale, app_version, installed_at)
        VALUES (?, ?, ?, ?, ?, 0, ?, ?, ?, ?)
        ON CONFLICT (experiment_id, install_id) DO UPDATE SET
            crossed = crossed OR variant <> excluded.variant,
            first_seen_at = MIN(first_seen_at, excluded.first_seen_at),
            converted_at = COALESCE(converted_at, excluded.converted_at),
            platform = IIF(excluded.first_seen_at < first_seen_at, excluded.platform, platform),
            locale = IIF(excluded.first_seen_at < first_seen_at, excluded.locale, locale),
            app_version = IIF(excluded.first_seen_at < first_seen_at, excluded.app_version, app_version),
            installed_at = IIF(excluded.first_seen_at < first_seen_at, excluded.installed_at, installed_at)
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
    /// The counts grouped by `segment`'s column, or as one group (value `nil`, always present)
    /// when `segment` is `nil`.
    package func experimentSegmentCounts(
        experimentID: String,
        metric: Experiment.Metric,
        from: Int64,
        to: Int64,
        segment: ExperimentSegment?
    ) throws(StoreError) -> [ExperimentSegmentCounts] {
        let sql = ExperimentDailySQL(segment: segment, start: from)
        do {
            return try pool.read { db in
                func rows(
                    _ sql: String,
                    _ arguments: StatementArguments
                ) throws
                    -> [(segment: String?, variant: String, day: Int64, count: Int)]
                {
                    try Row.fetchAll(db, sql: sql, arguments: arguments).map { ($0[0], $0[1], $0[2], $0[3]) }
                }
                let window: StatementArguments = [experimentID, from, to]
                let installs = try rows(sql.installs, window)
                let conversions =
                    if let action = metric.convertingAction {
                        try rows(sql.actionConversions, window + [action])
                    } else {
                        try rows(sql.anyTapConversions, window)
                    }
                let excluded = try Row.fetchAll(db, sql: sql.excluded, arguments: window).map { row in
                    (
                        segment: row[0] as String?,
                        exclusions: ExperimentDailyCounts.Exclusions(
                            crossed: row[1] ?? 0,
                            override: row[2] ?? 0,
                            outsideTarget: row[3] ?? 0,
                            notAssigned: row[4] ?? 0,
                            beforeStart: row[5] ?? 0,
                            afterStop: row[6] ?? 0
                        )
                    )
                }
                let grouped = ExperimentSegmentCounts.group(
                    installs: installs,
                    conversions: conversions,
                    excluded: excluded
                )
                if segment == nil, grouped.isEmpty {
                    return [ExperimentSegmentCounts(value: nil, counts: .init(days: [], excluded: .init()))]
                }
                return grouped
            }
        } catch {
            throw .database("\(error)")
        }
    }
}

/// The SQL of the results over time on SQLite (`?1` the experiment, `?2`–`?3` the window in ms,
/// `?4` the metric's action), each row led by its segment's value (`NULL` for the whole). The
/// installs that count are a range of `experiment_install_by_variant` (experiment, not crossed);
/// each is read once per results read, so the cost grows with the experiment's installs, not its
/// events.
struct ExperimentDailySQL {
    /// The segment's value (`ExperimentSegment.expression`), or `NULL`: one group, the whole.
    private let segment: String
    /// `GROUP BY` of the excluded installs: by segment, or none (one row, also when empty).
    private let excludedGrouping: String

    init(segment: ExperimentSegment?, start: Int64) {
        self.segment = segment.map { "(\($0.expression(start: start)))" } ?? "NULL"
        excludedGrouping = segment == nil ? "" : "GROUP BY 1"
    }

    /// An install that counts: not crossed, in the variant it is assigned (no `~`, `=` or `!`
    /// prefix: `ExperimentDailyCounts`), first seen in the window.
    private static let counted = """
        i.experiment_id = ?1 AND i.crossed = 0 AND substr(i.variant, 1, 1) NOT IN ('~', '=', '!')
            AND i.first_seen_at BETWEEN ?2 AND ?3
        """

    var installs: String {
        """
        SELECT \(segment), i.variant, i.first_seen_at / 86400000, COUNT(*) FROM experiment_install AS i
        WHERE \(Self.counted) GROUP BY 1, 2, 3
        """
    }

    var anyTapConversions: String {
        """
        SELECT \(segment), i.variant, i.converted_at / 86400000, COUNT(*) FROM experiment_install AS i
        WHERE \(Self.counted) AND i.converted_at <= ?3 GROUP BY 1, 2, 3
        """
    }

    /// The install's first tap of the action in its variant (a counted install saw no other).
    var actionConversions: String {
        """
        SELECT \(segment), i.variant, t.first_tapped_at / 86400000, COUNT(*)
        FROM experiment_install AS i JOIN experiment_install_tap AS t
            ON t.experiment_id = i.experiment_id AND t.action_id = ?4 AND t.variant = i.variant
                AND t.install_id = i.install_id
        WHERE \(Self.counted) AND t.first_tapped_at <= ?3 GROUP BY 1, 2, 3
        """
    }

    /// Each excluded install once, by the first reason that applies.
    var excluded: String {
        """
        SELECT
            \(segment),
            COALESCE(SUM(crossed = 1), 0),
            COALESCE(SUM(crossed = 0 AND substr(variant, 1, 1) = '='), 0),
            COALESCE(SUM(crossed = 0 AND substr(variant, 1, 1) = '!'), 0),
            COALESCE(SUM(crossed = 0 AND substr(variant, 1, 1) = '~'), 0),
            COALESCE(SUM(crossed = 0 AND substr(variant, 1, 1) NOT IN ('~', '=', '!') AND first_seen_at < ?2), 0),
            COALESCE(SUM(crossed = 0 AND substr(variant, 1, 1) NOT IN ('~', '=', '!') AND first_seen_at > ?3), 0)
        FROM experiment_install AS i WHERE experiment_id = ?1 \(excludedGrouping)
        """
    }
}
