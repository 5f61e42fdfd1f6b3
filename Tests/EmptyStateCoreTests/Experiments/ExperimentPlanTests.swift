import EmptyStateCore
import Testing

/// The planner against the formats-and-experiments note (10 % → 11 %, α 0.05, power 0.8: about
/// 14,750 installs per arm) and against sample sizes found independently by root finding on the
/// tests' power functions (`Tests/fixtures/experiments/sequential_reference.py`, SciPy's `brentq`),
/// then its refusals and the duration estimate.
@Suite struct ExperimentPlanTests {
    @Test func theNotesFigure() throws {
        let plan = try ExperimentPlan.make(.init(baselineRate: 0.10, minimumDetectableEffect: .relative(0.10)))
        // 14,750.8 by the pooled-null formula; the arcsine (Cohen's h) approximation gives 14,744.
        #expect(plan.fixedHorizonInstalls == [14751, 14751])
        #expect(plan.fixedHorizonTotal == 29502)
        #expect(abs(plan.absoluteEffect - 0.01) < 1e-15 && abs(plan.relativeEffect - 0.1) < 1e-15)
        #expect(plan.comparisonAlpha == 0.05)
        // The sequential test pays about 1.9 times the installs for being safe to read any day.
        #expect(plan.sequentialInstalls == [28242, 28242])
        #expect(plan.tuningInstalls(variant: 1) == 56484)
        let absolute = try ExperimentPlan.make(.init(baselineRate: 0.10, minimumDetectableEffect: .absolute(0.01)))
        #expect(absolute.fixedHorizonInstalls == plan.fixedHorizonInstalls)
        #expect(absolute.sequentialInstalls == plan.sequentialInstalls)
    }

    @Test(arguments: [
        // (baseline, absolute effect, alpha per comparison, power, nB/nA, fixed nA, sequential nA)
        (0.1, 0.01, 0.05, 0.8, 1.0, 14750.790469044943, 28241.017847827083),
        (0.1, -0.01, 0.05, 0.8, 1.0, 13494.96970644355, 25836.24783417497),
        (0.02, 0.004, 0.05, 0.9, 1.0, 28257.63718070481, 50107.95994364741),
        (0.3, 0.03, 0.025, 0.8, 0.5, 6807.273848150576, 12305.770377287126),
        (0.5, 0.1, 0.05, 0.8, 3.0, 256.7229286647329, 495.9838153157502),
        (0.001, 0.0005, 0.05, 0.8, 1.0, 78389.50739968506, 150102.73828964826),
    ])
    func sampleSizesMatchRootFinding(
        _ baseline: Double,
        _ delta: Double,
        _ alpha: Double,
        _ power: Double,
        _ ratio: Double,
        _ fixed: Double,
        _ sequential: Double
    ) {
        let f = ExperimentPlan.fixedHorizonControl(
            baseline: baseline,
            delta: delta,
            alpha: alpha,
            power: power,
            ratio: ratio
        )
        let s = ExperimentPlan.sequentialControl(
            baseline: baseline,
            delta: delta,
            alpha: alpha,
            power: power,
            ratio: ratio
        )
        #expect(abs(f - fixed) <= fixed * 1e-10, "fixed \(f) vs \(fixed)")
        #expect(abs(s - sequential) <= sequential * 1e-10, "sequential \(s) vs \(sequential)")
    }

    @Test func severalVariantsShareAlphaAndControlCarriesTheMost() throws {
        // Control weighs twice each variant: k = 0.5, α' = 0.05 / 2 (the fourth vector above).
        let plan = try ExperimentPlan.make(
            .init(baselineRate: 0.3, minimumDetectableEffect: .absolute(0.03), weights: [0.5, 0.25, 0.25])
        )
        #expect(plan.comparisonAlpha == 0.025)
        #expect(plan.fixedHorizonInstalls == [6808, 3404, 3404])
        #expect(plan.sequentialInstalls == [12306, 6153, 6153])
        #expect(plan.tuningInstalls(variant: 2) == 18459)
        #expect(plan.sequentialTotal == 24612)
    }

    @Test(arguments: [
        // The reference script's (baseline, control installs, alpha, power, nB/nA) as total installs
        // and weights, with its fixed-horizon and sequential MDE (rate points).
        MDE(
            baseline: 0.1,
            total: 29502,
            alpha: 0.05,
            power: 0.8,
            weights: [0.5, 0.5],
            fixed: 0.009999927458253689,
            sequential: 0.013948981473285977
        ),
        MDE(
            baseline: 0.05,
            total: 4000,
            alpha: 0.05,
            power: 0.8,
            weights: [0.5, 0.5],
            fixed: 0.021125792092015965,
            sequential: 0.030186636758384757
        ),
        MDE(
            baseline: 0.2,
            total: 150_000,
            alpha: 0.025,
            power: 0.9,
            weights: [1.0 / 3, 2.0 / 3],
            fixed: 0.0077789589382037,
            sequential: 0.010053681457510052
        ),
    ])
    func minimumDetectableEffectInvertsThePlan(_ vector: MDE) throws {
        let fixed = try ExperimentPlan.minimumDetectableEffect(
            baselineRate: vector.baseline,
            totalInstalls: vector.total,
            alpha: vector.alpha,
            power: vector.power,
            weights: vector.weights,
            sequential: false
        )
        let sequential = try ExperimentPlan.minimumDetectableEffect(
            baselineRate: vector.baseline,
            totalInstalls: vector.total,
            alpha: vector.alpha,
            power: vector.power,
            weights: vector.weights,
            sequential: true
        )
        #expect(abs((fixed ?? 0) - vector.fixed) < 1e-9, "\(String(describing: fixed))")
        #expect(abs((sequential ?? 0) - vector.sequential) < 1e-9, "\(String(describing: sequential))")
    }

