#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// The statistics behind an experiment's results, for the engineer who comes after.
//
// Unit of analysis: the install, not the event. An arm's `installs` are the distinct installs
// exposed to it (installs seen in two arms are excluded before this runs), its `conversions` the
// installs that did the primary metric at least once. Counting events instead would weigh a
// heavy user many times and break the independence every test below assumes.
//
// - Rate of an arm: conversions / installs with a 95 % **Wilson score interval**
//   (centre (p + z²/2n) / (1 + z²/n), half-width z/(1 + z²/n) · √(p(1−p)/n + z²/4n²)).
//   Unlike the textbook Wald interval p ± z√(p(1−p)/n) it keeps its coverage for small n and
//   rates near 0 or 1, and never leaves [0, 1] (0 of 50 gives [0, 0.071], not [0, 0]).
// - Difference to control: p_b − p_a with a 95 % interval from the **unpooled** standard error
//   √(p_a(1−p_a)/n_a + p_b(1−p_b)/n_b): the interval describes the difference we estimate, which
//   need not be zero, so each arm keeps its own variance.
// - p-value: the two-sided **two-proportion z-test with pooled variance**,
//   z = (p_b − p_a) / √(p̂(1−p̂)(1/n_a + 1/n_b)), p̂ = (c_a + c_b)/(n_a + n_b), p = erfc(|z|/√2).
//   Under the null hypothesis both arms share one rate, so the pooled estimate is its best
//   variance; this is the test of R's `prop.test` without continuity correction.
// - Significance: p < α / m, m the number of non-control arms (**Bonferroni**). With three
//   variants against control, three tests at α each would call a false winner up to 3α of the
//   time; dividing α keeps the chance of any false call at most α, at some cost in power.
// - Chance to beat control: P(p_b > p_a) for the posteriors Beta(1 + c, 1 + n − c) (uniform
//   prior). Computed exactly with **Evan Miller's closed form**
//   Σ_{i<α_b} B(α_a + i, β_a + β_b) / ((β_b + i) · B(1 + i, β_b) · B(α_a, β_a)), whose terms
//   follow one another by a rational ratio, summed in log space; by symmetry the sum can run over
//   any of α_a, α_b, β_a, β_b terms, so the smallest is used (usually the conversions). When even
//   that exceeds `exactBetaTermLimit` terms every posterior is so close to a normal one that the
//   **normal approximation** Φ((m_b − m_a)/√(v_a + v_b)) is exact to display precision and keeps
//   the cost bounded. Deterministic by construction: the service draws no random numbers, so the
//   same counts always give the same figure on every replica.
// - Sample-ratio mismatch: **χ² goodness of fit** of the installs per arm against the split the
//   assignment makes (the weights, normalised as `ExperimentAssignment.bucketRanges` does),
//   Σ (o − e)²/e, p-value from the χ² distribution with k − 1 degrees of freedom,
//   Q((k − 1)/2, χ²/2), Q the regularized upper incomplete gamma function (series below a + 1,
//   continued fraction above, as in Numerical Recipes §6.2). Flagged at p < 0.001: a broken split
//   (a cache serving one variant to everyone, a client that drops events in one arm) biases every
//   other figure, and at 0.001 a healthy experiment is flagged about once in a thousand checks.
//   Arms of weight 0 take no part; installs counted in one are a mismatch by themselves.
// - Verdict: `collecting` until every arm that can receive installs (weight > 0) has
//   `minimumInstalls`; then `sample-ratio-mismatch` when flagged (nothing else can be trusted);
//   then `winner`: the significant arm with the largest positive difference, or control when
//   every other arm is significantly worse; else `no-significant-difference`.
//
// Every function is total: zero installs, zero or all conversions, a weight of 0 give finite
// numbers (an empty arm has rate 0 in [0, 1], p-value 1, chance 0.5), never NaN, never a trap.
//
// These are **fixed-horizon** figures: valid when read once, at a size fixed in advance. Read daily
// and stopped at the first p < 0.05 they call false winners far more often than 5 % of the time;
// the figures safe to read at every look are `SequentialTest`'s, and the verdict shown to a
// product manager is `ExperimentDecision`'s, which rests on them (`ExperimentReport` builds both).

