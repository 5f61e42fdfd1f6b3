import EmptyStateCore
import Foundation
import Testing

/// The sequential test against an independent computation: the mixture likelihood ratios
/// integrated numerically from their definition (mpmath, 40 digits) and the boundaries found by
/// root finding on those integrals, by `Tests/fixtures/experiments/sequential_reference.py`
/// (`python3 Tests/fixtures/experiments/sequential_reference.py` prints every vector below). Then the
/// properties that must hold whatever the counts.
@Suite struct SequentialTestTests {
    typealias Tally = ExperimentArmTally

    static func relativelyClose(_ a: Double, _ b: Double, _ tolerance: Double) -> Bool {
        a == b || abs(a - b) <= tolerance * max(abs(a), abs(b))
    }

    // MARK: - Reference values

    @Test(arguments: [
        // (nA, cA, nB, cB, alpha, tuning, p, lower, upper) from the reference script.
        (15000, 1500, 15000, 1650, 0.05, 5000.0, 0.14013531338873759, -1.241588223452304e-3, 0.021238921912293792),
        (15000, 1500, 15000, 1650, 0.05, 56480, 0.090854926794759322, -8.8671501124903424e-4, 0.020884048700090522),
        (1000, 100, 1000, 130, 0.05, 5000, 0.3839317522539048, -0.014662840053963886, 0.07454307957492197),
        (100, 0, 100, 0, 0.05, 5000, 1.0, -0.07036265111249298, 0.07036265111249298),
        (250, 250, 240, 240, 0.05, 5000, 1.0, -0.022315144281361391, 0.021987189407951972),
        (100, 0, 100, 100, 0.05, 5000, 7.1661278252766542e-265, 0.91002950575025212, 1.0),
        (
            2_000_000, 200_000, 2_000_000, 201_500, 0.05, 4_000_000, 0.18805512589344182, -1.620795256692904e-4,
            1.6620780256707904e-3
        ),
        (
            3_000_000, 30000, 3_000_000, 31000, 0.05, 5000, 0.024748512303836152, 1.447016885768216e-5,
            6.5219605336483636e-4
        ),
        (5000, 50, 7000, 90, 0.025, 20000, 1.0, -3.6795779466450886e-3, 9.2803082343643339e-3),
        (40, 3, 35, 1, 0.05, 5000, 1.0, -0.48504844313265277, 0.40268036076457041),
        (1, 0, 1, 1, 0.05, 5000, 1.0, -1.0, 1.0),
    ])
    func twoSidedMatchesTheIntegrals(
        _ nA: Int,
        _ cA: Int,
        _ nB: Int,
        _ cB: Int,
        _ alpha: Double,
        _ tuning: Double,
        _ p: Double,
        _ lower: Double,
        _ upper: Double
    ) {
        let look = SequentialTest.twoSided(
            control: Tally(installs: nA, conversions: cA),
            variant: Tally(installs: nB, conversions: cB),
            alpha: alpha,
            tuningInstalls: tuning
        )
        #expect(Self.relativelyClose(look.pValue, p, 1e-9), "p \(look.pValue) vs \(p)")
        #expect(abs(look.lower - lower) < 1e-12, "lower \(look.lower) vs \(lower)")
        #expect(abs(look.upper - upper) < 1e-12, "upper \(look.upper) vs \(upper)")
        #expect(look.difference == Double(cB) / Double(nB) - Double(cA) / Double(nA))
    }

