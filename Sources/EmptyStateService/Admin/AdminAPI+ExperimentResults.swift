import EmptyStateCore
import EmptyStateStore
import HTTPServer
import JSONCoding

/// `GET /v1/admin/experiments/{id}/results` and `…/results/export`: what an experiment shows so
/// far, and its results over time as CSV; with `?segment=` (`ExperimentSegment`), each value of
/// that install attribute's results too, made the same way from its installs only.
///
/// Three sources, each read once: the installs by variant and UTC day inside the running window
/// (`EventStoring.experimentDailyCounts`: exact, per install, the excluded ones by reason; once
/// more per guardrail, with its action as the metric), the
/// rollups (events displayed and tapped per variant over the window, for reference), and for the
/// plan's expected duration the template's displays of the last 28 whole days. The counts become
/// cumulative days, and `ExperimentReport.make` turns them into the sequential figures day by day
/// (the verdict and its words rest on them), the fixed-horizon figures of the latest counts (shown
/// beside them), and the progress against the experiment's plan.
///
/// **Windows.** A draft never ran: zero counts, verdict `collecting`, every install it saw is
/// "before start". A running experiment counts from `startedAt` to now; a stopped or shipped one
/// from `startedAt` to `stoppedAt`, so nothing an app sends after the stop moves its results.
extension AdminAPI {
    func registerExperimentResults(on router: inout Router) {
        router.get(
            "/v1/admin/experiments/{id}/results",
            blocking: true,
            route(.viewer, subject: .experiment) { request, _ in try experimentResults(request) }
        )
        router.get(
            "/v1/admin/experiments/{id}/results/export",
            blocking: true,
            route(.viewer, subject: .experiment) { request, _ in try experimentResultsExport(request) }
        )
    }

    /// How many whole days of the template's displays the expected duration reads.
    static let recentDisplayDays: Int64 = 28

    private func experimentResults(_ request: HTTPRequest) throws -> HTTPResponse {
        let segment = try Self.segmentParameter(request)
        let experiment = try store.experiment(id: request.pathParameters["id"] ?? "").experiment
        let events = try requireEvents()
        let now = Timestamp.nowMilliseconds()
        let (report, counts, window) = try report(experiment, events: events, now: now)
        var rows: [String: SummaryRow] = [:]
        if let window {
            // The rollups count by the hour: the window's edges widen to whole hours, which only
            // ever adds events of this experiment (its variant is in the key).
            for row in try AnalyticsSummaries(store: events).variants(
                from: window.from,
                to: min(window.to, now) + 1,
                templateID: experiment.templateID
            ) {
                if let key = row.key { rows[key] = row }
            }
        }
        let duration = try expectedDuration(experiment, events: events, now: now)
        var results = ExperimentResults(
            experiment: experiment,
            report: report,
            excluded: counts.excluded,
            events: rows,
            duration: duration
        )
        if let segment {
            results.segment = segment.rawValue
            results.segments = try segmentResults(experiment, by: segment, events: events, now: now)
        }
        return try .json(results)
    }

    /// `segment`, when given: one of `ExperimentSegment`, else `400 invalid-parameter` naming it (as
    /// every other query parameter of the API).
    static func segmentParameter(_ request: HTTPRequest) throws -> ExperimentSegment? {
        guard let text = request.queryValue("segment") else { return nil }
        guard let segment = ExperimentSegment(rawValue: text) else {
            throw ProblemDetails.invalidParameters(
                [
                    .init(
                        .parameter("segment"),
                        "one of \(ExperimentSegment.allCases.map(\.rawValue).joined(separator: ", "))"
                    )
                ],
                detail: "A query parameter is invalid."
            )
        }
        return segment
    }

    /// The results of each value of `segment`, each made as the whole is (same window, plan,
    /// guardrails and verdict rules) from the installs in that segment only
    /// (`EventStoring.experimentSegmentCounts`). The rollups keep no install attributes, so a
    /// segment's variants have no `displayed` and `tapped`, and its plan no expected duration.
    /// Known values come first (app versions in SemVer order, others bytewise), unknown last.
    private func segmentResults(
        _ experiment: Experiment,
        by segment: ExperimentSegment,
        events: any EventStoring,
        now: Int64
    ) throws -> [ExperimentResults.Segment] {
        try segmentReports(experiment, by: segment, events: events, now: now).map { entry in
            ExperimentResults.Segment(
                value: entry.value,
                results: ExperimentResults(
                    experiment: experiment,
                    report: entry.report,
                    excluded: entry.excluded,
                    events: nil,
                    duration: nil
                )
            )
        }
    }

