import EmptyStateCore
import Foundation
import Testing

/// The sequential test's promises, by simulation: peeking is safe (A/A experiments looked at 20
/// times call a false winner at most α of the time, where stopping at the first fixed-horizon
/// winner calls far more), real effects are still found (power at the planned size), and the same
/// for guardrails (false alarms of harm, harm found, "not harmed" not said of a harm of the
/// margin's size).
///
/// Every experiment runs through `ExperimentTimeline.build`, the code the results use, over days of
/// cumulative counts. The counts of each look are drawn as binomials (a fair split of the new
/// installs, then their conversions), not install by install, so thousands of experiments take
/// about two seconds in a debug build; the generator is seeded, so every run draws the same numbers and prints the same
/// figures. The bounds allow α plus the binomial tolerance of the number of runs (z = 2.326, one-sided
/// 99 %), and each test also checks that the naive method fails that same bound: the assertion can fail.
///
/// Serialized, each on a thread of its own (`run`): one simulation at a time takes one core, not
/// both, from the suites running beside it, and none holds a concurrency pool thread.
@Suite(.serialized) struct SequentialSimulationTests {
    typealias Tally = ExperimentArmTally
    typealias Generator = ExperimentStatisticsTests.SplitMix64

    /// The largest false-positive rate `runs` experiments may show at level α: α + 2.326 √(α(1 − α)/runs).
    static func allowance(_ alpha: Double, runs: Int) -> Double {
        alpha + 2.326 * (alpha * (1 - alpha) / Double(runs)).squareRoot()
    }

    static func percent(_ count: Int, _ runs: Int) -> String {
        String(format: "%.2f %%", 100 * Double(count) / Double(runs))
    }

    /// One simulated experiment's settings: arms' true rates, installs per look, looks.
    struct Scenario: Sendable {
        var rates: [Double]
        var guardrailRates: [Double] = []
        var installsPerLook: Int
        var looks = 20
        var settings: ExperimentReportSettings
        var guardrails: [ExperimentGuardrail] = []
    }

    /// What a simulated experiment showed: the look (1-based) at which each figure first fired.
    struct Outcome: Sendable {
        var sequentialWinner: Int?
        var sequentialLoser: Int?
        var fixedHorizonSignificant: Int?
        var harmed: Int?
        var notHarmed: Int?
        var naiveHarmed: Int?
        var finalInstalls: Int
    }

