import EmptyStateCore
import EmptyStateStore
import Foundation
import HTTPServer
import Logging

/// `/v1/admin/analytics`: what product teams learn from the events (viewer role).
struct AnalyticsAPI: Sendable {
    static let defaultExportLimit = 1000
    static let maximumExportLimit = 10_000
    /// Without `from`, a summary covers this many days before `to`.
    static let defaultWindowDays: Int64 = 7

    let store: any EventStoring
    /// How long events are kept: a window that starts earlier is partial.
    let retentionDays: Int
    /// Whether the rollups count every stored event yet.
    let backfill: BackfillProgress
    let authorization: AdminAuthorization
    let logger: Logger

    private var summaries: AnalyticsSummaries { AnalyticsSummaries(store: store) }

    func register(on router: inout Router) {
        let route = { (handler: @escaping @Sendable (HTTPRequest) throws -> HTTPResponse) in
            authorization.require(
                .viewer,
                AdminProblems.catching(logger: logger) { request, _ in try handler(request) }
            )
        }
        router.get("/v1/admin/analytics/summary", blocking: true, route { try summary($0) })
        router.get("/v1/admin/analytics/events", blocking: true, route { try export($0) })
    }

    /// Displays, taps per action and tap-through rate, in total and per group.
    private func summary(_ request: HTTPRequest) throws -> HTTPResponse {
        var errors: [ProblemDetails.FieldError] = []
        let now = Timestamp.nowMilliseconds()
        func time(_ name: String) -> Int64? {
            guard let text = request.queryValue(name) else { return nil }
            guard let value = Timestamp.parse(text) else {
                errors.append(.init(.parameter(name), "not an RFC 3339 date-time (e.g. 2026-11-01T00:00:00Z)"))
                return nil
            }
            return value
        }
        let to = time("to") ?? now + 1
        let from = time("from") ?? to - Self.defaultWindowDays * 86_400_000
        if errors.isEmpty, from >= to { errors.append(.init(.parameter("from"), "must be before to")) }
        var grouping: SummaryGrouping?
        if let text = request.queryValue("groupBy") {
            grouping = SummaryGrouping(rawValue: text)
            if grouping == nil {
                errors.append(
                    .init(
                        .parameter("groupBy"),
                        "one of \(SummaryGrouping.allCases.map(\.rawValue).joined(separator: ", "))"
                    )
                )
            }
        }
        let templateID = request.queryValue("templateId")
        var includeUpdateStates = false
        if let text = request.queryValue("include") {
            if text == "updateStates" {
                includeUpdateStates = true
            } else {
                errors.append(.init(.parameter("include"), "updateStates (the only breakdown there is)"))
            }
        }
        guard errors.isEmpty else {
            throw ProblemDetails.invalidParameters(errors, detail: "A query parameter is invalid.")
        }
        let summary = try summaries.summary(from: from, to: to, templateID: templateID, groupBy: grouping)
        let (totals, groups) = (summary.totals, summary.groups)
        var partial: [String] = []
        let progress = try backfill.current ?? store.backfillProgress()
        if !progress.isComplete { partial.append("backfill") }
        if summary.window.from < now - Int64(retentionDays) * 86_400_000 { partial.append("retention") }
        return try .json(
            Summary(
                from: Timestamp.format(milliseconds: summary.window.from),
                to: Timestamp.format(milliseconds: summary.window.to),
                templateId: templateID,
                groupBy: grouping?.rawValue,
                totals: Summary.Row(totals, displaysForRate: totals.displays),
                // Displays have no action: grouped by action, they count in the totals only, and
                // the rate is against all displays.
                groups: groups.filter { $0.key != nil }.map {
                    Summary.Row($0, displaysForRate: grouping == .action ? totals.displays : $0.displays)
                },
                updateStates: includeUpdateStates
                    ? try updateStates(from: from, to: to, templateID: templateID) : nil,
                partial: partial.isEmpty ? nil : partial,
                backfill: progress.isComplete ? nil : .init(counted: progress.counted, total: progress.total)
            )
        )
    }

    /// `[{"state", "templateId", "appVersion", "displays"}]`: the displays of each update state's
    /// template per app version, states in `AppStatus` order, versions in version order (those
    /// that are not versions last): how many users an update state still blocks.
    private func updateStates(from: Int64, to: Int64, templateID: String?) throws(StoreError) -> [Summary.UpdateState] {
        let states = AppStatus.allCases.filter { state in
            state.templateID.map { templateID == nil || templateID == $0 } ?? false
        }
        let rows = try summaries.displaysByAppVersion(
            from: from,
            to: to,
            templateIDs: states.compactMap(\.templateID)
        )
        var result: [Summary.UpdateState] = []
        for state in states {
            let versions = rows.filter { $0.templateID == state.templateID }.sorted { a, b in
                switch (AppVersion(a.appVersion), AppVersion(b.appVersion)) {
                case (let x?, let y?): return x < y || (x == y && a.appVersion < b.appVersion)
                case (.some, nil): return true
                case (nil, .some): return false
                case (nil, nil): return a.appVersion < b.appVersion
                }
            }
            for row in versions {
                result.append(
                    Summary.UpdateState(
                        state: state.rawValue,
                        templateId: row.templateID,
                        appVersion: row.appVersion,
                        displays: row.displays
                    )
                )
            }
        }
        return result
    }

    /// Raw events as NDJSON, oldest first, resumable: `X-Next-Cursor` is the `after` of the next page.
    private func export(_ request: HTTPRequest) throws -> HTTPResponse {
        var errors: [ProblemDetails.FieldError] = []
        var after: Int64 = 0
        var limit = Self.defaultExportLimit
        if let text = request.queryValue("after") {
            if let value = Int64(text), value >= 0 {
                after = value
            } else {
                errors.append(.init(.parameter("after"), "a cursor from X-Next-Cursor (an integer ≥ 0)"))
            }
        }
        if let text = request.queryValue("limit") {
            if let value = Int(text), (1...Self.maximumExportLimit).contains(value) {
                limit = value
            } else {
                errors.append(.init(.parameter("limit"), "an integer from 1 to \(Self.maximumExportLimit)"))
            }
        }
        guard errors.isEmpty else {
            throw ProblemDetails.invalidParameters(errors, detail: "A query parameter is invalid.")
        }
        let rows = try store.events(after: after, limit: limit)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        var bytes: [UInt8] = []
        bytes.reserveCapacity(rows.count * 320)
        for (cursor, event) in rows {
            bytes += try encoder.encode(ExportedEvent(cursor: cursor, event))
            bytes.append(UInt8(ascii: "\n"))
        }
        let next = rows.last?.cursor ?? after
        return HTTPResponse(
            status: 200,
            headers: [
                ("Content-Type", "application/x-ndjson; charset=utf-8"), ("Cache-Control", "no-store"),
                ("X-Next-Cursor", "\(next)"),
            ],
            body: .bytes(bytes)
        )
    }
}
