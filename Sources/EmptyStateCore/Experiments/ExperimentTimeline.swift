/// An arm as the analysis needs it: its key and split weight, in variant order (control first).
package struct ExperimentArm: Sendable, Equatable {
    package var key: String
    package var weight: Double

    package init(key: String, weight: Double) {
        self.key = key
        self.weight = weight
    }
}

/// The **cumulative** counts of every arm at the end of one day (or so far today), as the store
/// hands them over: installs exposed since the start and those that converted, per arm in variant
/// order, and per guardrail the same for the guardrail's action.
package struct ExperimentDay: Sendable, Equatable {
    /// The day's label in the chart and the CSV: `YYYY-MM-DD`, UTC.
    package var date: String
    /// One per arm, in variant order (control first). Missing arms count as 0.
    package var arms: [ExperimentArmTally]
    /// One per guardrail of `ExperimentReportSettings.guardrails`, each one per arm: installs
    /// exposed and those that did the guardrail's action. Missing ones count as 0.
    package var guardrails: [[ExperimentArmTally]]
    /// Whether the day is over; only whole days give the recent pace (`ExperimentProgress`).
    package var complete: Bool

    package init(
        date: String,
        arms: [ExperimentArmTally],
        guardrails: [[ExperimentArmTally]] = [],
        complete: Bool = true
    ) {
        self.date = date
        self.arms = arms
        self.guardrails = guardrails
        self.complete = complete
    }
}

/// How an experiment's results are computed: the levels, the minimum, the plan and the guardrails.
package struct ExperimentReportSettings: Sendable, Equatable {
    /// The two-sided false-positive rate over all variants; each comparison gets α / variants.
    package var alpha: Double
    /// The one-sided false-alarm rate of each guardrail over all variants.
    package var guardrailAlpha: Double
    /// Installs every arm needs before its comparison is counted at all.
    package var minimumInstalls: Int
    /// The plan, which sets where the confidence sequences are tightest and what "the planned size"
    /// is. A plan for another number of arms than the experiment's is ignored.
    package var plan: ExperimentPlan?
    /// Where the confidence sequences are tightest (installs of control and a variant) without a plan.
    package var tuningInstalls: Double
    package var guardrails: [ExperimentGuardrail]

    /// - Parameter alpha: the plan's α when omitted and there is a plan, else 0.05.
    package init(
        plan: ExperimentPlan? = nil,
        alpha: Double? = nil,
        guardrailAlpha: Double = 0.05,
        minimumInstalls: Int = ExperimentStatistics.defaultMinimumInstalls,
        tuningInstalls: Double = SequentialTest.defaultTuningInstalls,
        guardrails: [ExperimentGuardrail] = []
    ) {
        self.plan = plan
        self.alpha = alpha ?? plan?.input.alpha ?? 0.05
        self.guardrailAlpha = guardrailAlpha
        self.minimumInstalls = minimumInstalls
        self.tuningInstalls = tuningInstalls
        self.guardrails = guardrails
    }

    /// The plan when it fits `armCount` arms.
    func plan(for armCount: Int) -> ExperimentPlan? {
        plan.flatMap { $0.input.weights.count == armCount ? $0 : nil }
    }
}

/// A variant against control as of one day: the fixed-horizon figures (valid for one look at a
/// size fixed in advance, shown for reference) and the sequential ones (valid at every look, the
/// ones the verdict uses).
package struct ExperimentComparison: Sendable, Equatable {
    /// The difference of the rates (variant − control) with its 95 % interval (unpooled).
    package var fixedHorizon: ProportionEstimate
    /// The two-proportion z-test's p-value.
    package var fixedHorizonPValue: Double
    /// The difference relative to control's rate (`0.1`: +10 %); `nil` when control's rate is 0.
    package var relativeDifference: Double?
    /// `nil` until both arms have the minimum installs.
    package var sequential: SequentialComparison?

    package init(
        fixedHorizon: ProportionEstimate,
        fixedHorizonPValue: Double,
        relativeDifference: Double?,
        sequential: SequentialComparison?
    ) {
        self.fixedHorizon = fixedHorizon
        self.fixedHorizonPValue = fixedHorizonPValue
        self.relativeDifference = relativeDifference
        self.sequential = sequential
    }
}

/// The sequential comparison as of a day: the running confidence sequence and always-valid p-value
/// (see `ConfidenceSequence`).
package struct SequentialComparison: Sendable, Equatable {
    /// The observed difference (variant − control), the running interval and p-value.
    package var difference: Double
    package var lower: Double
    package var upper: Double
    package var pValue: Double
    /// `pValue` below the comparison's α: the interval excludes 0.
    package var significant: Bool
    /// Whether two looks ever contradicted each other: the effect changed over time.
    package var drifted: Bool
    /// The day the running interval counts from: the first day counted, or the day it restarted.
    package var since: String

    package init(
        difference: Double,
        lower: Double,
        upper: Double,
        pValue: Double,
        significant: Bool,
        drifted: Bool,
        since: String
    ) {
        self.difference = difference
        self.lower = lower
        self.upper = upper
        self.pValue = pValue
        self.significant = significant
        self.drifted = drifted
        self.since = since
    }
}

