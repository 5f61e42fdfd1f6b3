#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// Sequential (always-valid) inference for the difference of two conversion rates, for the engineer
// who comes after. docs/experiments-method.md says the same for a product manager.
//
// Why: the fixed-horizon z-test (`ExperimentStatistics`) holds its 5 % only when the results are
// read once, at a size fixed in advance. Read daily and stopped at the first p < 0.05, an A/A test
// calls a false winner in about a quarter of experiments (20 looks; the simulation in
// `SequentialSimulationTests` prints the figure). A confidence sequence is a sequence of intervals
// that contain the true difference *at every look at once* with probability 1 − α, so a team may
// look as often as it likes and stop whenever the interval leaves 0.
//
// Which: the **normal-mixture boundary** — Robbins' mixture martingale, used as the mixture SPRT
// (mSPRT) of Johari, Koomen, Pekelis & Walsh, "Always Valid Inference" (Optimizely's Stats
// Engine), and as the asymptotic confidence sequence of Waudby-Smith, Arnold, Wu, Howard & Ramdas,
// "Time-uniform central limit theory and asymptotic confidence sequences" (2023, eq. 9 and 161)
// that GrowthBook runs. The two are one formula; they differ only in how the mixing spread is
// chosen. We take GrowthBook's: the spread is set in units of the data's own standard deviation
// (ρ) and tuned to be tightest at a planned number of installs, so it needs no guess of the effect
// size in advance (Optimizely's τ does) and it pairs with the planner (`ExperimentPlan`), which
// says how many installs to plan for. Alternatives left aside: group-sequential designs
// (O'Brien–Fleming) need the number and timing of looks fixed in advance, which a console that
// is read at any time cannot promise; Bayesian "chance to beat" is not a false-positive guarantee.
//
// The formulas, for control a and variant b:
// - Agresti–Caffo estimate: p̃ = (c + 1)/(n + 2) per arm, centre d̃ = p̃_b − p̃_a, variance
//   V = p̃_a(1 − p̃_a)/(n_a + 2) + p̃_b(1 − p̃_b)/(n_b + 2). Adding one success and one failure per
//   arm keeps V > 0 at 0 or 100 % conversions and gives near-nominal coverage at small n (Agresti &
//   Caffo 2000); at a thousand installs it changes nothing visible. The raw difference
//   c_b/n_b − c_a/n_a is what is reported as the estimate.
// - Mixing rate ρ² = (−2 ln α + ln(1 − 2 ln α)) / N* for tuning installs N* (both arms), and
//   r = (n_a + n_b) ρ²: the ratio of the mixing variance to the estimate's variance.
// - Two-sided confidence sequence: d̃ ± √V · √((1 + r)/r · (2 ln(1/α) + ln(1 + r))), and the
//   p-value of the same look p = min(1, √(1 + r) · exp(−r/(1 + r) · z²/2)), z = d̃/√V: the
//   reciprocal of the mixture likelihood ratio ∫ exp(μz − μ²/2) dN(0, r)(μ). p < α exactly when
//   the interval leaves 0. By Ville's inequality P(p ≤ α at any look) ≤ α.
// - One-sided (guardrails, harm in direction s = ±1): the mixture over μ > 0 only (a half-normal),
//   Λ⁺(z) = 2 (1 + r)^(−1/2) exp(r/(1 + r) · z²/2) Φ(z √(r/(1 + r))), z = s·d̃/√V; p = min(1, 1/Λ⁺);
//   the bound s·d̃ ∓ k⁺√V with Λ⁺(k⁺) = 1/α (Newton's method, bracketed). A one-sided bound is
//   tighter than the two-sided one, so harm is detected sooner for the same false-alarm rate.
//
// Assumptions, which the docs repeat: installs are independent and each keeps its arm (the
// assignment guarantees it); the effect does not change over time (a novelty effect breaks it,
// `ConfidenceSequence` flags the clearest cases); the normal approximation holds, which is why
// nothing is read before `ExperimentReportSettings.minimumInstalls` per arm. Verified against an
// independent computation (Tests/fixtures/experiments/sequential_reference.py: numerical
// integration of the mixtures with mpmath) and by simulation (SequentialSimulationTests).

/// The counts of one arm at one moment: installs exposed, and how many of them did the metric.
package struct ExperimentArmTally: Sendable, Hashable {
    package var installs: Int
    package var conversions: Int

    package init(installs: Int, conversions: Int) {
        self.installs = installs
        self.conversions = conversions
    }

    /// The counts made safe to compute with: installs ≥ 0 and 0 ≤ conversions ≤ installs. Counts
    /// from a store never break these; a bad row then gives a bad figure, not a NaN.
    package var clamped: ExperimentArmTally {
        let installs = max(installs, 0)
        return ExperimentArmTally(installs: installs, conversions: min(max(conversions, 0), installs))
    }

    /// conversions / installs; 0 for no installs.
    package var rate: Double {
        let counts = clamped
        return counts.installs > 0 ? Double(counts.conversions) / Double(counts.installs) : 0
    }
}