    @Test(arguments: [
        // (nA, cA, nB, cB, alpha, tuning, sign, p, lower, upper) from the reference script.
        (
            20000, 4000, 20000, 4300, 0.05, 40000.0, 1.0, 3.4328525461317231e-3, 3.7757276052287625e-3,
            0.026221272694741241
        ),
        (20000, 4000, 20000, 4000, 0.05, 40000, 1, 1.0, -0.011072038000111257, 0.011072038000111257),
        (20000, 4000, 20000, 3700, 0.05, 40000, 1, 1.0, -0.025909828620688616, -4.0871716792813874e-3),
        (20000, 4000, 20000, 3700, 0.05, 40000, -1, 2.4144653426715605e-3, 4.0871716792813874e-3, 0.025909828620688616),
        (500, 50, 500, 75, 0.025, 5000, 1, 0.13675902549728673, -0.018896415918919971, 0.11849800954441798),
        (100, 0, 100, 0, 0.05, 5000, 1, 1.0, -0.062265779303272875, 0.062265779303272875),
        (1_000_000, 100_000, 1_000_000, 101_000, 0.05, 5000, 1, 1.0, -5.1368312250254911e-4, 2.5136791225105491e-3),
    ])
    func oneSidedMatchesTheIntegrals(
        _ nA: Int,
        _ cA: Int,
        _ nB: Int,
        _ cB: Int,
        _ alpha: Double,
        _ tuning: Double,
        _ sign: Double,
        _ p: Double,
        _ lower: Double,
        _ upper: Double
    ) {
        let look = SequentialTest.oneSided(
            control: Tally(installs: nA, conversions: cA),
            variant: Tally(installs: nB, conversions: cB),
            sign: sign,
            alpha: alpha,
            tuningInstalls: tuning
        )
        #expect(Self.relativelyClose(look.pValue, p, 1e-9), "p \(look.pValue) vs \(p)")
        #expect(abs(look.lower - lower) < 1e-12, "lower \(look.lower) vs \(lower)")
        #expect(abs(look.upper - upper) < 1e-12, "upper \(look.upper) vs \(upper)")
    }

    @Test(arguments: [
        // (alpha, r, two-sided k, one-sided k) from the reference script.
        (0.05, 0.5, 4.380729273265861, 3.8867551628478202),
        (0.05, 7.936154601737565, 3.0352089903762529, 2.7679922252096201),
        (0.05, 100.0, 3.273018624234933, 3.0520336347965093),
        (0.01, 7.0, 3.5920200307516611, 3.364543936515343),
        (0.025, 1e6, 4.6036172364198691, 4.450506092455089),
    ])
    func criticalValues(_ alpha: Double, _ r: Double, _ twoSided: Double, _ oneSided: Double) {
        #expect(abs(SequentialTest.twoSidedCritical(alpha: alpha, r: r) - twoSided) < 1e-12)
        #expect(abs(SequentialTest.oneSidedCritical(alpha: alpha, r: r) - oneSided) < 1e-12)
    }