/// One arm as of one day.
package struct ExperimentTimelineArm: Sendable, Equatable {
    package var key: String
    package var installs: Int
    package var conversions: Int
    /// conversions / installs with its 95 % Wilson interval.
    package var rate: ProportionEstimate
    /// `nil` on control.
    package var comparison: ExperimentComparison?

    package init(
        key: String,
        installs: Int,
        conversions: Int,
        rate: ProportionEstimate,
        comparison: ExperimentComparison?
    ) {
        self.key = key
        self.installs = installs
        self.conversions = conversions
        self.rate = rate
        self.comparison = comparison
    }
}

/// Every arm and guardrail as of one day: a point of the results-over-time chart.
package struct ExperimentTimelinePoint: Sendable, Equatable {
    package var date: String
    package var arms: [ExperimentTimelineArm]
    /// One per guardrail of the settings.
    package var guardrails: [GuardrailResult]

    package init(date: String, arms: [ExperimentTimelineArm], guardrails: [GuardrailResult]) {
        self.date = date
        self.arms = arms
        self.guardrails = guardrails
    }
}

/// Results over time: from the cumulative counts of each day, the series of every figure, each day
/// computed from the data up to that day only (the sequential figures run over the days before), so
/// the last point is what the results say now and each earlier point is what they said then.
package enum ExperimentTimeline {
    /// The points, one per day, in the order given (oldest first).
    package static func build(
        arms: [ExperimentArm],
        days: [ExperimentDay],
        settings: ExperimentReportSettings
    ) -> [ExperimentTimelinePoint] {
        guard !arms.isEmpty else { return [] }
        let comparisons = max(arms.count - 1, 1)
        let alpha = settings.alpha / Double(comparisons)
        let guardrailAlpha = settings.guardrailAlpha / Double(comparisons)
        let plan = settings.plan(for: arms.count)
        let tuning = arms.indices.map { plan?.tuningInstalls(variant: $0) ?? settings.tuningInstalls }
        var sequences = [ConfidenceSequence](repeating: ConfidenceSequence(), count: arms.count)
        var since = [String](repeating: "", count: arms.count)
        var guardrailSequences = settings.guardrails.map { _ in
            [GuardrailSequence](repeating: GuardrailSequence(), count: arms.count)
        }
        var points: [ExperimentTimelinePoint] = []
        points.reserveCapacity(days.count)
        for day in days {
            let tallies = arms.indices.map {
                day.arms.indices.contains($0) ? day.arms[$0].clamped : .init(installs: 0, conversions: 0)
            }
            let control = tallies[0]
            var rows: [ExperimentTimelineArm] = []
            for (index, arm) in arms.enumerated() {
                let tally = tallies[index]
                var row = ExperimentTimelineArm(
                    key: arm.key,
                    installs: tally.installs,
                    conversions: tally.conversions,
                    rate: ExperimentStatistics.wilsonInterval(conversions: tally.conversions, installs: tally.installs),
                    comparison: nil
                )
                if index > 0 {
                    var sequential: SequentialComparison?
                    if min(control.installs, tally.installs) >= settings.minimumInstalls {
                        let look = SequentialTest.twoSided(
                            control: control,
                            variant: tally,
                            alpha: alpha,
                            tuningInstalls: tuning[index]
                        )
                        sequences[index].record(look)
                        // One look recorded: the first counted day, or the day the sequence restarted.
                        if sequences[index].looks == 1 { since[index] = day.date }
                        let running = sequences[index]
                        sequential = SequentialComparison(
                            difference: running.difference,
                            lower: running.lower,
                            upper: running.upper,
                            pValue: running.pValue,
                            significant: running.pValue < alpha,
                            drifted: running.drifted,
                            since: since[index]
                        )
                    }
                    row.comparison = ExperimentComparison(
                        fixedHorizon: ExperimentStatistics.differenceInterval(
                            controlConversions: control.conversions,
                            controlInstalls: control.installs,
                            conversions: tally.conversions,
                            installs: tally.installs
                        ),
                        fixedHorizonPValue: ExperimentStatistics.twoProportionPValue(
                            controlConversions: control.conversions,
                            controlInstalls: control.installs,
                            conversions: tally.conversions,
                            installs: tally.installs
                        ),
                        relativeDifference: control.rate > 0 ? (tally.rate - control.rate) / control.rate : nil,
                        sequential: sequential
                    )
                }
                rows.append(row)
            }
            var guardrails: [GuardrailResult] = []
            for (g, guardrail) in settings.guardrails.enumerated() {
                let counts = day.guardrails.indices.contains(g) ? day.guardrails[g] : []
                let tallies = arms.indices.map {
                    counts.indices.contains($0) ? counts[$0].clamped : .init(installs: 0, conversions: 0)
                }
                var comparisons: [GuardrailComparison] = []
                for index in arms.indices.dropFirst() {
                    comparisons.append(
                        guardrailSequences[g][index].record(
                            variant: arms[index].key,
                            control: tallies[0],
                            variant: tallies[index],
                            guardrail: guardrail,
                            alpha: guardrailAlpha,
                            tuningInstalls: tuning[index],
                            counted: min(tallies[0].installs, tallies[index].installs) >= settings.minimumInstalls
                        )
                    )
                }
                guardrails.append(GuardrailResult(key: guardrail.key, harm: guardrail.harm, comparisons: comparisons))
            }
            points.append(ExperimentTimelinePoint(date: day.date, arms: rows, guardrails: guardrails))
        }
        return points
    }

    /// The points as CSV (RFC 4180, CRLF line ends, a header row): one row per day and arm, with
    /// the fixed-horizon and sequential figures and, per guardrail, its rate, harm bounds, p-value
    /// and state. Control's comparison columns are empty, as is every figure not computed yet.
    /// Numbers are written in full precision (shortest round-trip form), rates as fractions.
    package static func csv(_ points: [ExperimentTimelinePoint]) -> String {
        var header = [
            "date", "variant", "installs", "conversions", "rate", "rate_lower", "rate_upper", "difference",
            "relative_difference", "fixed_lower", "fixed_upper", "fixed_p_value", "sequential_lower",
            "sequential_upper", "sequential_p_value", "significant", "drifted",
        ]
        let guardrailKeys = points.first?.guardrails.map(\.key) ?? []
        for key in guardrailKeys {
            header += ["rate", "harm_lower", "harm_upper", "harm_p_value", "state"].map { "guardrail_\(key)_\($0)" }
        }
        var lines = [header.map(field).joined(separator: ",")]
        for point in points {
            for (index, arm) in point.arms.enumerated() {
                let comparison = arm.comparison
                let sequential = comparison?.sequential
                var row = [
                    // A key may start with "-": a spreadsheet would read it as a formula (the numbers'
                    // minus signs are numbers, and stay as they are).
                    point.date, arm.key.hasPrefix("-") ? "'" + arm.key : arm.key, String(arm.installs),
                    String(arm.conversions), number(arm.rate.value),
                    number(arm.rate.lower), number(arm.rate.upper), number(comparison?.fixedHorizon.value),
                    number(comparison?.relativeDifference), number(comparison?.fixedHorizon.lower),
                    number(comparison?.fixedHorizon.upper), number(comparison?.fixedHorizonPValue),
                    number(sequential?.lower), number(sequential?.upper), number(sequential?.pValue),
                    sequential.map { String($0.significant) } ?? "", sequential.map { String($0.drifted) } ?? "",
                ]
                for guardrail in point.guardrails {
                    // Control's row carries control's guardrail rate; the test columns are the variant's.
                    let test = index > 0 ? guardrail.comparisons.first { $0.variant == arm.key } : nil
                    let rate = index > 0 ? test?.rate : guardrail.comparisons.first?.controlRate
                    row += [
                        number(rate), number(test?.lowerBound), number(test?.upperBound), number(test?.pValue),
                        test?.state.rawValue ?? "",
                    ]
                }
                lines.append(row.map(field).joined(separator: ","))
            }
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// The results over time of each segment in one CSV: `csv`'s columns after a first
    /// `segment` column holding the segment's value (empty when unknown; one that starts with
    /// `=`, `+`, `-` or `@` gets a leading `'`, so a spreadsheet does not read it as a formula),
    /// the segments one after another. Segments whose timelines have other guardrails than the
    /// first's cannot happen: they are one experiment's.
    package static func csv(segments: [(value: String?, points: [ExperimentTimelinePoint])]) -> String {
        var lines: [String] = []
        for (index, segment) in segments.enumerated() {
            var value = segment.value ?? ""
            if let first = value.first, "=+-@".contains(first) { value = "'" + value }
            let rows = csv(segment.points).split(separator: "\r\n", omittingEmptySubsequences: true)
            if index == 0, let header = rows.first { lines.append("segment," + header) }
            for row in rows.dropFirst() { lines.append(field(value) + "," + row) }
        }
        if lines.isEmpty { lines.append("segment," + csv([]).split(separator: "\r\n")[0]) }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    private static func number(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "" }
        return value == 0 ? "0" : String(value)
    }

    /// A field quoted when it holds a comma, a quote or a line break (RFC 4180), its quotes doubled.
    private static func field(_ text: String) -> String {
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacing("\"", with: "\"\"") + "\""
    }
}