/// The counts of one arm (variant) of an experiment: its split weight, the installs exposed to it
/// and how many of them converted on the primary metric.
package struct ExperimentArmCounts: Sendable, Equatable {
    package var key: String
    package var weight: Double
    package var installs: Int
    package var conversions: Int

    package init(key: String, weight: Double, installs: Int, conversions: Int) {
        self.key = key
        self.weight = weight
        self.installs = installs
        self.conversions = conversions
    }
}

/// A proportion (or a difference of two) with its 95 % interval.
package struct ProportionEstimate: Sendable, Equatable {
    package var value: Double
    package var lower: Double
    package var upper: Double

    package init(value: Double, lower: Double, upper: Double) {
        self.value = value
        self.lower = lower
        self.upper = upper
    }
}

/// One arm's results. The comparison members (`difference`, `pValue`, `chanceToBeatControl`,
/// `significant`) are `nil` for the control arm.
package struct ExperimentArmAnalysis: Sendable, Equatable {
    package var key: String
    package var installs: Int
    package var conversions: Int
    package var rate: ProportionEstimate
    package var difference: ProportionEstimate?
    package var pValue: Double?
    package var chanceToBeatControl: Double?
    /// `pValue` < alpha / (number of non-control arms) (Bonferroni).
    package var significant: Bool?

    package init(
        key: String,
        installs: Int,
        conversions: Int,
        rate: ProportionEstimate,
        difference: ProportionEstimate? = nil,
        pValue: Double? = nil,
        chanceToBeatControl: Double? = nil,
        significant: Bool? = nil
    ) {
        self.key = key
        self.installs = installs
        self.conversions = conversions
        self.rate = rate
        self.difference = difference
        self.pValue = pValue
        self.chanceToBeatControl = chanceToBeatControl
        self.significant = significant
    }
}

/// The χ² check of the installs per arm against the weights.
package struct SampleRatioCheck: Sendable, Equatable {
    package var chiSquare: Double
    package var pValue: Double
    package var mismatch: Bool

    package init(chiSquare: Double, pValue: Double, mismatch: Bool) {
        self.chiSquare = chiSquare
        self.pValue = pValue
        self.mismatch = mismatch
    }
}

/// What the results say, in the order the checks apply (see `ExperimentStatistics`).
package enum ExperimentVerdict: String, Sendable {
    case collecting
    case sampleRatioMismatch = "sample-ratio-mismatch"
    case noSignificantDifference = "no-significant-difference"
    case winner
}

/// An experiment's results: every arm, the split check, and the verdict.
package struct ExperimentAnalysis: Sendable, Equatable {
    package var arms: [ExperimentArmAnalysis]
    package var sampleRatio: SampleRatioCheck
    package var enoughData: Bool
    package var verdict: ExperimentVerdict
    /// The winning arm's key when `verdict` is `winner` (control's when every other arm is
    /// significantly worse), else `nil`.
    package var winner: String?

    package init(
        arms: [ExperimentArmAnalysis],
        sampleRatio: SampleRatioCheck,
        enoughData: Bool,
        verdict: ExperimentVerdict,
        winner: String?
    ) {
        self.arms = arms
        self.sampleRatio = sampleRatio
        self.enoughData = enoughData
        self.verdict = verdict
        self.winner = winner
    }
}