    /// Runs one experiment: each look adds `installsPerLook` installs split evenly at random among
    /// the arms, each converting at its arm's rate (and doing the guardrail's action at its rate).
    static func simulate(_ scenario: Scenario, _ rng: inout Generator) -> Outcome {
        let arms = scenario.rates.indices.map {
            ExperimentArm(key: $0 == 0 ? "control" : "v\($0)", weight: 1 / Double(scenario.rates.count))
        }
        var tallies = [Tally](repeating: Tally(installs: 0, conversions: 0), count: arms.count)
        var guardrail = tallies
        var days: [ExperimentDay] = []
        for look in 1...scenario.looks {
            var remaining = scenario.installsPerLook
            for arm in arms.indices {
                // A fair multinomial split, one conditional binomial per arm.
                let share = 1 / Double(arms.count - arm)
                let installs = arm == arms.count - 1 ? remaining : rng.fastBinomial(remaining, share)
                remaining -= installs
                tallies[arm].installs += installs
                tallies[arm].conversions += rng.fastBinomial(installs, scenario.rates[arm])
                guardrail[arm].installs += installs
                if !scenario.guardrailRates.isEmpty {
                    guardrail[arm].conversions += rng.fastBinomial(installs, scenario.guardrailRates[arm])
                }
            }
            days.append(
                ExperimentDay(
                    date: "day-\(look)",
                    arms: tallies,
                    guardrails: scenario.guardrailRates.isEmpty ? [] : [guardrail]
                )
            )
        }
        var settings = scenario.settings
        settings.guardrails = scenario.guardrails
        let points = ExperimentTimeline.build(arms: arms, days: days, settings: settings)
        let alpha = settings.alpha / Double(arms.count - 1)
        var outcome = Outcome(finalInstalls: tallies.map(\.installs).reduce(0, +))
        for (index, point) in points.enumerated() {
            let look = index + 1
            let variants = point.arms.dropFirst()
            if outcome.sequentialWinner == nil,
                variants.contains(where: { ($0.comparison?.sequential).map { $0.significant && $0.lower > 0 } ?? false }
                )
            {
                outcome.sequentialWinner = look
            }
            if outcome.sequentialLoser == nil,
                variants.contains(where: { ($0.comparison?.sequential).map { $0.significant && $0.upper < 0 } ?? false }
                )
            {
                outcome.sequentialLoser = look
            }
            // The naive reading: any variant's z-test below α' once every arm has the minimum.
            let counted = point.arms.allSatisfy { $0.installs >= settings.minimumInstalls }
            if outcome.fixedHorizonSignificant == nil, counted,
                variants.contains(where: { ($0.comparison?.fixedHorizonPValue ?? 1) < alpha })
            {
                outcome.fixedHorizonSignificant = look
            }
            if let guardrail = point.guardrails.first?.comparisons.first {
                if outcome.harmed == nil, guardrail.state == .harmed { outcome.harmed = look }
                if outcome.notHarmed == nil, guardrail.state == .notHarmed { outcome.notHarmed = look }
                // Naive one-sided test of harm: z > 1.645 with the unpooled standard error.
                let control = days[index].guardrails[0][0]
                let variant = days[index].guardrails[0][1]
                let (pa, pb) = (control.rate, variant.rate)
                let se = (pa * (1 - pa) / Double(control.installs) + pb * (1 - pb) / Double(variant.installs))
                    .squareRoot()
                let sign = scenario.guardrails.first?.harm == .decrease ? -1.0 : 1.0
                if outcome.naiveHarmed == nil, counted, se > 0, sign * (pb - pa) / se > 1.644_853_626_951_472_2 {
                    outcome.naiveHarmed = look
                }
            }
        }
        return outcome
    }

    /// Runs `runs` experiments on a thread of its own: seconds of arithmetic on one of Swift
    /// concurrency's pool threads (two, on two cores) would stall other suites' async work
    /// (PostgreSQL listeners, servers) and fail their timeouts.
    static func run(_ scenario: Scenario, runs: Int, seed: UInt64) async -> [Outcome] {
        await withCheckedContinuation { (done: CheckedContinuation<[Outcome], Never>) in
            Thread {
                var rng = Generator(state: seed)
                done.resume(returning: (0..<runs).map { _ in simulate(scenario, &rng) })
            }
            .start()
        }
    }

    static let plan = try! ExperimentPlan.make(.init(baselineRate: 0.10, minimumDetectableEffect: .relative(0.10)))

    // MARK: - False winners

    @Test func aaExperimentsLookedAtTwentyTimesKeepTheirFivePercent() async {
        // The planned experiment of the note: 10 % baseline, planned for 10 % → 11 % (56,484
        // installs, the confidence sequence tuned there), 20 daily looks up to the planned size.
        let runs = 2000
        let scenario = Scenario(
            rates: [0.10, 0.10],
            installsPerLook: Self.plan.sequentialTotal / 20,
            settings: ExperimentReportSettings(plan: Self.plan)
        )
        let outcomes = await Self.run(scenario, runs: runs, seed: 35)
        let sequential = outcomes.filter { $0.sequentialWinner != nil || $0.sequentialLoser != nil }.count
        let naive = outcomes.filter { $0.fixedHorizonSignificant != nil }.count
        let naiveAtEnd = outcomes.filter { $0.fixedHorizonSignificant == 20 }.count
        let allowance = Self.allowance(0.05, runs: runs)
        print(
            "A/A, \(runs) experiments at 10 %, 20 looks of \(scenario.installsPerLook) installs:"
                + " false winner or loser with the sequential test in \(sequential) (\(Self.percent(sequential, runs))),"
                + " stopping at the first fixed-horizon p < 0.05 in \(naive) (\(Self.percent(naive, runs)));"
                + " allowed \(String(format: "%.2f %%", allowance * 100))"
        )
        #expect(Double(sequential) / Double(runs) <= allowance)
        // The naive reading breaks the same bound, several times over: the test can tell them apart.
        #expect(Double(naive) / Double(runs) > allowance)
        #expect(Double(naive) / Double(runs) > 0.15)
        // A fixed-horizon test read only at the last look holds its 5 %: peeking is what breaks it.
        #expect(naiveAtEnd < naive)
    }

