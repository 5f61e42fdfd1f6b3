#if canImport(Glibc)
    import Glibc
#endif

/// Rollups: counters of stored events per time bucket and per combination of a few dimensions,
/// written by both backends in the same transaction as the events they count (as deltas, folded
/// into the cubes in the background: `RollupDelta`), so that what was acknowledged is what was
/// stored is what is counted (also across `kill -9`). Summaries read them instead of scanning
/// events: their size grows with days × combinations seen, not with the number of events.
///
/// **Cubes.** One table per cube and grain (`rollup_<cube>_<grain>`), each keyed by the bucket
/// and its dimensions; `n` is the count. Four cubes answer every summary with few rows:
/// - `templates` (template, revision, variant, type, action): totals, per template, per action,
///   per day, per experiment variant;
/// - `audience` (template, revision, locale, platform, type, action): one template's locales
///   and platforms;
/// - `versions` (template, platform, app version, type, action): one template's app versions, and
///   the update states' displays per version;
/// - `overall` (locale, platform, app version, type, action): the whole catalogue's locales,
///   platforms and app versions without a row per template.
///
/// **Grains.** Hours and days (UTC). A window is counted in whole hours (`SummaryWindow`): full
/// days from the day tables, the hours at either end from the hour tables, so a 30-day summary
/// reads about 30 × (combinations per day) rows and a 1-day one at most 47 hours' rows.
///
/// **Absent values** are stored as a neutral value, so every key column is `NOT NULL`: a
/// revision as 0, a variant or an action as "".
package enum RollupCube: String, Sendable, CaseIterable {
    case templates, audience, versions, overall

    /// Its dimensions, in the order of its key.
    package var dimensions: [RollupDimension] {
        switch self {
        case .templates: return [.template, .revision, .variant, .type, .action]
        case .audience: return [.template, .revision, .locale, .platform, .type, .action]
        case .versions: return [.template, .platform, .appVersion, .type, .action]
        case .overall: return [.locale, .platform, .appVersion, .type, .action]
        }
    }

    /// The table that holds this cube at `grain`.
    package func table(_ grain: RollupGrain) -> String { "rollup_\(rawValue)_\(grain.rawValue)" }
}

/// One dimension of a rollup: a column of the event it comes from.
package enum RollupDimension: String, Sendable, CaseIterable {
    case template, revision, variant, locale, platform, appVersion, type, action

    /// The column's name, in the rollup tables and in the event table.
    package var column: String {
        switch self {
        case .template: return "template_id"
        case .revision: return "revision"
        case .variant: return "variant"
        case .locale: return "locale"
        case .platform: return "platform"
        case .appVersion: return "app_version"
        case .type: return "type"
        case .action: return "action_id"
        }
    }

    /// Whether the column holds integers (the others hold text).
    package var isInteger: Bool { self == .revision }
}

/// A rollup's time bucket size. Buckets are numbered from the epoch: bucket `b` of a grain
/// covers `[b × milliseconds, (b + 1) × milliseconds)`.
package enum RollupGrain: String, Sendable, CaseIterable {
    case hour, day

    package var milliseconds: Int64 {
        switch self {
        case .hour: return 3_600_000
        case .day: return 86_400_000
        }
    }

    /// The bucket holding the moment `time` (milliseconds since the epoch, possibly negative).
    package func bucket(of time: Int64) -> Int64 {
        time >= 0 ? time / milliseconds : -((-time + milliseconds - 1) / milliseconds)
    }
}

/// The dimensions of one event as rollups key it, with absent values made neutral.
package struct RollupKey: Sendable, Hashable {
    package var template: String
    package var revision: Int
    package var variant: String
    package var locale: String
    package var platform: String
    package var appVersion: String
    package var type: String
    package var action: String

    package init(_ event: AnalyticsEvent) {
        template = event.templateID
        revision = event.revision ?? 0
        variant = event.variant ?? ""
        locale = event.locale
        platform = event.platform
        appVersion = event.appVersion
        type = event.kind.rawValue
        action = event.actionID ?? ""
    }

    /// This key with the dimensions `cube` does not have made neutral: equal for every event the
    /// cube counts together.
    package func projected(on cube: RollupCube) -> RollupKey {
        var key = self
        let kept = cube.dimensions
        if !kept.contains(.template) { key.template = "" }
        if !kept.contains(.revision) { key.revision = 0 }
        if !kept.contains(.variant) { key.variant = "" }
        if !kept.contains(.locale) { key.locale = "" }
        if !kept.contains(.platform) { key.platform = "" }
        if !kept.contains(.appVersion) { key.appVersion = "" }
        return key
    }

    /// The value of `dimension`, as a database value: an `Int` for the revision, a `String`
    /// otherwise.
    package func value(_ dimension: RollupDimension) -> any Sendable {
        switch dimension {
        case .template: return template
        case .revision: return revision
        case .variant: return variant
        case .locale: return locale
        case .platform: return platform
        case .appVersion: return appVersion
        case .type: return type
        case .action: return action
        }
    }
}

