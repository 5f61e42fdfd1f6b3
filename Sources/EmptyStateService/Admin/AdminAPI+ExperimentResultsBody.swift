import EmptyStateCore
import EmptyStateStore

extension AdminAPI {
    /// `AdminExperimentResults` in openapi.yaml: the verdict (sequential) in a word and in words,
    /// the plan and the progress against it, the excluded installs by reason, every variant with
    /// its fixed-horizon and sequential figures, and the results over time.
    ///
    /// Optional members are absent rather than `null` when they do not apply (control has no
    /// comparison; no plan, no progress).
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

        /// Installs left out, by reason (`ExperimentDailyCounts.Exclusions`).
        struct Excluded: Encodable {
            var crossed: Int
            var override: Int
            var outsideTarget: Int
            var notAssigned: Int
            var beforeStart: Int
            var afterStop: Int
        }

        /// The always-valid figures of a variant against control (`SequentialComparison`).
        struct Sequential: Encodable {
            var difference: Double
            var lower: Double
            var upper: Double
            var pValue: Double
            var significant: Bool
            var drifted: Bool
            var since: String

            init(_ comparison: SequentialComparison) {
                difference = comparison.difference
                lower = comparison.lower
                upper = comparison.upper
                pValue = comparison.pValue
                significant = comparison.significant
                drifted = comparison.drifted
                since = comparison.since
            }
        }

        /// One variant: installs and conversions that count, `displayed` and `tapped` (taps that
        /// count for the metric) as events from the rollups, the fixed-horizon figures of the
        /// latest counts (`difference`, `pValue`, `chanceToBeatControl`, `significant`: valid for
        /// one look at a planned size) and the sequential ones (valid at every look; the verdict's).
        struct Variant: Encodable {
            var key: String
            var control: Bool
            var weight: Double
            var installs: Int
            var conversions: Int
            /// Absent in a segment's results: the rollups keep no install attributes.
            var displayed: Int?
            var tapped: Int?
            var rate: Estimate
            var difference: Estimate?
            var pValue: Double?
            var chanceToBeatControl: Double?
            var significant: Bool?
            var sequential: Sequential?
        }

        struct Warning: Encodable {
            var kind: String
            var variant: String
            var guardrail: String?
            var message: String
        }

        /// A guardrail as of now: its worst state over the variants, and each variant's test of
        /// harm (one-sided, always-valid; `GuardrailComparison`).
        struct Guardrail: Encodable {
            struct Comparison: Encodable {
                var variant: String
                var controlRate: Double
                var rate: Double
                var harm: Double
                var lowerBound: Double
                var upperBound: Double
                var pValue: Double
                var margin: Double
                var state: String
                var drifted: Bool
            }

            var key: String
            var harm: String
            var state: String
            var variants: [Comparison]
        }

        /// The experiment's plan with the planner's answer and the expected duration.
        struct Plan: Encodable {
            struct Effect: Encodable {
                var relative: Double?
                var absolute: Double?
            }

            struct Duration: Encodable {
                var basis: String
                var dailyInstalls: Double
                var days: Int?
                var recommendedDays: Int?
            }

            var baselineRate: Double
            var minimumDetectableEffect: Effect
            var alpha: Double
            var power: Double
            var absoluteEffect: Double
            var relativeEffect: Double
            var fixedHorizonInstalls: [Int]
            var sequentialInstalls: [Int]
            var expectedDuration: Duration?
        }

        struct Progress: Encodable {
            var installs: Int
            var plannedInstalls: Int
            var share: Double
            var reached: Bool
            var dailyInstalls: Double?
            var remainingDays: Int?
        }

        /// One day of the results over time: every arm's cumulative counts and, for variants, the
        /// fixed-horizon and sequential intervals of the difference as of that day.
        struct Point: Encodable {
            struct Arm: Encodable {
                var key: String
                var installs: Int
                var conversions: Int
                var rate: Double
                var difference: Estimate?
                var sequential: Sequential?
            }

            var date: String
            var variants: [Arm]
        }

        var experimentId: String
        var templateId: String
        var status: String
        var primaryMetric: Metric
        var minimumInstallsPerVariant: Int
        var enoughData: Bool
        var excludedInstalls: Int
        var excluded: Excluded
        var sampleRatio: SampleRatio
        var verdict: String
        var winner: String?
        var verdictText: String
        var warnings: [Warning]
        var guardrails: [Guardrail]
        var fixedHorizonVerdict: String
        var fixedHorizonWinner: String?
        var plan: Plan?
        var progress: Progress?
        var variants: [Variant]
        var timeline: [Point]
        /// With `?segment=`: the attribute, and the results of each of its values.
        var segment: String?
        var segments: [Segment]?

        /// One value of the segment asked for and the results of its installs, in the same shape
        /// as the whole; `value` is `null` for installs whose attribute is unknown.
        struct Segment: Encodable {
            var value: String?
            var results: ExperimentResults

            enum CodingKeys: String, CodingKey { case value, results }

            func encode(to encoder: any Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(value, forKey: .value)  // `null` when unknown, not absent
                try container.encode(results, forKey: .results)
            }
        }
    }
}

