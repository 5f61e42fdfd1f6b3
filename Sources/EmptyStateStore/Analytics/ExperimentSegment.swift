import EmptyStateCore

/// An install attribute an experiment's results can be broken down by
/// (`GET /v1/admin/experiments/{id}/results?segment=…`, `EventStoring.experimentSegmentCounts`).
///
/// **Which attributes, from when.** Each install's row of `experiment_install` keeps the
/// platform, locale, app version and install time (`installedAt`, when the app sends it) of its
/// **earliest event** in the experiment (the first exposure; an event that arrives late but
/// happened earlier replaces them): the attributes the install had when it entered. The
/// new-install segment compares that install time with the experiment's start when the results
/// are read: `new` at or after it, `existing` before. An install whose app updates midway stays in the segment it
/// entered in, so every install is in exactly one segment and the segments add up to the whole.
/// Rows written before the store knew the attributes (SQLite event store v6, PostgreSQL schema
/// 12) or by an older replica have none: they are in the "unknown" segment (`value` `nil`).
package enum ExperimentSegment: String, Sendable, CaseIterable {
    case platform, locale, appVersion, newInstall

    /// The segment's value as SQL over a row of `experiment_install` (a constant but for the start
    /// time, an integer: safe to put in SQL). `start` is the experiment's start in ms.
    package func expression(start: Int64) -> String {
        switch self {
        case .platform: "platform"
        case .locale: "locale"
        case .appVersion: "app_version"
        case .newInstall:
            "CASE WHEN installed_at IS NULL THEN NULL WHEN installed_at >= \(start) THEN 'new' ELSE 'existing' END"
        }
    }
}

/// One segment's counts: its value (`nil` for installs whose attribute is unknown) and the same
/// counts the whole experiment has (`ExperimentDailyCounts`), over the installs in it.
package struct ExperimentSegmentCounts: Sendable, Equatable {
    package var value: String?
    package var counts: ExperimentDailyCounts

    package init(value: String?, counts: ExperimentDailyCounts) {
        self.value = value
        self.counts = counts
    }

    /// Groups rows of (segment, variant, day, count) into segments, each with its exclusions
    /// (segments with exclusions only are kept), sorted by value, the unknown segment last.
    package static func group(
        installs: [(segment: String?, variant: String, day: Int64, count: Int)],
        conversions: [(segment: String?, variant: String, day: Int64, count: Int)],
        excluded: [(segment: String?, exclusions: ExperimentDailyCounts.Exclusions)]
    ) -> [ExperimentSegmentCounts] {
        struct Key: Hashable { var value: String? }
        var installsBy: [Key: [(variant: String, day: Int64, count: Int)]] = [:]
        var conversionsBy: [Key: [(variant: String, day: Int64, count: Int)]] = [:]
        var excludedBy: [Key: ExperimentDailyCounts.Exclusions] = [:]
        for row in installs {
            installsBy[Key(value: row.segment), default: []].append((row.variant, row.day, row.count))
        }
        for row in conversions {
            conversionsBy[Key(value: row.segment), default: []].append((row.variant, row.day, row.count))
        }
        for row in excluded { excludedBy[Key(value: row.segment)] = row.exclusions }
        let keys = Set(installsBy.keys).union(conversionsBy.keys).union(excludedBy.keys)
        return keys.map { key in
            ExperimentSegmentCounts(
                value: key.value,
                counts: ExperimentDailyCounts(
                    installs: installsBy[key] ?? [],
                    conversions: conversionsBy[key] ?? [],
                    excluded: excludedBy[key] ?? .init()
                )
            )
        }
        .filter { !$0.counts.days.isEmpty || $0.counts.excluded.total > 0 }
        .sorted { a, b in
            switch (a.value, b.value) {
            case (let a?, let b?): a.utf8.lexicographicallyPrecedes(b.utf8)
            case (_?, nil): true
            case (nil, _): false
            }
        }
    }
}