    struct MDE: Sendable, CustomTestStringConvertible {
        var baseline: Double
        var total: Int
        var alpha: Double
        var power: Double
        var weights: [Double]
        var fixed: Double
        var sequential: Double
        var testDescription: String { "\(baseline) at \(total) installs split \(weights)" }
    }

    @Test func anEffectTooSmallForTheTrafficHasNoAnswer() throws {
        #expect(
            try ExperimentPlan.minimumDetectableEffect(baselineRate: 0.5, totalInstalls: 4, sequential: true) == nil
        )
    }

    @Test func refusalsNameEveryBadField() throws {
        func issues(_ input: ExperimentPlan.Input) -> [ValidationIssue] {
            do {
                _ = try ExperimentPlan.make(input)
                return []
            } catch {
                return error.issues
            }
        }
        let all = issues(
            .init(baselineRate: 1.2, minimumDetectableEffect: .absolute(0), alpha: 0, power: 1, weights: [1])
        )
        #expect(all.map(\.pointer) == ["/baselineRate", "/alpha", "/power", "/weights", "/minimumDetectableEffect"])
        #expect(
            issues(.init(baselineRate: 0.95, minimumDetectableEffect: .relative(0.1))).map(\.pointer) == [
                "/minimumDetectableEffect"
            ]
        )
        #expect(
            issues(.init(baselineRate: 0.1, minimumDetectableEffect: .relative(.nan))).map(\.pointer) == [
                "/minimumDetectableEffect"
            ]
        )
        #expect(
            issues(.init(baselineRate: 0.1, minimumDetectableEffect: .relative(0.1), weights: [0.5, 0, .nan])).map(
                \.pointer
            ) == ["/weights/1", "/weights/2"]
        )
        #expect(
            issues(.init(baselineRate: 0.1, minimumDetectableEffect: .relative(0.1), weights: [0.5, 0.6])).map(
                \.pointer
            )
                == ["/weights"]
        )
        // A relative effect of a bad baseline is not judged on top of the baseline's own issue.
        #expect(
            issues(.init(baselineRate: 0, minimumDetectableEffect: .relative(0.1))).map(\.pointer) == ["/baselineRate"]
        )
        #expect(throws: ExperimentPlan.Refusal.self) {
            try ExperimentPlan.minimumDetectableEffect(baselineRate: 0.1, totalInstalls: 0, sequential: false)
        }
        // Inputs inside the ranges that would need infinitely many installs (found by schemathesis:
        // α 5e-324 trapped converting infinity to Int) are refused, not crashed on.
        #expect(
            issues(.init(baselineRate: 0.1, minimumDetectableEffect: .relative(0.1), alpha: .leastNonzeroMagnitude))
                .map(\.pointer)
                == ["/minimumDetectableEffect"]
        )
        #expect(
            issues(.init(baselineRate: 0.1, minimumDetectableEffect: .absolute(1e-300))).map(\.pointer)
                == ["/minimumDetectableEffect"]
        )
        // The inverse question with that α answers (no trap), whatever it finds.
        for sequential in [false, true] {
            _ = try ExperimentPlan.minimumDetectableEffect(
                baselineRate: 0.1,
                totalInstalls: 1000,
                alpha: .leastNonzeroMagnitude,
                sequential: sequential
            )
        }
    }

    // MARK: - Duration

    @Test func durationFromTheMedianDayAndTheCoverage() {
        // An outage day (9,000) does not shorten the estimate: the median day is 1,000 displays.
        let days = [900, 1000, 1100, 9000, 950, 1050, 1000]
        let full = ExperimentDuration.estimate(installs: 56484, recentDays: days, coverage: 1, basis: .displays)
        #expect(full.dailyInstalls == 1000 && full.days == 57 && full.recommendedDays == 63)
        let half = ExperimentDuration.estimate(installs: 56484, recentDays: days, coverage: 0.5, basis: .installs)
        #expect(half.dailyInstalls == 500 && half.days == 113 && half.recommendedDays == 119 && half.basis == .installs)
        // Even days: the mean of the two middle ones; a short experiment still runs a whole week.
        let short = ExperimentDuration.estimate(installs: 300, recentDays: [100, 300], coverage: 1, basis: .installs)
        #expect(short.dailyInstalls == 200 && short.days == 2 && short.recommendedDays == 7)
    }

    @Test func durationWithoutTrafficIsUnknown() {
        for days in [[], [0, 0, 0], [-5, 0, 3]] {
            let duration = ExperimentDuration.estimate(installs: 1000, recentDays: days, coverage: 1, basis: .displays)
            #expect(duration.days == nil && duration.recommendedDays == nil && duration.dailyInstalls == 0, "\(days)")
        }
        #expect(
            ExperimentDuration.estimate(installs: 10, recentDays: [10], coverage: .nan, basis: .displays).days == nil
        )
        // Absurd inputs give a large answer, not a trap.
        let huge = ExperimentDuration.estimate(installs: Int.max, recentDays: [1], coverage: 1e-9, basis: .displays)
        #expect(huge.days == 1_000_000_000)
    }
}