extension AdminAPI.ExperimentResults {
    /// The results of `experiment` from its report, exclusions, events per variant (rollup rows by
    /// `<experimentId>/<key>`; `nil` for a segment, which has none) and the plan's expected
    /// duration.
    init(
        experiment: Experiment,
        report: ExperimentReport,
        excluded: ExperimentDailyCounts.Exclusions,
        events: [String: SummaryRow]?,
        duration: ExperimentDuration?
    ) {
        let analysis = report.fixedHorizon
        let latest = report.latest
        variants = zip(experiment.variants, analysis.arms).enumerated().map { index, pair in
            let (variant, arm) = pair
            let row = events?["\(experiment.id)/\(variant.key)"]
            let tapped: Int? =
                switch experiment.metric {
                case .anyTap: row?.taps ?? 0
                case .tap(let action): row?.tapsByAction[action] ?? 0
                }
            let sequential = latest?.arms.first { $0.key == variant.key }?.comparison?.sequential
            return Variant(
                key: variant.key,
                control: index == 0,
                weight: variant.weight,
                installs: arm.installs,
                conversions: arm.conversions,
                displayed: events == nil ? nil : row?.displays ?? 0,
                tapped: events == nil ? nil : tapped,
                rate: .init(arm.rate),
                difference: arm.difference.map(Estimate.init),
                pValue: arm.pValue,
                chanceToBeatControl: arm.chanceToBeatControl,
                significant: arm.significant,
                sequential: sequential.map(Sequential.init)
            )
        }
        experimentId = experiment.id
        templateId = experiment.templateID
        status = experiment.status.rawValue
        primaryMetric = Metric(experiment.metric)
        minimumInstallsPerVariant = ExperimentStatistics.defaultMinimumInstalls
        enoughData = analysis.enoughData
        excludedInstalls = excluded.total
        self.excluded = Excluded(
            crossed: excluded.crossed,
            override: excluded.override,
            outsideTarget: excluded.outsideTarget,
            notAssigned: excluded.notAssigned,
            beforeStart: excluded.beforeStart,
            afterStop: excluded.afterStop
        )
        sampleRatio = SampleRatio(
            chiSquare: analysis.sampleRatio.chiSquare,
            pValue: analysis.sampleRatio.pValue,
            mismatch: analysis.sampleRatio.mismatch
        )
        verdict = report.decision.outcome.rawValue
        winner = report.decision.winner
        verdictText = report.decision.sentence
        warnings = report.decision.warnings.map {
            Warning(kind: $0.kind.rawValue, variant: $0.variant, guardrail: $0.guardrail, message: $0.message)
        }
        // Before any day (a draft) a guardrail has no comparison yet: it is listed, inconclusive.
        guardrails = experiment.guardrails.enumerated().map { index, guardrail in
            let result = latest?.guardrails.indices.contains(index) == true ? latest?.guardrails[index] : nil
            return Guardrail(
                key: guardrail.key,
                harm: guardrail.harm.rawValue,
                state: (result?.state ?? .inconclusive).rawValue,
                variants: (result?.comparisons ?? []).map {
                    .init(
                        variant: $0.variant,
                        controlRate: $0.controlRate,
                        rate: $0.rate,
                        harm: $0.harm,
                        lowerBound: $0.lowerBound,
                        upperBound: $0.upperBound,
                        pValue: $0.pValue,
                        margin: $0.margin,
                        state: $0.state.rawValue,
                        drifted: $0.drifted
                    )
                }
            )
        }
        fixedHorizonVerdict = analysis.verdict.rawValue
        fixedHorizonWinner = analysis.winner
        if let stored = experiment.plan, let sized = experiment.sizedPlan {
            let effect: Plan.Effect =
                switch stored.minimumDetectableEffect {
                case .relative(let value): .init(relative: value)
                case .absolute(let value): .init(absolute: value)
                }
            plan = Plan(
                baselineRate: stored.baselineRate,
                minimumDetectableEffect: effect,
                alpha: stored.alpha,
                power: stored.power,
                absoluteEffect: sized.absoluteEffect,
                relativeEffect: sized.relativeEffect,
                fixedHorizonInstalls: sized.fixedHorizonInstalls,
                sequentialInstalls: sized.sequentialInstalls,
                expectedDuration: duration.map {
                    .init(
                        basis: $0.basis.rawValue,
                        dailyInstalls: $0.dailyInstalls,
                        days: $0.days,
                        recommendedDays: $0.recommendedDays
                    )
                }
            )
        }
        progress = report.progress.map {
            Progress(
                installs: $0.installs,
                plannedInstalls: $0.plannedInstalls,
                share: $0.share,
                reached: $0.reached,
                dailyInstalls: $0.dailyInstalls,
                remainingDays: $0.remainingDays
            )
        }
        timeline = report.timeline.map { point in
            Point(
                date: point.date,
                variants: point.arms.map { arm in
                    Point.Arm(
                        key: arm.key,
                        installs: arm.installs,
                        conversions: arm.conversions,
                        rate: arm.rate.value,
                        difference: arm.comparison.map { Estimate($0.fixedHorizon) },
                        sequential: arm.comparison?.sequential.map(Sequential.init)
                    )
                }
            )
        }
    }
}