/// One look at a comparison: this look's member of the confidence sequence and its p-value.
package struct SequentialLook: Sendable, Equatable {
    /// The observed difference of the rates, variant − control (for a one-sided look, signed so
    /// that a positive value is harm).
    package var difference: Double
    /// The confidence sequence at this look, clamped to `[-1, 1]`. For a one-sided look `lower`
    /// and `upper` are each a one-sided bound at level α.
    package var lower: Double
    package var upper: Double
    /// The always-valid p-value of this look (the reciprocal of the mixture likelihood ratio).
    package var pValue: Double

    package init(difference: Double, lower: Double, upper: Double, pValue: Double) {
        self.difference = difference
        self.lower = lower
        self.upper = upper
        self.pValue = pValue
    }
}

/// The normal-mixture confidence sequence and always-valid p-values for a difference of two rates.
/// The comment at the top of this file gives the formulas and why this method.
package enum SequentialTest {
    /// The tuning installs when there is no plan: GrowthBook's default.
    package static let defaultTuningInstalls = 5_000.0

    /// ρ², the mixing variance per install in units of the data's variance, that makes the two-sided
    /// boundary tightest (nearly: Waudby-Smith et al.'s closed form) at `tuningInstalls` installs.
    /// α is clamped to `[1e-15, 0.5]` and the installs to at least 1, so the result is finite.
    package static func mixingRate(alpha: Double, tuningInstalls: Double) -> Double {
        let logAlpha = log(clampedAlpha(alpha))
        let tuning = tuningInstalls.isFinite ? max(tuningInstalls, 1) : defaultTuningInstalls
        return (-2 * logAlpha + log(1 - 2 * logAlpha)) / tuning
    }

    /// The Agresti–Caffo centre d̃ and variance V of variant − control (see the top of the file).
    package static func estimate(
        control: ExperimentArmTally,
        variant: ExperimentArmTally
    ) -> (centre: Double, variance: Double) {
        let a = control.clamped
        let b = variant.clamped
        let pa = Double(a.conversions + 1) / Double(a.installs + 2)
        let pb = Double(b.conversions + 1) / Double(b.installs + 2)
        let variance = pa * (1 - pa) / Double(a.installs + 2) + pb * (1 - pb) / Double(b.installs + 2)
        return (pb - pa, variance)
    }

    /// A two-sided look at variant − control.
    /// - Parameters:
    ///   - alpha: the level of this comparison (already divided by the number of comparisons).
    ///   - tuningInstalls: the installs of both arms at which the boundary is tightest.
    package static func twoSided(
        control: ExperimentArmTally,
        variant: ExperimentArmTally,
        alpha: Double,
        tuningInstalls: Double
    ) -> SequentialLook {
        let difference = variant.rate - control.rate
        let installs = Double(control.clamped.installs + variant.clamped.installs)
        guard installs > 0 else { return SequentialLook(difference: difference, lower: -1, upper: 1, pValue: 1) }
        let r = installs * mixingRate(alpha: alpha, tuningInstalls: tuningInstalls)
        let (centre, variance) = estimate(control: control, variant: variant)
        let se = variance.squareRoot()
        let half = twoSidedCritical(alpha: alpha, r: r) * se
        return SequentialLook(
            difference: difference,
            lower: max(-1, centre - half),
            upper: min(1, centre + half),
            pValue: twoSidedPValue(z: centre / se, r: r)
        )
    }

    /// A one-sided look for harm: the difference is signed so that positive is harm (`sign` +1
    /// when a rise is harmful, −1 when a fall is); `lower` bounds the harm from below, `upper`
    /// from above, each at level α; the p-value tests "no harm" (harm ≤ 0).
    package static func oneSided(
        control: ExperimentArmTally,
        variant: ExperimentArmTally,
        sign: Double,
        alpha: Double,
        tuningInstalls: Double
    ) -> SequentialLook {
        let s: Double = sign < 0 ? -1 : 1
        let difference = s * (variant.rate - control.rate)
        let installs = Double(control.clamped.installs + variant.clamped.installs)
        guard installs > 0 else { return SequentialLook(difference: difference, lower: -1, upper: 1, pValue: 1) }
        let r = installs * mixingRate(alpha: alpha, tuningInstalls: tuningInstalls)
        let (centre, variance) = estimate(control: control, variant: variant)
        let se = variance.squareRoot()
        let half = oneSidedCritical(alpha: alpha, r: r) * se
        return SequentialLook(
            difference: difference,
            lower: max(-1, s * centre - half),
            upper: min(1, s * centre + half),
            pValue: oneSidedPValue(z: s * centre / se, r: r)
        )
    }

    /// The one-sided p-value of "the harm is at least `margin`" (signed as in `oneSided`): below α,
    /// the harm is smaller than the margin, at every look at once with probability 1 − α.
    package static func withinMarginPValue(
        control: ExperimentArmTally,
        variant: ExperimentArmTally,
        sign: Double,
        margin: Double,
        alpha: Double,
        tuningInstalls: Double
    ) -> Double {
        let s: Double = sign < 0 ? -1 : 1
        let installs = Double(control.clamped.installs + variant.clamped.installs)
        guard installs > 0 else { return 1 }
        let r = installs * mixingRate(alpha: alpha, tuningInstalls: tuningInstalls)
        let (centre, variance) = estimate(control: control, variant: variant)
        return oneSidedPValue(z: (margin - s * centre) / variance.squareRoot(), r: r)
    }

    // MARK: - The boundaries in standard units

    /// The two-sided half-width in standard errors: √((1 + r)/r · (2 ln(1/α) + ln(1 + r))); +∞ at r = 0.
    package static func twoSidedCritical(alpha: Double, r: Double) -> Double {
        guard r > 0 else { return .infinity }
        return ((1 + r) / r * (-2 * log(clampedAlpha(alpha)) + log1p(r))).squareRoot()
    }

    /// min(1, √(1 + r) · exp(−r/(1 + r) · z²/2)), computed as a logarithm so that a large z gives a
    /// tiny p-value (or 0), never an overflow.
    package static func twoSidedPValue(z: Double, r: Double) -> Double {
        guard r > 0, z.isFinite else { return z.isFinite || r <= 0 ? 1 : 0 }
        let logP = 0.5 * log1p(r) - r / (1 + r) * z * z / 2
        return logP >= 0 ? 1 : exp(logP)
    }

    /// log Λ⁺(z): the one-sided (half-normal) mixture of the likelihood ratios, in standard units.
    package static func oneSidedLogMixture(z: Double, r: Double) -> Double {
        guard r > 0 else { return 0 }
        let shrink = r / (1 + r)
        return log(2.0) - 0.5 * log1p(r) + shrink * z * z / 2 + NormalDistribution.logCDF(z * shrink.squareRoot())
    }

    /// min(1, 1/Λ⁺(z)).
    package static func oneSidedPValue(z: Double, r: Double) -> Double {
        guard !z.isNaN else { return 1 }
        if z == .infinity { return 0 }
        let logLambda = oneSidedLogMixture(z: z, r: r)
        return logLambda <= 0 ? 1 : exp(-logLambda)
    }

    /// k⁺ with Λ⁺(k⁺) = 1/α: the one-sided bound's distance from the centre in standard errors.
    ///
    /// log Λ⁺ is increasing in z (every mixed ratio is). For z > 0 the half mixture is at least the
    /// full one (Λ ≤ Λ⁺, the positive half of the mixture weighs more) and at most twice it
    /// (Λ⁺ ≤ 2Λ), so k⁺ lies between the two-sided critical values at 2α and at α: Newton's method
    /// from the bottom of that bracket, kept inside it, converges in a few steps.
    package static func oneSidedCritical(alpha: Double, r: Double) -> Double {
        guard r > 0 else { return .infinity }
        let alpha = clampedAlpha(alpha)
        let target = -log(alpha)
        let shrink = r / (1 + r)
        let scale = shrink.squareRoot()
        // The two-sided critical value at 2α (written out: `twoSidedCritical` would clamp 2α to 0.5).
        var low = ((1 + r) / r * (max(-2 * log(2 * alpha), 0) + log1p(r))).squareRoot()
        var high = twoSidedCritical(alpha: alpha, r: r)
        // Rounding could leave the bracket a hair off the root; widen it rather than trust it.
        while low > 0, oneSidedLogMixture(z: low, r: r) > target { low /= 2 }
        while oneSidedLogMixture(z: high, r: r) < target { high *= 2 }
        var k = low
        for _ in 0..<100 {
            let f = oneSidedLogMixture(z: k, r: r) - target
            if f > 0 { high = k } else { low = k }
            // d/dz log Λ⁺ = shrink·z + scale·φ(scale·z)/Φ(scale·z), the hazard written through logs.
            let u = scale * k
            let hazard = exp(-0.5 * u * u - 0.5 * log(2 * Double.pi) - NormalDistribution.logCDF(u))
            let slope = shrink * k + scale * hazard
            var next = k - f / slope
            if !(next > low && next < high) { next = (low + high) / 2 }
            if abs(next - k) <= 1e-15 * max(1, k) {
                k = next
                break
            }
            k = next
        }
        return k
    }

    /// α clamped to `[1e-15, 0.5]`: the API validates α; this keeps a bad one from giving NaN.
    static func clampedAlpha(_ alpha: Double) -> Double {
        alpha.isNaN ? 0.05 : min(max(alpha, 1e-15), 0.5)
    }
}
