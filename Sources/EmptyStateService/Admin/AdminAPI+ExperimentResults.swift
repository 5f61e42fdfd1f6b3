import EmptyStateCore
import EmptyStateStore
import HTTPServer
import JSONCoding

/// `GET /v1/admin/experiments/{id}/results`: what an experiment shows so far.
///
/// Three sources, each read once: the exposures (`EventStoring.experimentExposures`, exact
/// distinct installs per variant, their conversions by the experiment's metric, and the installs
/// seen in two variants, excluded), the rollups (events displayed and tapped per variant, over
/// the window the experiment ran: `startedAt` to `stoppedAt`, or now), and the statistics made of
/// the installs (`ExperimentStatistics.analyze`: intervals, z-test, chance to beat control, the
/// sample-ratio check, the verdict). A draft never ran: zero counts, verdict `collecting`.
extension AdminAPI {
    func registerExperimentResults(on router: inout Router) {
        router.get(
            "/v1/admin/experiments/{id}/results",
            blocking: true,
            route(.viewer, subject: .experiment) { request, _ in try experimentResults(request) }
        )
    }

    private func experimentResults(_ request: HTTPRequest) throws -> HTTPResponse {
        let experiment = try store.experiment(id: request.pathParameters["id"] ?? "").experiment
        guard let events else {
            throw ProblemDetails(
                status: 503,
                slug: "analytics-unavailable",
                title: "Analytics Unavailable",
                detail: "This service was started without an event store."
            )
        }
        var exposures = ExperimentExposures(perVariant: [], crossed: 0)
        var rows: [String: SummaryRow] = [:]
        if experiment.status != .draft, let started = experiment.startedAt.flatMap(Timestamp.parse) {
            exposures = try events.experimentExposures(experimentID: experiment.id, metric: experiment.metric)
            // The rollups count by the hour: the window's edges widen to whole hours, which only
            // ever adds events of this experiment (its variant is in the key).
            let stopped = experiment.stoppedAt.flatMap(Timestamp.parse) ?? Timestamp.nowMilliseconds()
            for row in try AnalyticsSummaries(store: events).variants(
                from: started,
                to: stopped + 1,
                templateID: experiment.templateID
            ) {
                if let key = row.key { rows[key] = row }
            }
        }
        let arms = experiment.variants.map { variant in
            let counts = exposures[variant.key]
            return ExperimentArmCounts(
                key: variant.key,
                weight: variant.weight,
                installs: counts.installs,
                conversions: counts.conversions
            )
        }
        let analysis = ExperimentStatistics.analyze(arms)
        let variants = zip(experiment.variants, analysis.arms).enumerated().map { index, pair in
            let (variant, arm) = pair
            let events = rows["\(experiment.id)/\(variant.key)"]
            let tapped =
                switch experiment.metric {
                case .anyTap: events?.taps ?? 0
                case .tap(let action): events?.tapsByAction[action] ?? 0
                }
            return ExperimentResults.Variant(
                key: variant.key,
                control: index == 0,
                weight: variant.weight,
                installs: arm.installs,
                conversions: arm.conversions,
                displayed: events?.displays ?? 0,
                tapped: tapped,
                rate: .init(arm.rate),
                difference: arm.difference.map(ExperimentResults.Estimate.init),
                pValue: arm.pValue,
                chanceToBeatControl: arm.chanceToBeatControl,
                significant: arm.significant
            )
        }
        return try .json(
            ExperimentResults(
                experimentId: experiment.id,
                templateId: experiment.templateID,
                status: experiment.status.rawValue,
                primaryMetric: ExperimentResults.Metric(experiment.metric),
                minimumInstallsPerVariant: ExperimentStatistics.defaultMinimumInstalls,
                enoughData: analysis.enoughData,
                excludedInstalls: exposures.crossed,
                sampleRatio: .init(
                    chiSquare: analysis.sampleRatio.chiSquare,
                    pValue: analysis.sampleRatio.pValue,
                    mismatch: analysis.sampleRatio.mismatch
                ),
                verdict: analysis.verdict.rawValue,
                winner: analysis.winner,
                variants: variants
            )
        )
    }

    /// `AdminExperimentResults`, as the contract of issue 24 spells it.
    struct ExperimentResults: Encodable {
        struct Metric: Encodable {
            var type: String
            var action: String?

            init(_ metric: Experiment.Metric) {
                switch metric {
                case .tap(let action): (type, self.action) = ("tap", action)
                case .anyTap: (type, action) = ("anyTap", nil)
                }
            }
        }

        struct SampleRatio: Encodable {
            var chiSquare: Double
            var pValue: Double
            var mismatch: Bool
        }

        struct Estimate: Encodable {
            var value: Double
            var lower: Double
            var upper: Double

            init(_ estimate: ProportionEstimate) {
                value = estimate.value
                lower = estimate.lower
                upper = estimate.upper
            }
        }

        /// One variant: installs and conversions from the exposures, `displayed` and `tapped`
        /// (taps that count for the metric) as events from the rollups, and the statistics; the
        /// comparison with control is absent on control itself.
        struct Variant: Encodable {
            var key: String
            var control: Bool
            var weight: Double
            var installs: Int
            var conversions: Int
            var displayed: Int
            var tapped: Int
            var rate: Estimate
            var difference: Estimate?
            var pValue: Double?
            var chanceToBeatControl: Double?
            var significant: Bool?
        }

        var experimentId: String
        var templateId: String
        var status: String
        var primaryMetric: Metric
        var minimumInstallsPerVariant: Int
        var enoughData: Bool
        var excludedInstalls: Int
        var sampleRatio: SampleRatio
        var verdict: String
        var winner: String?
        var variants: [Variant]
    }
}