    @Test func smallCountsAndThreeArmsKeepTheirFivePercent() async {
        // A rare conversion (2 %), 100 installs per arm per look, no plan (tuned at 5,000): the
        // first looks hold a handful of conversions, where the normal approximation is weakest.
        let runs = 1000
        let rare = Scenario(rates: [0.02, 0.02], installsPerLook: 200, settings: ExperimentReportSettings())
        let rareOutcomes = await Self.run(rare, runs: runs, seed: 3502)
        let rareSequential = rareOutcomes.filter { $0.sequentialWinner != nil || $0.sequentialLoser != nil }.count
        let rareNaive = rareOutcomes.filter { $0.fixedHorizonSignificant != nil }.count
        // Three arms: α is divided between the two variants (Bonferroni); any false call counts.
        let three = Scenario(rates: [0.1, 0.1, 0.1], installsPerLook: 2400, settings: ExperimentReportSettings())
        let threeOutcomes = await Self.run(three, runs: runs, seed: 3503)
        let threeSequential = threeOutcomes.filter { $0.sequentialWinner != nil || $0.sequentialLoser != nil }.count
        let threeNaive = threeOutcomes.filter { $0.fixedHorizonSignificant != nil }.count
        let allowance = Self.allowance(0.05, runs: runs)
        print(
            "A/A, \(runs) experiments at 2 %, 20 looks of 100 installs per arm: sequential \(Self.percent(rareSequential, runs)),"
                + " fixed-horizon peeking \(Self.percent(rareNaive, runs)); A/A/A at 10 %, 20 looks of 800 per arm:"
                + " sequential \(Self.percent(threeSequential, runs)), fixed-horizon peeking (Bonferroni α 0.025)"
                + " \(Self.percent(threeNaive, runs)); allowed \(String(format: "%.2f %%", allowance * 100))"
        )
        #expect(Double(rareSequential) / Double(runs) <= allowance)
        #expect(Double(threeSequential) / Double(runs) <= allowance)
        #expect(Double(rareNaive) / Double(runs) > allowance && Double(threeNaive) / Double(runs) > allowance)
    }

    // MARK: - Power

    @Test func aRealEffectIsFoundAtThePlannedSize() async {
        let runs = 1000
        let looks = 20
        // 10 % → 11 %, the effect the plan was sized for, up to the planned installs.
        let planned = Scenario(
            rates: [0.10, 0.11],
            installsPerLook: Self.plan.sequentialTotal / looks,
            settings: ExperimentReportSettings(plan: Self.plan)
        )
        let found = await Self.run(planned, runs: runs, seed: 3511)
        let power = Double(found.filter { $0.sequentialWinner != nil }.count) / Double(runs)
        let wrongWay = found.filter { $0.sequentialLoser != nil }.count
        let stops = found.compactMap(\.sequentialWinner).map(Double.init)
        let meanStop = stops.reduce(0, +) / Double(max(stops.count, 1)) / Double(looks)
        // Twice the effect: found sooner.
        let large = Scenario(
            rates: [0.10, 0.12],
            installsPerLook: Self.plan.sequentialTotal / looks,
            settings: ExperimentReportSettings(plan: Self.plan)
        )
        let largeFound = await Self.run(large, runs: 300, seed: 3512)
        let largePower = Double(largeFound.filter { $0.sequentialWinner != nil }.count) / 300
        let largeStops = largeFound.compactMap(\.sequentialWinner).map(Double.init)
        let largeMeanStop = largeStops.reduce(0, +) / Double(max(largeStops.count, 1)) / Double(looks)
        // Stopped at the fixed-horizon size (29,502 installs) instead: the sequential test's price.
        let short = Scenario(
            rates: [0.10, 0.11],
            installsPerLook: Self.plan.fixedHorizonTotal / looks,
            settings: ExperimentReportSettings(plan: Self.plan)
        )
        let shortFound = await Self.run(short, runs: 300, seed: 3513)
        let shortPower = Double(shortFound.filter { $0.sequentialWinner != nil }.count) / 300
        print(
            "Power, 10 % → 11 %, 20 looks up to the planned \(Self.plan.sequentialTotal) installs, \(runs) experiments:"
                + " found in \(String(format: "%.1f %%", power * 100)) (planned for 80 %), on average at"
                + " \(String(format: "%.0f %%", meanStop * 100)) of the planned installs; control called better in \(wrongWay)."
                + " 10 % → 12 %: found in \(String(format: "%.1f %%", largePower * 100)), on average at"
                + " \(String(format: "%.0f %%", largeMeanStop * 100)) of the plan."
                + " 10 % → 11 % stopped at the fixed-horizon size (\(Self.plan.fixedHorizonTotal) installs):"
                + " \(String(format: "%.1f %%", shortPower * 100))."
        )
        // The plan counts only the last look, so the real power is at least what it promises
        // (less the tolerance of 1,000 runs).
        #expect(power >= 0.8 - 2.326 * (0.16 / Double(runs)).squareRoot())
        #expect(wrongWay == 0)
        #expect(largePower >= 0.99 && largeMeanStop < 0.6)
        #expect(shortPower < power - 0.15)
    }