/// The frequentist and Bayesian figures of an experiment's results, computed from counts per
/// install. The comment at the top of this file gives each formula and why it was chosen.
package enum ExperimentStatistics {
    package static let defaultMinimumInstalls = 100
    /// The sample-ratio check flags a split whose χ² p-value is below this.
    package static let sampleRatioThreshold = 0.001
    /// Above this many terms the chance to beat control uses the normal approximation.
    package static let exactBetaTermLimit = 100_000
    /// Φ⁻¹(0.975): the half-width of a two-sided 95 % interval in standard errors.
    static let z95 = 1.959_963_984_540_054

    /// Analyses an experiment's arms; `arms[0]` is control.
    /// - Parameters:
    ///   - minimumInstalls: the installs every arm of positive weight needs before any verdict.
    ///   - alpha: the family-wise significance level. An arm is `significant` when its p-value is
    ///     below alpha / (number of non-control arms): the Bonferroni correction, so that with
    ///     several variants the chance of any false winner stays at most alpha.
    package static func analyze(
        _ arms: [ExperimentArmCounts],
        minimumInstalls: Int = defaultMinimumInstalls,
        alpha: Double = 0.05
    ) -> ExperimentAnalysis {
        // Counts from a store are never negative and conversions never exceed installs; clamp
        // anyway so a bad row gives a bad figure, not a NaN.
        let counts = arms.map { arm in
            let installs = max(arm.installs, 0)
            return (installs: installs, conversions: min(max(arm.conversions, 0), installs))
        }
        let sampleRatio = sampleRatioCheck(
            installs: counts.map(\.installs),
            weights: arms.map(\.weight)
        )
        let comparisons = max(arms.count - 1, 1)
        let threshold = alpha / Double(comparisons)

        var analyses: [ExperimentArmAnalysis] = []
        for (index, arm) in arms.enumerated() {
            let (installs, conversions) = counts[index]
            var analysis = ExperimentArmAnalysis(
                key: arm.key,
                installs: installs,
                conversions: conversions,
                rate: wilsonInterval(conversions: conversions, installs: installs)
            )
            if index > 0 {
                let control = counts[0]
                let p = twoProportionPValue(
                    controlConversions: control.conversions,
                    controlInstalls: control.installs,
                    conversions: conversions,
                    installs: installs
                )
                analysis.difference = differenceInterval(
                    controlConversions: control.conversions,
                    controlInstalls: control.installs,
                    conversions: conversions,
                    installs: installs
                )
                analysis.pValue = p
                analysis.chanceToBeatControl = chanceToBeatControl(
                    controlConversions: control.conversions,
                    controlInstalls: control.installs,
                    conversions: conversions,
                    installs: installs
                )
                analysis.significant = p < threshold
            }
            analyses.append(analysis)
        }

        // An arm of weight 0 receives no installs by design; waiting for it would never end.
        let enoughData =
            !arms.isEmpty
            && zip(arms, counts).allSatisfy { arm, count in
                !(arm.weight > 0) || count.installs >= minimumInstalls
            }
        let (verdict, winner) = decide(analyses, enoughData: enoughData, sampleRatio: sampleRatio)
        return ExperimentAnalysis(
            arms: analyses,
            sampleRatio: sampleRatio,
            enoughData: enoughData,
            verdict: verdict,
            winner: winner
        )
    }

    /// The verdict, in order: collecting, sample-ratio mismatch, winner, no significant difference.
    static func decide(
        _ arms: [ExperimentArmAnalysis],
        enoughData: Bool,
        sampleRatio: SampleRatioCheck
    ) -> (ExperimentVerdict, String?) {
        guard enoughData else { return (.collecting, nil) }
        guard !sampleRatio.mismatch else { return (.sampleRatioMismatch, nil) }
        let variants = arms.dropFirst()
        var best: ExperimentArmAnalysis?
        for arm in variants where arm.significant == true {
            guard let difference = arm.difference?.value, difference > 0 else { continue }
            if let current = best?.difference?.value, current >= difference { continue }
            best = arm
        }
        if let best { return (.winner, best.key) }
        let controlWins =
            !variants.isEmpty
            && variants.allSatisfy { $0.significant == true && ($0.difference?.value ?? 0) < 0 }
        if controlWins, let control = arms.first { return (.winner, control.key) }
        return (.noSignificantDifference, nil)
    }

    // MARK: - Proportions

    /// The rate conversions/installs with its 95 % Wilson score interval; `[0, 1]` for no installs.
    package static func wilsonInterval(conversions: Int, installs: Int) -> ProportionEstimate {
        guard installs > 0 else { return ProportionEstimate(value: 0, lower: 0, upper: 1) }
        let n = Double(installs)
        let p = Double(min(max(conversions, 0), installs)) / n
        let z2 = z95 * z95
        let denominator = 1 + z2 / n
        let centre = (p + z2 / (2 * n)) / denominator
        let half = z95 / denominator * (p * (1 - p) / n + z2 / (4 * n * n)).squareRoot()
        // The interval holds p exactly; rounding could put 0 of n a hair above 0.
        let lower = conversions <= 0 ? 0 : min(max(0, centre - half), p)
        let upper = conversions >= installs ? 1 : max(min(1, centre + half), p)
        return ProportionEstimate(value: p, lower: lower, upper: upper)
    }

    /// The difference of an arm's rate to control's with a 95 % interval from the unpooled
    /// standard error, clamped to `[-1, 1]`; `[-1, 1]` when either arm is empty.
    package static func differenceInterval(
        controlConversions: Int,
        controlInstalls: Int,
        conversions: Int,
        installs: Int
    ) -> ProportionEstimate {
        let a = rate(controlConversions, controlInstalls)
        let b = rate(conversions, installs)
        guard controlInstalls > 0, installs > 0 else { return ProportionEstimate(value: b - a, lower: -1, upper: 1) }
        let se = (a * (1 - a) / Double(controlInstalls) + b * (1 - b) / Double(installs)).squareRoot()
        let d = b - a
        return ProportionEstimate(value: d, lower: max(-1, d - z95 * se), upper: min(1, d + z95 * se))
    }

    /// The two-sided p-value of the two-proportion z-test with pooled variance. 1 when either arm
    /// is empty or both share a rate of 0 or 1 (no variance: no evidence of a difference).
    package static func twoProportionPValue(
        controlConversions: Int,
        controlInstalls: Int,
        conversions: Int,
        installs: Int
    ) -> Double {
        guard controlInstalls > 0, installs > 0 else { return 1 }
        let na = Double(controlInstalls)
        let nb = Double(installs)
        let pooled = Double(controlConversions + conversions) / (na + nb)
        let se = (pooled * (1 - pooled) * (1 / na + 1 / nb)).squareRoot()
        guard se > 0 else { return 1 }
        let z = (rate(conversions, installs) - rate(controlConversions, controlInstalls)) / se
        return min(1, erfc(abs(z) / 2.0.squareRoot()))
    }

    static func rate(_ conversions: Int, _ installs: Int) -> Double {
        installs > 0 ? Double(min(max(conversions, 0), installs)) / Double(installs) : 0
    }

    /// The standard normal distribution function Φ(x), through `erfc` so both tails keep their
    /// precision.
    package static func normalCDF(_ x: Double) -> Double {
        0.5 * erfc(-x / 2.0.squareRoot())
    }

    // MARK: - Chance to beat control

    /// P(p_b > p_a) for the posteriors Beta(1 + c, 1 + n − c) of control (a) and the arm (b).
    package static func chanceToBeatControl(
        controlConversions: Int,
        controlInstalls: Int,
        conversions: Int,
        installs: Int
    ) -> Double {
        let controlInstalls = max(controlInstalls, 0)
        let installs = max(installs, 0)
        let controlConversions = min(max(controlConversions, 0), controlInstalls)
        let conversions = min(max(conversions, 0), installs)
        return probabilityBBeatsA(
            alphaA: Double(1 + controlConversions),
            betaA: Double(1 + controlInstalls - controlConversions),
            alphaB: Double(1 + conversions),
            betaB: Double(1 + installs - conversions)
        )
    }

    /// P(X_b > X_a) for independent X_a ~ Beta(αa, βa), X_b ~ Beta(αb, βb), integer parameters.
    ///
    /// With q = 1 − x (Beta(β, α)), P(X_b > X_a) = P(Q_a > Q_b), and P(X_b > X_a) = 1 − P(X_a > X_b);
    /// so the closed form, whose length is the α of the arm in the "b" role, can be made as short
    /// as the smallest of the four parameters.
    package static func probabilityBBeatsA(alphaA: Double, betaA: Double, alphaB: Double, betaB: Double) -> Double {
        let smallest = min(alphaA, alphaB, betaA, betaB)
        if smallest > Double(exactBetaTermLimit) {
            return normalApproximation(alphaA: alphaA, betaA: betaA, alphaB: alphaB, betaB: betaB)
        }
        let result: Double
        switch smallest {
        case alphaB: result = millerSum(alphaA: alphaA, betaA: betaA, alphaB: alphaB, betaB: betaB)
        case alphaA: result = 1 - millerSum(alphaA: alphaB, betaA: betaB, alphaB: alphaA, betaB: betaA)
        case betaA: result = millerSum(alphaA: betaB, betaA: alphaB, alphaB: betaA, betaB: alphaA)
        default: result = 1 - millerSum(alphaA: betaA, betaA: alphaA, alphaB: betaB, betaB: alphaB)
        }
        return min(max(result, 0), 1)
    }

    /// Evan Miller's closed form, Σ_{i=0}^{αb−1} B(αa + i, βa + βb) / ((βb + i) B(1 + i, βb) B(αa, βa)).
    ///
    /// Term 0 is B(αa, βa + βb) / B(αa, βa); term i+1 / term i = (αa + i)(βb + i) / ((αa + βa + βb + i)(1 + i)).
    /// The terms are positive but may start far below the smallest double, so they are summed as
    /// logarithms, scaled by the largest seen so far.
    static func millerSum(alphaA: Double, betaA: Double, alphaB: Double, betaB: Double) -> Double {
        var logTerm = logBeta(alphaA, betaA + betaB) - logBeta(alphaA, betaA)
        var maxLog = logTerm
        var scaled = 1.0  // Σ exp(logTerm_i − maxLog)
        let count = Int(alphaB)
        var i = 0.0
        for _ in 1..<max(count, 1) {
            logTerm += log((alphaA + i) * (betaB + i)) - log((alphaA + betaA + betaB + i) * (1 + i))
            i += 1
            if logTerm > maxLog {
                scaled = scaled * exp(maxLog - logTerm) + 1
                maxLog = logTerm
            } else {
                scaled += exp(logTerm - maxLog)
            }
        }
        return exp(maxLog + log(scaled))
    }

    /// Φ((m_b − m_a) / √(v_a + v_b)) with each Beta's mean and variance: for parameters this large
    /// both posteriors are normal to many digits.
    static func normalApproximation(alphaA: Double, betaA: Double, alphaB: Double, betaB: Double) -> Double {
        func moments(_ a: Double, _ b: Double) -> (mean: Double, variance: Double) {
            let s = a + b
            return (a / s, a * b / (s * s * (s + 1)))
        }
        let ma = moments(alphaA, betaA)
        let mb = moments(alphaB, betaB)
        let sd = (ma.variance + mb.variance).squareRoot()
        guard sd > 0 else { return 0.5 }
        return normalCDF((mb.mean - ma.mean) / sd)
    }

    /// log Γ(x) for x > 0, through the C library's reentrant `lgamma_r` (plain `lgamma` writes
    /// the global `signgam`, a data race between concurrent requests).
    package static func logGamma(_ x: Double) -> Double {
        var sign: Int32 = 0
        return lgamma_r(x, &sign)
    }

    static func logBeta(_ a: Double, _ b: Double) -> Double {
        logGamma(a) + logGamma(b) - logGamma(a + b)
    }

    // MARK: - Sample ratio

    /// The χ² goodness of fit of the installs per arm against the weights, flagged at p < 0.001.
    ///
    /// Weights are normalised as the assignment does (`ExperimentAssignment.bucketRanges`: equal
    /// weights unless they sum to 1 ± 0.01), so the expected split is the one actually served.
    /// Arms of weight 0 are left out of the χ²; installs in one are flagged as a mismatch (p 0).
    package static func sampleRatioCheck(installs: [Int], weights: [Double]) -> SampleRatioCheck {
        let installs = installs.map { max($0, 0) }
        let count = installs.count
        let cleaned = weights.map { $0.isFinite && $0 > 0 ? $0 : 0 }
        var split = cleaned
        let total = cleaned.reduce(0, +)
        if cleaned.count != count || total < 0.99 || total > 1.01 || total <= 0 {
            split = [Double](repeating: 1 / Double(max(count, 1)), count: count)
        } else {
            split = cleaned.map { $0 / total }
        }
        let n = Double(installs.reduce(0, +))
        var chiSquare = 0.0
        var categories = 0
        var strayInstalls = false
        for (observed, share) in zip(installs, split) {
            guard share > 0 else {
                if observed > 0 { strayInstalls = true }
                continue
            }
            categories += 1
            guard n > 0 else { continue }
            let expected = n * share
            let deviation = Double(observed) - expected
            chiSquare += deviation * deviation / expected
        }
        if strayInstalls { return SampleRatioCheck(chiSquare: chiSquare, pValue: 0, mismatch: true) }
        guard categories >= 2, n > 0 else { return SampleRatioCheck(chiSquare: 0, pValue: 1, mismatch: false) }
        let p = chiSquarePValue(chiSquare, degreesOfFreedom: categories - 1)
        return SampleRatioCheck(chiSquare: chiSquare, pValue: p, mismatch: p < sampleRatioThreshold)
    }

    /// P(X ≥ x) for X ~ χ² with `degreesOfFreedom` degrees: Q(df/2, x/2).
    package static func chiSquarePValue(_ x: Double, degreesOfFreedom: Int) -> Double {
        guard degreesOfFreedom > 0 else { return 1 }
        return regularizedUpperGamma(Double(degreesOfFreedom) / 2, x / 2)
    }

    /// The regularized upper incomplete gamma function Q(a, x) = Γ(a, x) / Γ(a), a > 0.
    ///
    /// Below x = a + 1 the series of P = 1 − Q converges fast; above it the continued fraction of
    /// Q does (modified Lentz), which also keeps the far tail's tiny values instead of 1 − 1.
    package static func regularizedUpperGamma(_ a: Double, _ x: Double) -> Double {
        guard a > 0, !x.isNaN else { return 1 }
        if x <= 0 { return 1 }
        if x == .infinity { return 0 }
        let logPrefix = a * log(x) - x - logGamma(a)
        if x < a + 1 {
            // P(a, x) = e^{−x} x^a / Γ(a) · Σ_{n≥0} x^n / (a (a+1) … (a+n)).
            var denominator = a
            var term = 1 / a
            var sum = term
            for _ in 0..<100_000 {
                denominator += 1
                term *= x / denominator
                sum += term
                if abs(term) < abs(sum) * 1e-16 { break }
            }
            return min(max(1 - sum * exp(logPrefix), 0), 1)
        }
        // Q(a, x) = e^{−x} x^a / Γ(a) · 1/(x + 1 − a − 1·(1 − a)/(x + 3 − a − 2·(2 − a)/(x + 5 − a − …))).
        let tiny = 1e-300
        var b = x + 1 - a
        var c = 1 / tiny
        var d = 1 / b
        var h = d
        for i in 1..<100_000 {
            let an = -Double(i) * (Double(i) - a)
            b += 2
            d = an * d + b
            if abs(d) < tiny { d = tiny }
            c = b + an / c
            if abs(c) < tiny { c = tiny }
            d = 1 / d
            let delta = d * c
            h *= delta
            if abs(delta - 1) < 1e-16 { break }
        }
        return min(max(exp(logPrefix) * h, 0), 1)
    }
}
