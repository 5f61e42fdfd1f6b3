/// The counts of one analytics summary query, as every backend reads them: displays and taps per
/// group key, then taps per key and action. The backends count in their own SQL; what the counts
/// become (`rows`, `summary(totals:groups:)`) is decided once, here.
package struct SummaryCounts: Sendable {
    /// Per key, in the order of the rows (the backends sort by key, bytewise, `NULL` first).
    package var groups: [(key: String?, displays: Int, taps: Int)] = []
    /// Taps per key and action; the taps of events without an action have `action == nil`.
    package var actionTaps: [(key: String?, action: String?, taps: Int)] = []

    package init() {}

    /// One summary row per group, in order, with the taps of each action; taps without an action
    /// count in `taps` only, and a key with no group (a row read in between) is ignored.
    package var rows: [SummaryRow] {
        var rows = groups.map { SummaryRow(key: $0.key, displays: $0.displays, taps: $0.taps, tapsByAction: [:]) }
        var index: [String?: Int] = [:]
        for (position, row) in rows.enumerated() { index[row.key] = position }
        for (key, action, taps) in actionTaps {
            guard let action, let position = index[key] else { continue }
            rows[position].tapsByAction[action] = taps
        }
        return rows
    }

    /// The counts as one group (key `nil`): the displays, taps and taps per action of every
    /// group summed, the totals of a grouped read.
    package var collapsed: SummaryCounts {
        var total = SummaryCounts()
        total.groups = [(nil, groups.reduce(0) { $0 + $1.displays }, groups.reduce(0) { $0 + $1.taps })]
        var perAction: [String?: Int] = [:]
        for entry in actionTaps { perAction[entry.action, default: 0] += entry.taps }
        total.actionTaps = perAction.keys.sorted { ($0 ?? "").utf8.lexicographicallyPrecedes(($1 ?? "").utf8) }
            .map { (nil, $0, perAction[$0]!) }
        return total
    }

    /// The summary of a window: the totals (one group with key `nil`, zero when nothing
    /// happened), and the groups when a grouping was asked for.
    /// - Parameters:
    ///   - totals: the counts without a group key.
    ///   - groups: the counts per group key, `nil` when no grouping was asked for.
    ///   - grouping: what the groups are: revisions are put in number order (their keys are
    ///     text, where "10" comes before "2"); the others stay in the rows' order.
    package static func summary(
        totals: SummaryCounts,
        groups: SummaryCounts?,
        grouping: SummaryGrouping?
    ) -> (totals: SummaryRow, groups: [SummaryRow]) {
        var rows = groups?.rows ?? []
        if grouping == .revision {
            rows.sort { Int($0.key ?? "") ?? 0 < Int($1.key ?? "") ?? 0 }
        }
        return (totals.rows.first ?? SummaryRow(key: nil, displays: 0, taps: 0, tapsByAction: [:]), rows)
    }
}
