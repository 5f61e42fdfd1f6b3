/// How far an experiment is towards its planned installs, and how long the rest should take.
package struct ExperimentProgress: Sendable, Equatable {
    /// Installs of every arm so far, and the plan's (sequential) total.
    package var installs: Int
    package var plannedInstalls: Int
    /// installs / plannedInstalls (above 1 past the plan).
    package var share: Double
    package var reached: Bool
    /// The recent pace: the median of the daily new installs over the last 7 whole days (the
    /// first day, started mid-day, and today so far are left out); `nil` with too few whole days.
    package var dailyInstalls: Double?
    /// Days to the planned installs at that pace; `nil` when unknown or reached.
    package var remainingDays: Int?

    package init(
        installs: Int,
        plannedInstalls: Int,
        share: Double,
        reached: Bool,
        dailyInstalls: Double?,
        remainingDays: Int?
    ) {
        self.installs = installs
        self.plannedInstalls = plannedInstalls
        self.share = share
        self.reached = reached
        self.dailyInstalls = dailyInstalls
        self.remainingDays = remainingDays
    }

    /// The progress of `days` (cumulative counts, oldest first) towards `plan`.
    package static func measure(_ days: [ExperimentDay], plan: ExperimentPlan) -> ExperimentProgress {
        let totals = days.map { $0.arms.map { max($0.installs, 0) }.reduce(0, +) }
        let installs = totals.last ?? 0
        let planned = plan.sequentialTotal
        // Increments between whole days; the first day's count (from the start, mid-day) is no day's pace.
        var increments: [Double] = []
        for index in days.indices.dropFirst() where days[index].complete && days[index - 1].complete {
            increments.append(Double(max(totals[index] - totals[index - 1], 0)))
        }
        let recent = increments.suffix(7).sorted()
        let pace: Double? =
            recent.isEmpty
            ? nil
            : recent.count % 2 == 1
                ? recent[recent.count / 2] : (recent[recent.count / 2 - 1] + recent[recent.count / 2]) / 2
        let reached = installs >= planned
        var remaining: Int?
        if !reached, let pace, pace > 0 {
            remaining = Int(min((Double(planned - installs) / pace).rounded(.up), 1e9))
        }
        return ExperimentProgress(
            installs: installs,
            plannedInstalls: planned,
            share: planned > 0 ? Double(installs) / Double(planned) : 1,
            reached: reached,
            dailyInstalls: pace,
            remainingDays: remaining
        )
    }
}

/// Everything an experiment's results show, from its cumulative daily counts: the fixed-horizon
/// analysis of the latest counts (kept for its figures: z-test, Bayesian chance to beat control,
/// sample-ratio check), the sequential figures day by day with the guardrails (the chart and the
/// CSV), the progress against the plan, and the verdict in words, which uses the sequential figures.
///
/// The entry point for the results endpoint: the store gives the days, the experiment gives the
/// arms, its status and (once stored with it) its plan and guardrails.
package struct ExperimentReport: Sendable, Equatable {
    package var fixedHorizon: ExperimentAnalysis
    package var timeline: [ExperimentTimelinePoint]
    /// `nil` without a plan (or with one for another number of arms).
    package var progress: ExperimentProgress?
    package var decision: ExperimentDecision

    package init(
        fixedHorizon: ExperimentAnalysis,
        timeline: [ExperimentTimelinePoint],
        progress: ExperimentProgress?,
        decision: ExperimentDecision
    ) {
        self.fixedHorizon = fixedHorizon
        self.timeline = timeline
        self.progress = progress
        self.decision = decision
    }

    /// The figures as of now: the last day's point.
    package var latest: ExperimentTimelinePoint? { timeline.last }

    /// The results over time as CSV (see `ExperimentTimeline.csv`).
    package var csv: String { ExperimentTimeline.csv(timeline) }

    /// The report of an experiment.
    /// - Parameters:
    ///   - arms: the variants' keys and weights, control first.
    ///   - days: cumulative counts per day, oldest first; the last is now (it may be today so far).
    ///     A single day is enough: the sequential figures then rest on that one look.
    ///   - status: a draft reports `collecting`; a stopped or shipped experiment without a verdict
    ///     reports `inconclusive` instead of `keep-running`.
    package static func make(
        arms: [ExperimentArm],
        days: [ExperimentDay],
        settings: ExperimentReportSettings,
        status: Experiment.Status
    ) -> ExperimentReport {
        let timeline = ExperimentTimeline.build(arms: arms, days: days, settings: settings)
        let last = days.last?.arms ?? []
        let counts = arms.enumerated().map { index, arm in
            let tally = last.indices.contains(index) ? last[index] : ExperimentArmTally(installs: 0, conversions: 0)
            return ExperimentArmCounts(
                key: arm.key,
                weight: arm.weight,
                installs: tally.installs,
                conversions: tally.conversions
            )
        }
        let fixedHorizon = ExperimentStatistics.analyze(
            counts,
            minimumInstalls: settings.minimumInstalls,
            alpha: settings.alpha
        )
        let plan = settings.plan(for: arms.count)
        let progress = plan.map { ExperimentProgress.measure(days, plan: $0) }
        let decision = ExperimentDecision.decide(
            .init(
                arms: arms,
                latest: timeline.last,
                fixedHorizon: fixedHorizon,
                progress: progress,
                plan: plan,
                settings: settings,
                status: status
            )
        )
        return ExperimentReport(fixedHorizon: fixedHorizon, timeline: timeline, progress: progress, decision: decision)
    }
}
