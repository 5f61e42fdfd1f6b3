import Foundation

/// The analytics answers, assembled from rollup reads (`RollupQuery`) the same way on every
/// backend: which cube answers which question, over which buckets, and how the rows become
/// summary rows.
package struct AnalyticsSummaries: Sendable {
    package let store: any EventStoring

    package init(store: any EventStoring) {
        self.store = store
    }

    /// A summary: its window (in whole hours), the totals and the groups.
    package struct Summary: Sendable, Equatable {
        package var window: SummaryWindow
        package var totals: SummaryRow
        package var groups: [SummaryRow]
    }

    /// Displays and taps in the whole hours covering `[from, to)`, in total and per group.
    package func summary(
        from: Int64,
        to: Int64,
        templateID: String?,
        groupBy: SummaryGrouping?
    ) throws(StoreError) -> Summary {
        let window = SummaryWindow(from: from, to: to)
        let templates = templateID.map { [$0] }
        // Every event falls in exactly one group of any grouping, so a grouped summary's totals
        // are its groups' sums: one read instead of two.
        let totals: SummaryCounts
        var groups: SummaryCounts?
        if let groupBy {
            let (cube, key) = Self.plan(groupBy, forOneTemplate: templateID != nil)
            let grouped = try counts(window, cube: cube, templates: templates, key: key)
            totals = grouped.collapsed
            groups = grouped
        } else {
            totals = try counts(window, cube: .templates, templates: templates, key: nil)
        }
        let (totalRow, groupRows) = SummaryCounts.summary(totals: totals, groups: groups, grouping: groupBy)
        return Summary(window: window, totals: totalRow, groups: groupRows)
    }

    /// How many `displayed` events each of `templateIDs` had per app version in the whole hours
    /// covering `[from, to)`, by template then app version (bytewise).
    package func displaysByAppVersion(
        from: Int64,
        to: Int64,
        templateIDs: [String]
    ) throws(StoreError) -> [(templateID: String, appVersion: String, displays: Int)] {
        guard !templateIDs.isEmpty else { return [] }
        var displays: [[String]: Int] = [:]
        for segment in SummaryWindow(from: from, to: to).segments {
            let query = RollupQuery(
                cube: .versions,
                grain: segment.grain,
                buckets: segment.buckets,
                templates: templateIDs,
                type: .displayed,
                groupBy: [.dimension(.template), .dimension(.appVersion)]
            )
            for row in try store.rollupRows(query) { displays[row.keys, default: 0] += row.count }
        }
        return displays.sorted { a, b in
            a.key[0] != b.key[0]
                ? a.key[0].utf8.lexicographicallyPrecedes(b.key[0].utf8)
                : a.key[1].utf8.lexicographicallyPrecedes(b.key[1].utf8)
        }.map { (templateID: $0.key[0], appVersion: $0.key[1], displays: $0.value) }
    }

    /// Per variant of an experiment's template: displays, taps and taps per action in the whole
    /// hours covering `[from, to)`. Events without a variant are under "".
    package func variants(from: Int64, to: Int64, templateID: String) throws(StoreError) -> [SummaryRow] {
        let window = SummaryWindow(from: from, to: to)
        return try counts(window, cube: .templates, templates: [templateID], key: .dimension(.variant)).rows
    }

    /// Which cube answers a grouping, and by what key: a catalogue-wide cube (`locales`, …) when no
    /// template is asked for, so a month of the whole catalogue is read without a row per template.
    static func plan(_ grouping: SummaryGrouping, forOneTemplate: Bool) -> (RollupCube, RollupQuery.GroupKey) {
        switch grouping {
        case .template: return (.templates, .dimension(.template))
        case .revision: return (.templates, .dimension(.revision))
        case .action: return (.templates, .dimension(.action))
        case .day: return (.templates, .bucket)
        case .locale: return (forOneTemplate ? .audience : .locales, .dimension(.locale))
        case .platform: return (forOneTemplate ? .audience : .platforms, .dimension(.platform))
        case .appVersion: return (forOneTemplate ? .versions : .appVersions, .dimension(.appVersion))
        }
    }

    /// The counts of `window` from `cube`, per `key` (one group when `nil`); a `.bucket` key
    /// becomes the day (`YYYY-MM-DD`, UTC), whichever grain the bucket is of.
    private func counts(
        _ window: SummaryWindow,
        cube: RollupCube,
        templates: [String]?,
        key: RollupQuery.GroupKey?
    ) throws(StoreError) -> SummaryCounts {
        var displays: [String?: Int] = [:]
        var taps: [String?: Int] = [:]
        var actionTaps: [ActionKey: Int] = [:]
        for segment in window.segments {
            let query = RollupQuery(
                cube: cube,
                grain: segment.grain,
                buckets: segment.buckets,
                templates: templates,
                groupBy: key.map { [$0] } ?? []
            )
            for row in try store.rollupRows(query) {
                var group: String? = nil
                if let key {
                    let value = row.keys[0]
                    switch key {
                    case .bucket: group = Self.day(bucket: Int64(value) ?? 0, of: segment.grain)
                    case .dimension(.action): group = value.isEmpty ? nil : value
                    case .dimension: group = value
                    }
                }
                if row.type == AnalyticsEvent.Kind.displayed.rawValue {
                    displays[group, default: 0] += row.count
                } else {
                    taps[group, default: 0] += row.count
                    actionTaps[ActionKey(key: group, action: row.action.isEmpty ? nil : row.action), default: 0] +=
                        row.count
                }
            }
        }
        var counts = SummaryCounts()
        if key == nil {
            counts.groups = [(nil, displays[nil] ?? 0, taps[nil] ?? 0)]
        } else {
            let keys = Set(displays.keys).union(taps.keys).sorted(by: Self.bytewiseNilFirst)
            counts.groups = keys.map { ($0, displays[$0] ?? 0, taps[$0] ?? 0) }
        }
        counts.actionTaps = actionTaps.map { ($0.key.key, $0.key.action, $0.value) }
        return counts
    }

    private struct ActionKey: Hashable {
        var key: String?
        var action: String?
    }

    /// `nil` first, then by UTF-8 bytes: the order the summaries have always had.
    private static func bytewiseNilFirst(_ a: String?, _ b: String?) -> Bool {
        switch (a, b) {
        case (nil, nil): return false
        case (nil, _): return true
        case (_, nil): return false
        case (let a?, let b?): return a.utf8.lexicographicallyPrecedes(b.utf8)
        }
    }

    /// The UTC day (`YYYY-MM-DD`) a bucket of `grain` falls in.
    static func day(bucket: Int64, of grain: RollupGrain) -> String {
        let milliseconds = bucket * grain.milliseconds
        return String(Timestamp.format(milliseconds: milliseconds).prefix(10))
    }
}