    /// Each value of `segment` with its report and exclusions, in the order the results list them.
    private func segmentReports(
        _ experiment: Experiment,
        by segment: ExperimentSegment,
        events: any EventStoring,
        now: Int64
    ) throws -> [(value: String?, report: ExperimentReport, excluded: ExperimentDailyCounts.Exclusions)] {
        let window = Self.countingWindow(experiment)
        let read = { (metric: Experiment.Metric) throws -> [ExperimentSegmentCounts] in
            try events.experimentSegmentCounts(
                experimentID: experiment.id,
                metric: metric,
                from: window?.from ?? .max,
                to: window?.to ?? .max,
                segment: segment
            )
        }
        let metric = try read(experiment.metric)
        let guardrails = try experiment.guardrails.map { try read(.tap(action: $0.key)) }
        func counts(_ list: [ExperimentSegmentCounts], _ value: String?) -> ExperimentDailyCounts {
            list.first { $0.value == value }?.counts ?? ExperimentDailyCounts(days: [], excluded: .init())
        }
        return Self.sortedSegments(metric, by: segment).map { entry in
            let (report, excluded) = makeReport(
                experiment,
                counts: entry.counts,
                guardrails: guardrails.map { counts($0, entry.value) },
                now: now
            )
            return (entry.value, report, excluded)
        }
    }

    /// Segments in the order the results list them: app versions by SemVer precedence (those
    /// that are not SemVer after, bytewise), other values bytewise, the unknown segment last.
    static func sortedSegments(
        _ segments: [ExperimentSegmentCounts],
        by segment: ExperimentSegment
    ) -> [ExperimentSegmentCounts] {
        guard segment == .appVersion else { return segments }
        return segments.sorted { a, b in
            switch (a.value, b.value) {
            case (let a?, let b?):
                switch (AppVersion(a), AppVersion(b)) {
                case (let x?, let y?): x != y ? x < y : a.utf8.lexicographicallyPrecedes(b.utf8)
                case (_?, nil): true
                case (nil, _?): false
                case (nil, nil): a.utf8.lexicographicallyPrecedes(b.utf8)
                }
            case (_?, nil): true
            case (nil, _): false
            }
        }
    }

    private func experimentResultsExport(_ request: HTTPRequest) throws -> HTTPResponse {
        let segment = try Self.segmentParameter(request)
        let experiment = try store.experiment(id: request.pathParameters["id"] ?? "").experiment
        let events = try requireEvents()
        let now = Timestamp.nowMilliseconds()
        let csv: String
        if let segment {
            csv = ExperimentTimeline.csv(
                segments: try segmentReports(experiment, by: segment, events: events, now: now).map {
                    (value: $0.value, points: $0.report.timeline)
                }
            )
        } else {
            csv = try report(experiment, events: events, now: now).0.csv
        }
        return HTTPResponse(
            status: 200,
            headers: [
                ("Content-Type", "text/csv; charset=utf-8"),
                ("Content-Disposition", "attachment; filename=\"\(experiment.id)-results.csv\""),
                ("Cache-Control", "no-store"),
                ("X-Content-Type-Options", "nosniff"),
            ],
            body: .bytes(Array(csv.utf8))
        )
    }

    private func requireEvents() throws -> any EventStoring {
        guard let events else {
            throw ProblemDetails(
                status: 503,
                slug: "analytics-unavailable",
                title: "Analytics Unavailable",
                detail: "This service was started without an event store."
            )
        }
        return events
    }

    /// The window an experiment's installs count in (ms, inclusive), `nil` for one that never
    /// ran (a draft). The stop is stamped in whole seconds (dropping the fraction): its second
    /// counts.
    static func countingWindow(_ experiment: Experiment) -> (from: Int64, to: Int64)? {
        guard experiment.status != .draft, let started = experiment.startedAt.flatMap(Timestamp.parse) else {
            return nil
        }
        let stopped = experiment.stoppedAt.flatMap(Timestamp.parse).map { $0 + 999 }
        return (started, stopped ?? .max)
    }

    /// The experiment's report as of `now`, the counts it was made of, and its window (`nil` for
    /// an experiment that never ran).
    private func report(
        _ experiment: Experiment,
        events: any EventStoring,
        now: Int64
    ) throws -> (ExperimentReport, ExperimentDailyCounts, (from: Int64, to: Int64)?) {
        let window = Self.countingWindow(experiment)
        // A draft reads over no window: its installs were all seen before any start.
        let read = { (metric: Experiment.Metric) throws -> ExperimentDailyCounts in
            try events.experimentDailyCounts(
                experimentID: experiment.id,
                metric: metric,
                from: window?.from ?? .max,
                to: window?.to ?? .max
            )
        }
        let counts = try read(experiment.metric)
        // A guardrail's rate is read like the metric's, with its action converting.
        let guardrails = window == nil ? [] : try experiment.guardrails.map { try read(.tap(action: $0.key)) }
        let (report, excluded) = makeReport(experiment, counts: counts, guardrails: guardrails, now: now)
        return (report, ExperimentDailyCounts(days: window == nil ? [] : counts.days, excluded: excluded), window)
    }

