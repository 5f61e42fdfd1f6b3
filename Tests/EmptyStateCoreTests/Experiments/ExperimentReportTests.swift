import EmptyStateCore
import Testing

/// The results over time, the CSV, the progress against the plan and the verdict in words: what
/// each outcome says, which figure it rests on (the sequential one), and the warnings.
@Suite struct ExperimentReportTests {
    typealias Tally = ExperimentArmTally

    static let arms = [ExperimentArm(key: "control", weight: 0.5), ExperimentArm(key: "b", weight: 0.5)]
    static let plan = try! ExperimentPlan.make(.init(baselineRate: 0.10, minimumDetectableEffect: .relative(0.10)))

    static func day(
        _ date: String,
        _ counts: [(Int, Int)],
        guardrails: [[(Int, Int)]] = [],
        complete: Bool = true
    ) -> ExperimentDay {
        ExperimentDay(
            date: date,
            arms: counts.map { Tally(installs: $0.0, conversions: $0.1) },
            guardrails: guardrails.map { $0.map { Tally(installs: $0.0, conversions: $0.1) } },
            complete: complete
        )
    }

    // MARK: - Timeline

    @Test func eachDayIsComputedFromTheDataUpToIt() {
        let days = [
            Self.day("2026-11-01", [(60, 6), (58, 9)]),
            Self.day("2026-11-02", [(5000, 500), (5010, 560)]),
            Self.day("2026-11-03", [(12000, 1200), (12040, 1290)]),
        ]
        let settings = ExperimentReportSettings(plan: Self.plan)
        let points = ExperimentTimeline.build(arms: Self.arms, days: days, settings: settings)
        #expect(points.map(\.date) == ["2026-11-01", "2026-11-02", "2026-11-03"])
        // Day 1: below the minimum, so no sequential figure yet; the fixed-horizon ones are there.
        let first = points[0].arms[1].comparison
        #expect(first?.sequential == nil)
        #expect(
            first?.fixedHorizonPValue
                == ExperimentStatistics.twoProportionPValue(
                    controlConversions: 6,
                    controlInstalls: 60,
                    conversions: 9,
                    installs: 58
                )
        )
        #expect(points[0].arms[0].comparison == nil)
        #expect(points[0].arms[0].rate == ExperimentStatistics.wilsonInterval(conversions: 6, installs: 60))
        // Day 2 and 3: the running confidence sequence of those looks, tuned at the plan's size.
        var sequence = ConfidenceSequence()
        for (index, counts) in [((5000, 500), (5010, 560)), ((12000, 1200), (12040, 1290))].enumerated() {
            let look = SequentialTest.twoSided(
                control: Tally(installs: counts.0.0, conversions: counts.0.1),
                variant: Tally(installs: counts.1.0, conversions: counts.1.1),
                alpha: 0.05,
                tuningInstalls: 56484
            )
            sequence.record(look)
            let sequential = points[index + 1].arms[1].comparison?.sequential
            #expect(sequential?.lower == sequence.lower && sequential?.upper == sequence.upper)
            #expect(sequential?.pValue == sequence.pValue && sequential?.difference == look.difference)
            #expect(sequential?.since == "2026-11-02" && sequential?.drifted == false)
        }
        let relative = points[2].arms[1].comparison?.relativeDifference ?? 0
        #expect(abs(relative - (1290.0 / 12040 - 0.1) / 0.1) < 1e-12)
    }

    @Test func missingArmsAndGuardrailsCountAsZero() {
        let settings = ExperimentReportSettings(guardrails: [ExperimentGuardrail(key: "back")])
        let points = ExperimentTimeline.build(arms: Self.arms, days: [Self.day("d", [(500, 50)])], settings: settings)
        #expect(points.count == 1 && points[0].arms[1].installs == 0)
        #expect(points[0].guardrails.first?.comparisons.first?.state == .inconclusive)
        #expect(ExperimentTimeline.build(arms: [], days: [Self.day("d", [])], settings: settings).isEmpty)
    }

    @Test("per segment: a segment column first, each segment's rows in turn, formulas and unknown guarded")
    func csvPerSegment() {
        let settings = ExperimentReportSettings()
        let points = ExperimentTimeline.build(
            arms: Self.arms,
            days: [Self.day("2026-11-01", [(50, 5), (50, 6)])],
            settings: settings
        )
        let csv = ExperimentTimeline.csv(segments: [("ios", points), ("-1.0", points), (nil, points)])
        let lines = csv.components(separatedBy: "\r\n")
        #expect(lines.count == 8 && lines.last == "")
        #expect(lines[0] == "segment," + ExperimentTimeline.csv(points).components(separatedBy: "\r\n")[0])
        #expect(
            lines[1...6].map { $0.split(separator: ",", omittingEmptySubsequences: false)[0] } == [
                "ios", "ios", "'-1.0", "'-1.0", "", "",
            ]
        )
        #expect(ExperimentTimeline.csv(segments: []).hasPrefix("segment,date,variant,"))
    }

    @Test func csvHasARowPerDayAndArm() {
        let settings = ExperimentReportSettings(guardrails: [ExperimentGuardrail(key: "back")])
        let days = [
            Self.day("2026-11-01", [(50, 5), (50, 6)], guardrails: [[(50, 10), (50, 11)]]),
            Self.day("Nov 2, \"late\"", [(400, 40), (410, 52)], guardrails: [[(400, 80), (410, 90)]]),
        ]
        let csv = ExperimentTimeline.csv(ExperimentTimeline.build(arms: Self.arms, days: days, settings: settings))
        let lines = csv.components(separatedBy: "\r\n")
        #expect(lines.count == 6 && lines.last == "")
        #expect(
            lines[0]
                == "date,variant,installs,conversions,rate,rate_lower,rate_upper,difference,relative_difference,"
                + "fixed_lower,fixed_upper,fixed_p_value,sequential_lower,sequential_upper,sequential_p_value,"
                + "significant,drifted,guardrail_back_rate,guardrail_back_harm_lower,guardrail_back_harm_upper,"
                + "guardrail_back_harm_p_value,guardrail_back_state"
        )
        let header = lines[0].split(separator: ",", omittingEmptySubsequences: false)
        for line in lines.dropFirst().dropLast() {
            // Every row has the header's columns (the quoted date holds one comma of its own).
            let commas = line.filter { $0 == "," }.count - (line.hasPrefix("\"") ? 1 : 0)
            #expect(commas == header.count - 1, "\(line)")
        }
        // Control: its counts and rate, empty comparison columns, control's guardrail rate.
        #expect(lines[1].hasPrefix("2026-11-01,control,50,5,0.1,"))
        #expect(lines[1].hasSuffix(",,,,,,,,,,,0.2,,,,"))
        // Day 1 is below the minimum: fixed-horizon figures, no sequential ones, guardrail inconclusive.
        #expect(lines[2].hasPrefix("2026-11-01,b,50,6,0.12,"))
        #expect(lines[2].contains(",,,,,0.22,-1.0,1.0,1.0,inconclusive"))
        #expect(lines[3].hasPrefix("\"Nov 2, \"\"late\"\"\",control,400,40,0.1,"))
        #expect(lines[4].contains(",false,false,"))
    }

    // MARK: - Progress

    @Test func progressUsesWholeDaysForThePace() {
        // Cumulative totals 300 (first, partial day), 1,300, 2,500, 3,400, then today so far.
        let days = [
            Self.day("1", [(150, 15), (150, 15)]),
            Self.day("2", [(650, 65), (650, 65)]),
            Self.day("3", [(1250, 125), (1250, 125)]),
            Self.day("4", [(1700, 170), (1700, 170)]),
            Self.day("5", [(1800, 180), (1800, 180)], complete: false),
        ]
        let progress = ExperimentProgress.measure(days, plan: Self.plan)
        // Increments 1,000, 1,200, 900: median 1,000; (56,484 − 3,600) / 1,000 → 53 days.
        #expect(progress.installs == 3600 && progress.plannedInstalls == 56484 && !progress.reached)
        #expect(progress.dailyInstalls == 1000 && progress.remainingDays == 53)
        #expect(abs(progress.share - 3600.0 / 56484) < 1e-15)
        let one = ExperimentProgress.measure([Self.day("1", [(30000, 3000), (30000, 3000)])], plan: Self.plan)
        #expect(one.reached && one.dailyInstalls == nil && one.remainingDays == nil)
    }

    // MARK: - Verdicts

    static func report(
        _ days: [ExperimentDay],
        plan: ExperimentPlan? = plan,
        guardrails: [ExperimentGuardrail] = [],
        status: Experiment.Status = .running,
        arms: [ExperimentArm] = arms
    ) -> ExperimentReport {
        ExperimentReport.make(
            arms: arms,
            days: days,
            settings: ExperimentReportSettings(plan: plan, guardrails: guardrails),
            status: status
        )
    }

    @Test func aDraftAndASmallExperimentAreCollecting() {
        let draft = Self.report([], status: .draft)
        #expect(
            draft.decision.outcome == .collecting
                && draft.decision.sentence == "Not started: a draft has no results yet."
        )
        let small = Self.report([Self.day("d", [(40, 4), (120, 30)])])
        #expect(small.decision.outcome == .collecting)
        #expect(
            small.decision.sentence
                == "Collecting: every variant needs 100 installs before its results are read; control has 40 so far."
        )
    }

    @Test func aBrokenSplitStopsEverythingElse() {
        let report = Self.report([Self.day("d", [(10400, 1040), (9600, 1500)])])
        #expect(report.decision.outcome == .sampleRatioMismatch && report.decision.winner == nil)
        #expect(
            report.decision.sentence.hasPrefix("Do not use these results: installs are not split as the weights say")
        )
        #expect(
            report.decision.sentence.contains(
                "control 52.0 % and b 48.0 % of installs, where the weights say 50.0 % and 50.0 %"
            )
        )
    }

    @Test func theFixedHorizonWinnerIsNotTheVerdict() {
        // The example: p = 0.0047 by the z-test, but not yet by the sequential test.
        let days = [
            Self.day("2026-11-01", [(5000, 500), (5000, 540)]),
            Self.day("2026-11-02", [(10000, 1000), (10000, 1100)]),
            Self.day("2026-11-03", [(15000, 1500), (15000, 1650)]),
        ]
        let report = Self.report(days)
        let b = report.latest?.arms[1].comparison
        #expect((b?.fixedHorizonPValue ?? 1) < 0.005 && b?.sequential?.significant == false)
        #expect(report.fixedHorizon.verdict == .winner)
        #expect(report.decision.outcome == .keepRunning && report.decision.winner == nil)
        let sentence = report.decision.sentence
        #expect(
            sentence.hasPrefix(
                "Keep running: no variant differs clearly from control yet. b: +1.0 points (between \u{2212}0.1 and +2.1; always-valid p = 0.091)."
            )
        )
        #expect(
            sentence.contains("30,000 of the 56,484 installs planned (53.1 %); about 3 more days at the recent pace.")
        )
        #expect(
            sentence.contains(
                "The fixed-horizon p-value of b (0.0047) is below 0.05, but that figure holds only when read once"
            )
        )
        let noPlan = Self.report(days, plan: nil)
        #expect(noPlan.decision.sentence.contains("There is no plan: set a minimum detectable effect"))
        let stopped = Self.report(days, status: .stopped)
        #expect(stopped.decision.outcome == .inconclusive)
        #expect(
            stopped.decision.sentence.hasPrefix(
                "Stopped before a verdict, after 30,000 of the 56,484 installs planned: no variant differed clearly from control. b: +1.0 points"
            )
        )
        #expect(stopped.decision.sentence.hasSuffix("). This is no evidence either way."))
    }

    @Test func aClearLiftWinsAndSaysSo() {
        let days = [
            Self.day("2026-11-01", [(10000, 1000), (10000, 1200)]),
            Self.day("2026-11-02", [(20000, 2000), (20000, 2400)]),
        ]
        let report = Self.report(days)
        #expect(report.decision.outcome == .winner && report.decision.winner == "b" && report.decision.warnings.isEmpty)
        let sequential = report.latest?.arms[1].comparison?.sequential
        #expect(sequential?.significant == true && (sequential?.lower ?? 0) > 0)
        #expect(
            report.decision.sentence.hasPrefix(
                "Variant b wins: 12.0 % of its installs converted against 10.0 % for control, +2.0 points (between +"
            )
        )
        #expect(report.decision.sentence.contains("always-valid p < 0.0001"))
        #expect(report.decision.sentence.hasSuffix("so the experiment can stop now and ship b."))
        // Once stopped, the same result is a winner without the advice to stop.
        #expect(Self.report(days, status: .stopped).decision.sentence.hasSuffix("always-valid p < 0.0001)."))
    }

    @Test func theLargestSignificantLiftWinsAndControlWinsWhenAllAreWorse() {
        let three = [
            ExperimentArm(key: "control", weight: 1.0 / 3), ExperimentArm(key: "b", weight: 1.0 / 3),
            ExperimentArm(key: "c", weight: 1.0 / 3),
        ]
        let better = Self.report(
            [Self.day("d", [(20000, 2000), (20000, 2400), (20000, 2600)])],
            plan: nil,
            arms: three
        )
        #expect(better.decision.winner == "c")
        #expect(better.decision.sentence.contains("Variant b (+2.0 points) also beats control, by less."))
        let worse = Self.report([Self.day("d", [(20000, 2400), (20000, 2000), (20000, 1900)])], plan: nil, arms: three)
        #expect(worse.decision.outcome == .winner && worse.decision.winner == "control")
        #expect(
            worse.decision.sentence.hasPrefix(
                "Control wins: every variant converts fewer installs. b: \u{2212}2.0 points (between"
            )
        )
        #expect(worse.decision.sentence.hasSuffix("Keep the live copy."))
        let mixed = Self.report([Self.day("d", [(20000, 2400), (20000, 2000), (20000, 2410)])], plan: nil, arms: three)
        #expect(mixed.decision.outcome == .keepRunning)
        #expect(mixed.decision.sentence.contains(" Variant b is clearly worse than control."))
    }

    @Test func noDetectableDifferenceAtThePlannedSize() {
        let tight = Self.report([Self.day("d", [(40000, 4000), (40000, 4010)])])
        #expect(tight.progress?.reached == true)
        #expect(tight.decision.outcome == .noDetectableDifference)
        #expect(
            tight.decision.sentence.hasPrefix("No detectable difference at the planned size: after 80,000 installs")
        )
        #expect(
            tight.decision.sentence.hasSuffix(
                "Any difference is smaller than the 1.0 points the plan was sized to find: keep control, or ship a variant for other reasons."
            )
        )
        // A noisier rate than planned (50 %, not 10 %): the interval still reaches the planned effect.
        let rare = Self.report([Self.day("d", [(28300, 14150), (28300, 14200)])])
        #expect(rare.decision.outcome == .noDetectableDifference)
        #expect(rare.decision.sentence.contains("The intervals still reach the 1.0 points the plan was sized to find"))
    }

    @Test func aHarmedGuardrailWarnsEvenOnAWinner() {
        let back = ExperimentGuardrail(key: "back")
        let days = [
            Self.day("d1", [(10000, 1000), (10000, 1200)], guardrails: [[(10000, 2000), (10000, 2400)]]),
            Self.day("d2", [(20000, 2000), (20000, 2400)], guardrails: [[(20000, 4000), (20000, 4800)]]),
        ]
        let report = Self.report(days, guardrails: [back])
        #expect(report.decision.outcome == .winner && report.decision.winner == "b")
        #expect(report.latest?.guardrails.first?.state == .harmed)
        #expect(report.decision.warnings.map(\.kind) == [.guardrailHarmed])
        #expect(report.decision.warnings.first?.guardrail == "back" && report.decision.warnings.first?.variant == "b")
        #expect(
            report.decision.sentence.contains(
                "Warning: variant b harms the guardrail back: its rate rose to 24.0 % from 20.0 % for control (by at least "
            )
        )
        // A clean guardrail is reported on the winner.
        let clean = Self.report(
            [Self.day("d", [(20000, 2000), (20000, 2400)], guardrails: [[(20000, 4000), (20000, 3990)]])],
            guardrails: [back]
        )
        #expect(clean.decision.warnings.isEmpty)
        #expect(clean.decision.sentence.contains("Guardrail back: not harmed (any rise is below 2.0 points)."))
    }

    @Test func aDifferenceThatChangesOverTimeIsFlagged() {
        // A novelty effect: +5 points on day one, then below control for the many installs after.
        let days = [
            Self.day("2026-11-01", [(20000, 2000), (20000, 3000)]),
            Self.day("2026-11-02", [(400_000, 40000), (400_000, 36500)]),
        ]
        let report = Self.report(days)
        let sequential = report.latest?.arms[1].comparison?.sequential
        #expect(sequential?.drifted == true && sequential?.since == "2026-11-02")
        #expect(report.decision.warnings.map(\.kind) == [.differenceChangedOverTime])
        #expect(report.decision.sentence.contains("Warning: variant b's difference to control changed over time"))
        #expect(report.decision.sentence.contains("counts from 2026-11-02 on"))
    }

    // MARK: - Numbers in words

    @Test func numbersAreRoundedForReading() {
        typealias W = ExperimentWording
        #expect(W.percent(0.1) == "10.0 %" && W.percent(0.0035) == "0.35 %" && W.percent(0) == "0 %")
        #expect(W.percent(0.000_123) == "0.012 %" && W.percent(1) == "100.0 %")
        #expect(W.points(0.0123) == "+1.2" && W.points(-0.0123) == "\u{2212}1.2" && W.points(0.0004) == "+0.040")
        #expect(
            W.points(0.00001) == "+0.001" && W.points(0.000001) == "0.000" && W.points(-0.02, signed: false) == "2.0"
        )
        #expect(W.pValue(0.0047) == "= 0.0047" && W.pValue(0.14) == "= 0.14" && W.pValue(1e-7) == "< 0.0001")
        #expect(W.pValue(0.034, equals: false) == "0.034" && W.pValue(1) == "= 1.00")
        #expect(W.integer(56484) == "56,484" && W.integer(999) == "999" && W.integer(1_000_000) == "1,000,000")
        #expect(W.integer(0) == "0" && W.integer(-1200) == "\u{2212}1,200")
        #expect(W.decimal(0.05) == "0.05" && W.decimal(0.025) == "0.025" && W.decimal(0.05 / 3) == "0.0167")
        #expect(W.list([]) == "" && W.list(["a"]) == "a" && W.list(["a", "b", "c"]) == "a, b and c")
    }
}