    @Test func mixingRateIsGrowthBooksRho() {
        // ρ² = (−2 ln α + ln(1 − 2 ln α)) / N: at α 0.05 the numerator is 7.93615460173756…
        #expect(abs(SequentialTest.mixingRate(alpha: 0.05, tuningInstalls: 1) - 7.936_154_601_737_565) < 1e-12)
        #expect(
            abs(SequentialTest.mixingRate(alpha: 0.05, tuningInstalls: 5000) - 7.936_154_601_737_565 / 5000) < 1e-15
        )
    }

    @Test(arguments: [
        // (p, scipy.stats.norm.ppf(p)) from the reference script. 1 − 1e-12 is 1 − 1.0000889e-12 in a double.
        (1e-300, -37.0470962993612),
        (1e-12, -7.034483825301131),
        (0.001, -3.090232306167813),
        (0.025, -1.9599639845400545),
        (0.2, -0.8416212335729142),
        (0.5, 0.0),
        (0.8, 0.8416212335729143),
        (0.975, 1.959963984540054),
        (0.999, 3.090232306167813),
        (1 - 1e-12, 7.0344869100478356),
    ])
    func normalQuantiles(_ p: Double, _ expected: Double) {
        let x = NormalDistribution.quantile(p)
        #expect(abs(x - expected) <= 1e-13 * max(1, abs(expected)), "Φ⁻¹(\(p)) = \(x), SciPy \(expected)")
    }

    @Test func normalTails() {
        #expect(NormalDistribution.quantile(0) == -.infinity && NormalDistribution.quantile(1) == .infinity)
        #expect(NormalDistribution.quantile(.nan).isNaN)
        // log Φ joins its asymptotic series smoothly at −37 and stays finite far beyond.
        let inside = NormalDistribution.logCDF(-36.999)
        let outside = NormalDistribution.logCDF(-37.001)
        #expect(inside > outside && inside - outside < 0.08)
        #expect(abs(NormalDistribution.logCDF(-40) - (-804.608_442_013_753_9)) < 1e-9)  // scipy.stats.norm.logcdf(-40)
        #expect(NormalDistribution.logCDF(-1e6).isFinite && NormalDistribution.logCDF(50) == 0)
        #expect(abs(NormalDistribution.logCDF(0) - log(0.5)) < 1e-15)
    }

    // MARK: - Properties

    static let grid: [(Tally, Tally)] = {
        var pairs: [(Tally, Tally)] = []
        for n in [100, 1000, 25_000, 3_000_000] {
            for rate in [0.0, 0.01, 0.1, 0.5, 0.99, 1.0] {
                for lift in [-0.2, -0.03, 0, 0.01, 0.05, 0.3] {
                    let a = Int((Double(n) * rate).rounded())
                    let b = min(max(Int((Double(n) * (rate + lift)).rounded()), 0), n + 7)
                    pairs.append((Tally(installs: n, conversions: a), Tally(installs: n + 7, conversions: b)))
                }
            }
        }
        return pairs
    }()

    @Test func theIntervalLeavesZeroExactlyWhenThePValueIsBelowAlpha() {
        var significant = 0
        for (control, variant) in Self.grid {
            for alpha in [0.05, 0.01] {
                let two = SequentialTest.twoSided(
                    control: control,
                    variant: variant,
                    alpha: alpha,
                    tuningInstalls: 20000
                )
                #expect((two.pValue < alpha) == (two.lower > 0 || two.upper < 0), "\(control) \(variant): \(two)")
                if two.pValue < alpha { significant += 1 }
                let one = SequentialTest.oneSided(
                    control: control,
                    variant: variant,
                    sign: 1,
                    alpha: alpha,
                    tuningInstalls: 20000
                )
                #expect((one.pValue < alpha) == (one.lower > 0), "\(control) \(variant): \(one)")
                let margin = 0.01
                let within = SequentialTest.withinMarginPValue(
                    control: control,
                    variant: variant,
                    sign: 1,
                    margin: margin,
                    alpha: alpha,
                    tuningInstalls: 20000
                )
                #expect((within < alpha) == (one.upper < margin), "\(control) \(variant): \(within) \(one)")
            }
        }
        // The grid has both kinds, so the equivalence was tested both ways.
        #expect(significant > 20 && significant < Self.grid.count * 2 - 20)
    }

    @Test func oneSidedIsTighterThanTwoSidedAndMirrorsItsSign() {
        for (control, variant) in Self.grid {
            let two = SequentialTest.twoSided(control: control, variant: variant, alpha: 0.05, tuningInstalls: 20000)
            let up = SequentialTest.oneSided(
                control: control,
                variant: variant,
                sign: 1,
                alpha: 0.05,
                tuningInstalls: 20000
            )
            let down = SequentialTest.oneSided(
                control: control,
                variant: variant,
                sign: -1,
                alpha: 0.05,
                tuningInstalls: 20000
            )
            if two.lower > -1 { #expect(up.lower >= two.lower - 1e-15) }
            if two.upper < 1 { #expect(up.upper <= two.upper + 1e-15) }
            #expect(abs(up.lower + down.upper) < 1e-15 && abs(up.upper + down.lower) < 1e-15)
            #expect(up.difference == -down.difference)
        }
    }

    @Test(arguments: [
        (Tally(installs: 0, conversions: 0), Tally(installs: 0, conversions: 0)),
        (Tally(installs: 0, conversions: 0), Tally(installs: 500, conversions: 20)),
        (Tally(installs: -5, conversions: 9), Tally(installs: 10, conversions: -2)),
        (Tally(installs: 10, conversions: 400), Tally(installs: 10, conversions: 10)),
        (Tally(installs: 1_000_000_000, conversions: 0), Tally(installs: 1_000_000_000, conversions: 1_000_000_000)),
        (Tally(installs: 1_000_000_000, conversions: 1), Tally(installs: 1_000_000_000, conversions: 2)),
        (Tally(installs: Int(Int32.max), conversions: 7), Tally(installs: 3, conversions: 3)),
    ])
    func extremeCountsStayFinite(_ control: Tally, _ variant: Tally) {
        for alpha in [0.05, 1e-9, 0.5, 0, 1, .nan] {
            for tuning in [5000.0, 1, 0, 1e12, .nan, .infinity] {
                let two = SequentialTest.twoSided(
                    control: control,
                    variant: variant,
                    alpha: alpha,
                    tuningInstalls: tuning
                )
                let one = SequentialTest.oneSided(
                    control: control,
                    variant: variant,
                    sign: 1,
                    alpha: alpha,
                    tuningInstalls: tuning
                )
                for look in [two, one] {
                    #expect(look.difference.isFinite && look.lower.isFinite && look.upper.isFinite)
                    #expect(look.lower <= look.upper && look.lower >= -1 && look.upper <= 1, "\(look)")
                    #expect((0...1).contains(look.pValue), "\(look)")
                }
            }
        }
    }

    // MARK: - The running sequence

    static func look(_ difference: Double, _ lower: Double, _ upper: Double, _ p: Double) -> SequentialLook {
        SequentialLook(difference: difference, lower: lower, upper: upper, pValue: p)
    }

    @Test func theRunningIntervalIntersectsAndThePValueOnlyFalls() {
        var sequence = ConfidenceSequence()
        #expect(sequence.looks == 0 && sequence.pValue == 1 && sequence.lower == -1 && sequence.upper == 1)
        sequence.record(Self.look(0.01, -0.02, 0.04, 0.6))
        sequence.record(Self.look(0.005, -0.01, 0.02, 0.8))
        #expect(sequence.lower == -0.01 && sequence.upper == 0.02 && sequence.pValue == 0.6 && sequence.looks == 2)
        sequence.record(Self.look(0.012, 0.001, 0.03, 0.01))
        #expect(sequence.lower == 0.001 && sequence.upper == 0.02 && sequence.pValue == 0.01)
        // A later, wider look (noise back towards 0) takes nothing back.
        sequence.record(Self.look(0.004, -0.008, 0.016, 0.9))
        #expect(sequence.lower == 0.001 && sequence.upper == 0.016 && sequence.pValue == 0.01)
        #expect(sequence.difference == 0.004 && !sequence.drifted && sequence.looks == 4)
    }

    @Test func disjointLooksMarkDriftAndRestart() {
        var sequence = ConfidenceSequence()
        sequence.record(Self.look(0.03, 0.01, 0.05, 0.001))
        let restarted = sequence.record(Self.look(-0.001, -0.004, 0.002, 0.7))
        #expect(restarted && sequence.drifted)
        #expect(sequence.lower == -0.004 && sequence.upper == 0.002 && sequence.pValue == 0.7 && sequence.looks == 1)
        // Drift stays noted; the sequence runs on from the restart.
        let again = sequence.record(Self.look(0, -0.003, 0.0025, 0.8))
        #expect(!again)
        #expect(sequence.drifted && sequence.upper == 0.002 && sequence.lower == -0.003 && sequence.looks == 2)
    }
}