    // MARK: - Guardrails

    @Test func guardrailsWarnOfHarmWithoutFalseAlarms() async {
        let runs = 1000
        // Back taps at 20 % in both arms: any "harmed" is a false alarm. Margin ±2 points.
        let guardrail = ExperimentGuardrail(key: "back", harm: .increase, margin: .absolute(0.02))
        let healthy = Scenario(
            rates: [0.1, 0.1],
            guardrailRates: [0.2, 0.2],
            installsPerLook: Self.plan.sequentialTotal / 20,
            settings: ExperimentReportSettings(plan: Self.plan),
            guardrails: [guardrail]
        )
        let healthyOutcomes = await Self.run(healthy, runs: runs, seed: 3521)
        let falseAlarms = healthyOutcomes.filter { $0.harmed != nil }.count
        let naiveAlarms = healthyOutcomes.filter { $0.naiveHarmed != nil }.count
        let cleared = healthyOutcomes.filter { $0.notHarmed != nil }.count
        // A harm of 1.5 points (20 % → 21.5 %).
        var harmful = healthy
        harmful.guardrailRates = [0.2, 0.215]
        let harmfulOutcomes = await Self.run(harmful, runs: 500, seed: 3522)
        let detected = harmfulOutcomes.filter { $0.harmed != nil }.count
        let harmStops = harmfulOutcomes.compactMap(\.harmed).map(Double.init)
        // A harm of exactly the margin (20 % → 22 %): "not harmed" would be a wrong all-clear.
        var atMargin = healthy
        atMargin.guardrailRates = [0.2, 0.22]
        let atMarginOutcomes = await Self.run(atMargin, runs: runs, seed: 3523)
        let wrongAllClear = atMarginOutcomes.filter { $0.notHarmed != nil }.count
        // A guardrail whose fall is the harm, falling by 1.5 points.
        var falling = healthy
        falling.guardrails = [ExperimentGuardrail(key: "share", harm: .decrease, margin: .absolute(0.02))]
        falling.guardrailRates = [0.2, 0.185]
        let fallingDetected = await Self.run(falling, runs: 300, seed: 3524).filter { $0.harmed != nil }.count
        let allowance = Self.allowance(0.05, runs: runs)
        print(
            "Guardrail, \(runs) A/A experiments at 20 %, 20 looks: harm called with the sequential one-sided test in"
                + " \(Self.percent(falseAlarms, runs)), with a z-test peeked at 20 times \(Self.percent(naiveAlarms, runs));"
                + " cleared (not harmed, margin 2 points) in \(Self.percent(cleared, runs)). Harm of 1.5 points found in"
                + " \(Self.percent(detected, 500)) (on average at look \(String(format: "%.1f", harmStops.reduce(0, +) / Double(max(harmStops.count, 1))))),"
                + " a fall of 1.5 points in \(Self.percent(fallingDetected, 300));"
                + " a harm of exactly the margin cleared wrongly in \(Self.percent(wrongAllClear, runs));"
                + " allowed \(String(format: "%.2f %%", allowance * 100))"
        )
        #expect(Double(falseAlarms) / Double(runs) <= allowance)
        #expect(Double(naiveAlarms) / Double(runs) > allowance)
        #expect(Double(wrongAllClear) / Double(runs) <= allowance)
        #expect(Double(cleared) / Double(runs) > 0.9)
        #expect(Double(detected) / 500 > 0.85)
        #expect(Double(fallingDetected) / 300 > 0.85)
    }

