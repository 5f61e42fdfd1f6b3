import EmptyStateCore
import EmptyStateStore
import HTTPServer
import JSONCoding
import Logging

/// `/v1/admin/analytics`: what product teams learn from the events (viewer role).
struct AnalyticsAPI: Sendable {
    static let defaultExportLimit = 1000
    static let maximumExportLimit = 10_000
    /// Without `from`, a summary covers this many days before `to`.
    static let defaultWindowDays: Int64 = 7

    let store: any EventStoring
    let authorization: AdminAuthorization
    let logger: Logger

    func register(on router: inout Router) {
        router.get("/v1/admin/analytics/summary", blocking: true) { request in
            authorization.guarded(request, .viewer) { _ in summary(request) }
        }
        router.get("/v1/admin/analytics/events", blocking: true) { request in
            authorization.guarded(request, .viewer) { _ in export(request) }
        }
    }

    /// Displays, taps per action and tap-through rate, in total and per group.
    private func summary(_ request: HTTPRequest) -> HTTPResponse {
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
            return ProblemDetails.invalidParameters(
                errors,
                detail: "A query parameter is invalid."
            ).response(requestID: request.id)
        }
        do {
            let (totals, groups) = try store.summary(from: from, to: to, templateID: templateID, groupBy: grouping)
            var writer = JSONWriter(capacity: 1024)
            writer.beginObject()
            writer.member("from", Timestamp.format(milliseconds: from))
            writer.member("to", Timestamp.format(milliseconds: to))
            writer.key("templateId")
            if let templateID { writer.string(templateID) } else { writer.null() }
            writer.key("groupBy")
            if let grouping { writer.string(grouping.rawValue) } else { writer.null() }
            writer.key("totals")
            write(totals, into: &writer, displaysForRate: totals.displays)
            writer.key("groups")
            writer.beginArray()
            // Displays have no action: grouped by action, they count in the totals only.
            for group in groups where group.key != nil {
                // Grouped by action, the rate is against all displays (displays have no action).
                write(group, into: &writer, displaysForRate: grouping == .action ? totals.displays : group.displays)
            }
            writer.endArray()
            if includeUpdateStates {
                writer.key("updateStates")
                try writeUpdateStates(from: from, to: to, templateID: templateID, into: &writer)
            }
            writer.endObject()
            return HTTPResponse(
                status: 200,
                headers: [("Content-Type", "application/json; charset=utf-8"), ("Cache-Control", "no-store")],
                body: .bytes(writer.bytes)
            )
        } catch {
            return AdminAPI.problem(for: error, request: request, logger: logger)
        }
    }

    /// `[{"state", "templateId", "appVersion", "displays"}]`: the displays of each update state's
    /// template per app version, states in `AppStatus` order, versions in version order (those
    /// that are not versions last): how many users an update state still blocks.
    private func writeUpdateStates(
        from: Int64,
        to: Int64,
        templateID: String?,
        into writer: inout JSONWriter
    ) throws(StoreError) {
        let states = AppStatus.allCases.filter { state in
            state.templateID.map { templateID == nil || templateID == $0 } ?? false
        }
        let rows = try store.displaysByAppVersion(from: from, to: to, templateIDs: states.compactMap(\.templateID))
        writer.beginArray()
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
                writer.beginObject()
                writer.member("state", state.rawValue)
                writer.member("templateId", row.templateID)
                writer.member("appVersion", row.appVersion)
                writer.key("displays")
                writer.int(row.displays)
                writer.endObject()
            }
        }
        writer.endArray()
    }

    private func write(_ row: SummaryRow, into writer: inout JSONWriter, displaysForRate: Int) {
        writer.beginObject()
        if let key = row.key { writer.member("key", key) }
        writer.key("displays")
        writer.int(row.displays)
        writer.key("taps")
        writer.int(row.taps)
        writer.key("tapThroughRate")
        writer.value(
            .number(displaysForRate == 0 ? 0 : (Double(row.taps) / Double(displaysForRate) * 10_000).rounded() / 10_000)
        )
        writer.key("tapsByAction")
        writer.beginObject()
        for action in row.tapsByAction.keys.sorted() {
            writer.key(action)
            writer.int(row.tapsByAction[action]!)
        }
        writer.endObject()
        writer.endObject()
    }

    /// Raw events as NDJSON, oldest first, resumable: `X-Next-Cursor` is the `after` of the next page.
    private func export(_ request: HTTPRequest) -> HTTPResponse {
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
            return ProblemDetails.invalidParameters(
                errors,
                detail: "A query parameter is invalid."
            ).response(requestID: request.id)
        }
        do {
            let rows = try store.events(after: after, limit: limit)
            var writer = JSONWriter(capacity: rows.count * 320 + 16)
            var bytes: [UInt8] = []
            bytes.reserveCapacity(rows.count * 320)
            for (cursor, event) in rows {
                writer = JSONWriter(capacity: 320)
                writer.beginObject()
                writer.key("cursor")
                writer.int(Int(cursor))
                writer.member("id", event.id)
                writer.member("type", event.kind.rawValue)
                writer.member("templateId", event.templateID)
                if let revision = event.revision {
                    writer.key("revision")
                    writer.int(revision)
                }
                if let etag = event.etag { writer.member("etag", etag) }
                writer.member("locale", event.locale)
                writer.member("platform", event.platform)
                writer.member("appVersion", event.appVersion)
                if let action = event.actionID { writer.member("actionId", action) }
                if let session = event.sessionID { writer.member("sessionId", session) }
                writer.member("occurredAt", Timestamp.format(milliseconds: event.occurredAt))
                writer.member("receivedAt", Timestamp.format(milliseconds: event.receivedAt))
                writer.key("clockSkewMs")
                writer.int(Int(event.clockSkewMilliseconds))
                writer.endObject()
                bytes += writer.bytes
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
        } catch {
            return AdminAPI.problem(for: error, request: request, logger: logger)
        }
    }
}
