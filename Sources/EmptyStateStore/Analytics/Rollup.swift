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
///
/// The tables, columns and statements, which both backends share, are in `EmptyStateStoreSQL`
/// (`RollupSQL.swift`): the contract names what is counted, not how a database holds it.
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
}

/// One dimension of a rollup: a column of the event it comes from.
package enum RollupDimension: String, Sendable, CaseIterable {
    case template, revision, variant, locale, platform, appVersion, type, action
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
    /// The most delta rows one fold transaction takes: a fold of a backlog (after an outage of
    /// the fold, or a burst of keys) is many short transactions, never one that holds SQLite's
    /// writer, or PostgreSQL's row locks, for as long as the backlog is.
    package static let foldBatch = 20_000
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