/// What one group of newly stored events adds to the rollups, counted in the application (SQLite's
/// group commit): once by hour and full key (`hourly`, the delta rows); each cube and grain is a
/// projection of those counts (`counts`, for the tests).
package struct RollupBatch: Sendable {
    /// The count of each full key, by hour.
    private var byHour: [Bucketed: Int] = [:]

    /// A key in its time bucket.
    package struct Bucketed: Sendable, Hashable {
        package var bucket: Int64
        package var key: RollupKey
    }

    package init() {}

    /// Counts `event` (one that was stored: never a duplicate).
    package mutating func add(_ event: AnalyticsEvent) {
        byHour[Bucketed(bucket: RollupGrain.hour.bucket(of: event.occurredAt), key: RollupKey(event)), default: 0] += 1
    }

    /// Whether nothing was added.
    package var isEmpty: Bool { byHour.isEmpty }

    /// The counts by hour and full key: the rows a group commit appends to `rollup_delta`.
    package var hourly: [(hour: Int64, key: RollupKey, count: Int)] {
        byHour.map { (hour: $0.key.bucket, key: $0.key.key, count: $0.value) }
    }

    /// The count of each key of `cube` in each bucket of `grain`.
    package func counts(_ cube: RollupCube, _ grain: RollupGrain) -> [Bucketed: Int] {
        var counts: [Bucketed: Int] = [:]
        let hoursPerBucket = grain.milliseconds / RollupGrain.hour.milliseconds
        for (bucketed, count) in byHour {
            // Rounded down, also before the epoch.
            let hour = bucketed.bucket
            let bucket = hour >= 0 ? hour / hoursPerBucket : -((-hour + hoursPerBucket - 1) / hoursPerBucket)
            counts[Bucketed(bucket: bucket, key: bucketed.key.projected(on: cube)), default: 0] += count
        }
        return counts
    }
}

extension RollupDimension {
    /// The SQL that reads this dimension from an event row, absent values made neutral (the same
    /// in SQLite and PostgreSQL).
    package var eventExpression: String {
        switch self {
        case .revision: return "COALESCE(revision, 0)"
        case .variant: return "COALESCE(variant, '')"
        case .action: return "COALESCE(action_id, '')"
        default: return column
        }
    }
}

extension RollupGrain {
    /// The SQL of an event row's bucket (`occurred_at` is never negative).
    package var eventExpression: String { "occurred_at / \(milliseconds)" }
}

extension RollupCube {
    /// The statement that adds `HourlyCounts`-shaped rows (`hour`, every dimension, `n`) of
    /// `source` (a table or a `WITH` name) to this cube's `grain` table: one upsert of every key's
    /// count, in the syntax SQLite and PostgreSQL share.
    package func countingSQL(grain: RollupGrain, fromHourlyCounts source: String) -> String {
        let table = table(grain)
        let key = ["bucket"] + dimensions.map(\.column)
        let bucket = grain == .hour ? "hour" : "hour / \(grain.hoursPerBucket)"
        let groups = (1...key.count).map(String.init).joined(separator: ", ")
        return """
            INSERT INTO \(table) (\(key.joined(separator: ", ")), n)
            SELECT \(([bucket] + dimensions.map(\.column)).joined(separator: ", ")), SUM(n) FROM \(source) WHERE true
            GROUP BY \(groups)
            ON CONFLICT (\(key.joined(separator: ", "))) DO UPDATE SET n = \(table).n + excluded.n
            """
    }
}

extension RollupGrain {
    /// How many hours one bucket of this grain holds.
    package var hoursPerBucket: Int64 { milliseconds / RollupGrain.hour.milliseconds }
}

/// Where the counts of newly stored events go first: `rollup_delta`, one row per hour and key per
/// group commit, appended by the same transaction as the events (no index, no upsert, no row
/// another writer waits for). A fold (`EventStoring.foldRollups`) moves them into the cubes in one
/// transaction: `DELETE … RETURNING` takes exactly the rows it folds, so each is counted once.
/// Reads sum the cubes and the deltas not yet folded, in one statement (one snapshot), so a fold
/// between two reads can neither hide nor double a count.
package enum RollupDelta {
    package static let table = "rollup_delta"

    /// Its columns: the hour, every dimension, the count.
    package static var columns: [String] { ["hour"] + RollupDimension.allCases.map(\.column) + ["n"] }
}

/// The events of a source counted once by hour and every dimension (absent values made neutral),
/// as rows `hour, <dimension columns>, n`: what a group commit appends to `rollup_delta` and what
/// `countingSQL(grain:fromHourlyCounts:)` reads.
package enum HourlyCounts {
    package static func sql(from source: String) -> String {
        let dimensions = RollupDimension.allCases
        let columns = dimensions.map { "\($0.eventExpression) AS \($0.column)" }
        let groups = (1...(dimensions.count + 1)).map(String.init).joined(separator: ", ")
        return """
            SELECT \(RollupGrain.hour.eventExpression) AS hour, \(columns.joined(separator: ", ")), COUNT(*) AS n
            FROM \(source) GROUP BY \(groups)
            """
    }
}

/// How far the rollups of events stored before the rollups existed (a database from an earlier
/// release) are built: the backfill counts them in batches in the background.
package struct RollupBackfill: Sendable, Equatable {
    /// Events counted so far, of `total`.
    package var counted: Int
    package var total: Int

    package init(counted: Int, total: Int) {
        self.counted = counted
        self.total = total
    }

    package var isComplete: Bool { counted >= total }
}

/// How long rollups are kept: hours as long as the events, days for at least 400 days (a year's
/// comparisons after raw events are gone: a day row costs tens of bytes).
package enum RollupRetention {
    package static let days: Int64 = 400

    /// The first day bucket kept when events before `cutoff` are deleted at `now`.
    package static func firstDayKept(eventCutoff cutoff: Int64, now: Int64) -> Int64 {
        RollupGrain.day.bucket(of: min(cutoff, now - days * RollupGrain.day.milliseconds))
    }
}

/// Whether stores keep rollups: always in service. `EMPTY_STATE_BENCH_WITHOUT_ROLLUPS=1` in the
/// environment turns them off for `make bench`, which measures what they cost ingestion; the
/// summaries of such a process are wrong.
package enum RollupSwitch {
    package static let enabled: Bool = {
        guard let value = getenv("EMPTY_STATE_BENCH_WITHOUT_ROLLUPS") else { return true }
        return String(cString: value) != "1"
    }()
}
