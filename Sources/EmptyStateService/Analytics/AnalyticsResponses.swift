import EmptyStateStore

/// The bodies of analytics responses, as `openapi.yaml` names their members, written by
/// `JSONEncoder` (sorted keys).
extension AnalyticsAPI {
    /// `AnalyticsSummary`. `templateId` and `groupBy` are `null` when not asked for;
    /// `updateStates` is there only with `?include=updateStates`.
    struct Summary: Encodable {
        /// Displays, taps per action and the tap-through rate of the totals or of one group.
        struct Row: Encodable {
            var key: String?
            var displays: Int
            var taps: Int
            var tapThroughRate: Double
            var tapsByAction: [String: Int]

            /// - Parameter displaysForRate: what the rate is against (all displays when grouped by
            ///   action, since displays have no action).
            init(_ row: SummaryRow, displaysForRate: Int) {
                key = row.key
                displays = row.displays
                taps = row.taps
                tapThroughRate =
                    displaysForRate == 0 ? 0 : (Double(row.taps) / Double(displaysForRate) * 10_000).rounded() / 10_000
                tapsByAction = row.tapsByAction
            }
        }

        /// The displays of one update state's template on one app version.
        struct UpdateState: Encodable {
            var state: String
            var templateId: String
            var appVersion: String
            var displays: Int
        }

        var from: String
        var to: String
        var templateId: String?
        var groupBy: String?
        var totals: Row
        var groups: [Row]
        var updateStates: [UpdateState]?
        /// Why the counts may be short (`backfill`: events stored before the rollups are still
        /// being counted; `retention`: the window starts before the oldest events kept); absent
        /// when they are complete.
        var partial: [String]?
        var backfill: Backfill?

        /// How far the rollups' backfill is.
        struct Backfill: Encodable {
            var counted: Int
            var total: Int
        }

        private enum CodingKeys: String, CodingKey {
            case from, to, templateId, groupBy, totals, groups, updateStates, partial, backfill
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(from, forKey: .from)
            try container.encode(to, forKey: .to)
            try container.encode(templateId, forKey: .templateId)  // null when absent
            try container.encode(groupBy, forKey: .groupBy)  // null when absent
            try container.encode(totals, forKey: .totals)
            try container.encode(groups, forKey: .groups)
            try container.encodeIfPresent(updateStates, forKey: .updateStates)
            try container.encodeIfPresent(partial, forKey: .partial)
            try container.encodeIfPresent(backfill, forKey: .backfill)
        }
    }

    /// One line of the NDJSON export; optional members are left out when the event has none.
    struct ExportedEvent: Encodable {
        var cursor: Int64
        var id: String
        var type: String
        var templateId: String
        var revision: Int?
        var etag: String?
        var locale: String
        var platform: String
        var appVersion: String
        var actionId: String?
        var sessionId: String?
        var occurredAt: String
        var receivedAt: String
        var clockSkewMs: Int64

        init(cursor: Int64, _ event: AnalyticsEvent) {
            self.cursor = cursor
            id = event.id
            type = event.kind.rawValue
            templateId = event.templateID
            revision = event.revision
            etag = event.etag
            locale = event.locale
            platform = event.platform
            appVersion = event.appVersion
            actionId = event.actionID
            sessionId = event.sessionID
            occurredAt = Timestamp.format(milliseconds: event.occurredAt)
            receivedAt = Timestamp.format(milliseconds: event.receivedAt)
            clockSkewMs = event.clockSkewMilliseconds
        }
    }
}
