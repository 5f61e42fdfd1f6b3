/// Rollups: counters of stored events per time bucket and per combination of a few dimensions,
/// written by both backends in the same transaction as the events they count (as deltas, folded
/// into the cubes in the background: `RollupDelta`), so that what was acknowledged is what was
/// stored is what is counted (also across `kill -9`). Summaries read them instead of scanning
/// events: their size grows with days × combinations seen, not with the number of events.
///
/// **Cubes.** One table per cube and grain (`rollup_<cube>_<grain>`), each keyed by the bucket
/// and its dimensions; `n` is the count. Six cubes answer every summary with few rows:
/// - `templates` (template, revision, variant, type, action): totals, per template, per action,
///   per day, per experiment variant;
/// - `audience` (template, revision, locale, platform, type, action): one template's locales
///   and platforms;
/// - `versions` (template, platform, app version, type, action): one template's app versions, and
///   the update states' displays per version;
/// - `locales`, `platforms`, `appVersions` (one of those, type, action): the whole catalogue's
///   locales, platforms and app versions. One small cube each, not one of their product: a
///   month of the catalogue per app version reads (versions × actions) rows a day, and a new app
///   version adds rows to one cube, not (locales × platforms) rows to one.
///
/// **Grains.** Hours and days (UTC). A window is counted in whole hours (`SummaryWindow`): full
/// days from the day tables, the hours at either end from the hour tables, so a 30-day summary
/// reads about 30 × (combinations per day) rows and a 1-day one at most 47 hours' rows.
///
/// **Absent values** are stored as a neutral value, so every key column is `NOT NULL`: a
/// revision as 0, a variant or an action as "".
package enum RollupCube: String, Sendable, CaseIterable {
    case templates, audience, versions, locales, platforms, appVersions

    /// Its dimensions, in the order of its key.
    package var dimensions: [RollupDimension] {
        switch self {
        case .templates: return [.template, .revision, .variant, .type, .action]
        case .audience: return [.template, .revision, .locale, .platform, .type, .action]
        case .versions: return [.template, .platform, .appVersion, .type, .action]
        case .locales: return [.locale, .type, .action]
        case .platforms: return [.platform, .type, .action]
        case .appVersions: return [.appVersion, .type, .action]
        }
    }

    /// The table that holds this cube at `grain`.
    package func table(_ grain: RollupGrain) -> String { RollupCube.table(rawValue, grain) }

    /// The table of the cube named `name` at `grain`, also for cubes of earlier releases
    /// (migrations name those).
    package static func table(_ name: String, _ grain: RollupGrain) -> String {
        "rollup_\(name.lowercased())_\(grain.rawValue)"
    }

    /// The cubes a database of an earlier release holds, by name, with their dimensions: what the
    /// migrations that created them created, whatever the cubes are now.
    package static let ofAnalyticsRelease: [(name: String, dimensions: [RollupDimension])] = [
        ("templates", [.template, .revision, .variant, .type, .action]),
        ("audience", [.template, .revision, .locale, .platform, .type, .action]),
        ("versions", [.template, .platform, .appVersion, .type, .action]),
        ("overall", [.locale, .platform, .appVersion, .type, .action]),
    ]

    /// The statements that make a cube's `grain` table searchable by template first: its key
    /// starts with the bucket, so "one template over a month" would otherwise read every
    /// template's rows of the month (a month of `audience` is hundreds of thousands of rows).
    /// None for a cube without the template dimension. The same in SQLite and PostgreSQL.
    package func templateIndexSQL(_ grain: RollupGrain) -> [String] {
        guard dimensions.contains(.template) else { return [] }
        return ["CREATE INDEX \(table(grain))_by_template ON \(table(grain)) (template_id, bucket)"]
    }

    /// The cubes that replaced `overall` (which had all their dimensions), so a migration fills
    /// them from it.
    package static let fromOverall: [RollupCube] = [.locales, .platforms, .appVersions]
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

    /// The most delta rows one fold transaction takes: a fold of a backlog (after an outage of
    /// the fold, or a burst of keys) is many short transactions, never one that holds SQLite's
    /// writer, or PostgreSQL's row locks, for as long as the backlog is.
    package static let foldBatch = 20_000

    /// The rows of `source` (this table's shape) summed by hour and every dimension: what a fold
    /// adds to the cubes.
    package static func summedSQL(from source: String) -> String {
        let key = (["hour"] + RollupDimension.allCases.map(\.column)).joined(separator: ", ")
        return "SELECT \(key), SUM(n) AS n FROM \(source) GROUP BY \(key)"
    }
}

/// The events of a source counted once by hour and every dimension (absent values made neutral),
/// as rows `hour, <dimension columns>, n`: what a PostgreSQL group commit appends to
/// `rollup_delta` (SQLite's commit counts in Swift: `HourlyTally`), what the backfill counts, and
/// what `countingSQL(grain:fromHourlyCounts:)` reads.
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

/// `HourlyCounts` kept in Swift, for a store that knows which events its commit stored (SQLite's
/// one writer does): the group's events counted by hour and every dimension as they are
/// inserted, then appended to `rollup_delta` a row a key. Counting them back out of the rows just
/// written (`INSERT … SELECT … GROUP BY`) took 2.2–2.5 ms of an 800-event commit's 12 ms on
/// the service's schema; inserting the counted keys directly, 0.7 ms.
package struct HourlyTally: Sendable {
    /// An hour and every dimension (`RollupDimension.allCases` order), absent values neutral as
    /// `RollupDimension.eventExpression` makes them.
    package struct Key: Hashable, Sendable {
        package var hour: Int64
        package var template: String
        package var revision: Int64
        package var variant: String
        package var locale: String
        package var platform: String
        package var appVersion: String
        package var type: String
        package var action: String
    }

    package private(set) var counts: [Key: Int64] = [:]

    package init() {}

    package var isEmpty: Bool { counts.isEmpty }

    /// Counts one stored event.
    package mutating func add(_ event: AnalyticsEvent) {
        // `RollupGrain.hour.eventExpression`: SQL's integer division (`occurred_at` is never
        // negative).
        let key = Key(
            hour: event.occurredAt / RollupGrain.hour.milliseconds,
            template: event.templateID,
            revision: Int64(event.revision ?? 0),
            variant: event.variant ?? "",
            locale: event.locale,
            platform: event.platform,
            appVersion: event.appVersion,
            type: event.kind.rawValue,
            action: event.actionID ?? ""
        )
        counts[key, default: 0] += 1
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