    // MARK: - The generator

    @Test func theBinomialDrawHasTheRightMomentsAndEdges() {
        var rng = Generator(state: 7)
        for (n, p) in [(1000, 0.1), (57, 0.97), (3, 0.5), (100_000, 0.002)] {
            let draws = (0..<20_000).map { _ in Double(rng.fastBinomial(n, p)) }
            let mean = draws.reduce(0, +) / Double(draws.count)
            let variance = draws.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(draws.count - 1)
            let expectedVariance = Double(n) * p * (1 - p)
            // Four standard errors of the mean and of the variance (≈ σ²√(2/N) for a near-normal count).
            #expect(
                abs(mean - Double(n) * p) < 4 * (expectedVariance / 20_000).squareRoot(),
                "n \(n) p \(p): mean \(mean)"
            )
            #expect(
                abs(variance - expectedVariance) < 4 * expectedVariance * (2.0 / 20_000).squareRoot() + 0.01,
                "n \(n) p \(p): variance \(variance)"
            )
            #expect(draws.allSatisfy { $0 >= 0 && $0 <= Double(n) })
        }
        let edges = [
            rng.fastBinomial(0, 0.5), rng.fastBinomial(10, 0), rng.fastBinomial(10, 1), rng.fastBinomial(-3, 0.5),
        ]
        #expect(edges == [0, 0, 10, 0])
    }
}

extension ExperimentStatisticsTests.SplitMix64 {
    /// A uniform number in [0, 1) from the top 53 bits.
    mutating func uniform() -> Double {
        Double(next() >> 11) * 0x1p-53
    }

    /// An exact Binomial(n, p) draw by inversion, searching outward from the mode: the support is
    /// visited in the fixed order mode, mode+1, mode−1, mode+2, … and u ~ U(0, 1) is spent on each
    /// point's probability until it runs out. Exact for any fixed order; this one takes about
    /// 1.6 standard deviations of steps, so a draw of 28,000 installs costs some 60 steps instead of
    /// 28,000 Bernoulli draws. The probabilities follow one another by their rational ratio.
    mutating func fastBinomial(_ n: Int, _ p: Double) -> Int {
        if n <= 0 || p <= 0 { return 0 }
        if p >= 1 { return n }
        if p > 0.5 { return n - fastBinomial(n, 1 - p) }
        let q = 1 - p
        let mode = min(Int(Double(n + 1) * p), n)
        let logMode =
            ExperimentStatistics.logGamma(Double(n + 1)) - ExperimentStatistics.logGamma(Double(mode + 1))
            - ExperimentStatistics.logGamma(Double(n - mode + 1)) + Double(mode) * log(p) + Double(n - mode) * log(q)
        var u = uniform() - exp(logMode)
        if u < 0 { return mode }
        var (up, down) = (mode, mode)
        var (upProbability, downProbability) = (exp(logMode), exp(logMode))
        let odds = p / q
        while up < n || down > 0 {
            if up < n {
                upProbability *= Double(n - up) / Double(up + 1) * odds
                up += 1
                u -= upProbability
                if u < 0 { return up }
            }
            if down > 0 {
                downProbability *= Double(down) / (Double(n - down + 1) * odds)
                down -= 1
                u -= downProbability
                if u < 0 { return down }
            }
            // Both tails below any probability a double can add: what is left of u is rounding.
            if (up >= n || upProbability < 1e-300) && (down <= 0 || downProbability < 1e-300) { break }
        }
        return mode
    }
}