    /// The report of `counts` (the whole experiment's or a segment's) and the exclusions to show
    /// beside it: for a draft, no days, and every install it saw before any start.
    private func makeReport(
        _ experiment: Experiment,
        counts: ExperimentDailyCounts,
        guardrails: [ExperimentDailyCounts],
        now: Int64
    ) -> (ExperimentReport, ExperimentDailyCounts.Exclusions) {
        var days: [ExperimentDay] = []
        if let window = Self.countingWindow(experiment) {
            days = Self.cumulativeDays(
                counts,
                guardrails: guardrails,
                variants: experiment.variants.map(\.key),
                from: window.from,
                to: window.to == .max ? now : window.to,
                now: now
            )
        }
        let report = ExperimentReport.make(
            arms: experiment.variants.map { ExperimentArm(key: $0.key, weight: $0.weight) },
            days: days,
            settings: ExperimentReportSettings(plan: experiment.sizedPlan, guardrails: experiment.guardrails),
            status: experiment.status
        )
        return (report, counts.excluded)
    }

    /// One cumulative day per UTC day from `from`'s to `to`'s, each arm in variant order: what
    /// the results over time are made of. A count dated after `to` (a clock ahead) goes to the
    /// last day; a day is complete once it is over (the pace of `ExperimentProgress` reads those).
    /// - Parameter guardrails: the counts read with each guardrail's action as the metric: the
    ///   same installs, their taps of that action as conversions.
    static func cumulativeDays(
        _ counts: ExperimentDailyCounts,
        guardrails: [ExperimentDailyCounts] = [],
        variants: [String],
        from: Int64,
        to: Int64,
        now: Int64
    ) -> [ExperimentDay] {
        let dayLength = ExperimentDailyCounts.dayMilliseconds
        let first = from / dayLength
        let last = max(first, max(to, from) / dayLength)
        let arms = cumulativeTallies(counts, variants: variants, first: first, last: last)
        let guarded = guardrails.map { cumulativeTallies($0, variants: variants, first: first, last: last) }
        return (first...last).enumerated().map { offset, day in
            ExperimentDay(
                date: String(Timestamp.format(milliseconds: day * dayLength).prefix(10)),
                arms: arms[offset],
                guardrails: guarded.map { $0[offset] },
                complete: (day + 1) * dayLength <= now
            )
        }
    }

    /// Per day from `first` to `last` (UTC day numbers), each arm's cumulative installs and
    /// conversions; counts after `last` go to the last day.
    private static func cumulativeTallies(
        _ counts: ExperimentDailyCounts,
        variants: [String],
        first: Int64,
        last: Int64
    ) -> [[ExperimentArmTally]] {
        var installs = [Int](repeating: 0, count: variants.count)
        var conversions = [Int](repeating: 0, count: variants.count)
        var index = counts.days.startIndex
        var result: [[ExperimentArmTally]] = []
        result.reserveCapacity(Int(last - first + 1))
        for day in first...last {
            while index < counts.days.endIndex, counts.days[index].day <= day || day == last {
                let row = counts.days[index]
                if let arm = variants.firstIndex(of: row.variant) {
                    installs[arm] += row.installs
                    conversions[arm] += row.conversions
                }
                index += 1
            }
            result.append(zip(installs, conversions).map { ExperimentArmTally(installs: $0, conversions: $1) })
        }
        return result
    }

    /// How long the experiment's plan takes at the template's displays of the recent whole days
    /// (`ExperimentDuration`, basis `displays`); `nil` without a plan.
    private func expectedDuration(
        _ experiment: Experiment,
        events: any EventStoring,
        now: Int64
    ) throws -> ExperimentDuration? {
        guard let plan = experiment.sizedPlan else { return nil }
        let recent = try recentDailyDisplays(templateID: experiment.templateID, events: events, now: now)
        return ExperimentDuration.estimate(
            installs: plan.sequentialTotal,
            recentDays: recent,
            coverage: experiment.coverage,
            basis: .displays
        )
    }

    /// The template's displays on each of the last `recentDisplayDays` whole UTC days, oldest
    /// first, days without any included as 0.
    func recentDailyDisplays(templateID: String, events: any EventStoring, now: Int64) throws -> [Int] {
        let dayLength = ExperimentDailyCounts.dayMilliseconds
        let today = now / dayLength * dayLength
        let from = today - Self.recentDisplayDays * dayLength
        let summary = try AnalyticsSummaries(store: events).summary(
            from: from,
            to: today,
            templateID: templateID,
            groupBy: .day
        )
        var byDay: [String: Int] = [:]
        for row in summary.groups { if let key = row.key { byDay[key] = row.displays } }
        return (0..<Self.recentDisplayDays).map { offset in
            byDay[String(Timestamp.format(milliseconds: from + offset * dayLength).prefix(10)), default: 0]
        }
    }
}
