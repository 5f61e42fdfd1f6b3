#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A change of a conversion rate: relative to the baseline (`0.1`: +10 % of it, 10 % → 11 %) or
/// absolute (`0.01`: +1 percentage point, 10 % → 11 %).
package enum ExperimentEffect: Sendable, Equatable {
    case relative(Double)
    case absolute(Double)

    /// The change in rate from `baseline`: `baseline × r` for a relative effect.
    package func absolute(from baseline: Double) -> Double {
        switch self {
        case .relative(let value): baseline * value
        case .absolute(let value): value
        }
    }
}

/// How many installs an experiment needs to find a given effect, before it starts: per arm, for the
/// fixed-horizon z-test (read once, at that size) and for the sequential test the verdict uses (read
/// at any time), plus how long that takes at the template's recent traffic.
///
/// Fixed horizon, the two-proportion z-test with pooled variance that `ExperimentStatistics` runs
/// (Fleiss' formula without continuity correction), for control a and a variant with k = w_b/w_a
/// times control's installs: n_a = (z_{1−α'/2} √(p̄q̄(1 + 1/k)) + z_{power} √(p_a q_a + p_b q_b / k))² / δ²,
/// p̄ = (p_a + k p_b)/(1 + k). For 10 % → 11 %, α 0.05, power 0.8: 14,751 per arm (the figure of
/// the formats-and-experiments note, ≈ 14,750; the arcsine formula gives 14,744).
///
/// Sequential: the installs at which the confidence sequence, tuned to be tightest there, leaves 0
/// at that last look alone with the given power: n_a = ((c + z_{power}) √(p_a q_a + p_b q_b / k) / δ)²,
/// c = the boundary in standard errors at the tuning size (3.035 at α 0.05). It is conservative,
/// since the looks before add chances to stop; the simulation in `SequentialSimulationTests`
/// measures the real power with 20 looks. It costs about 1.9 times the fixed-horizon installs:
/// the price of being free to look every day and to stop early when the effect is large.
///
/// With several variants α' = α/(variants) (Bonferroni, as the verdict applies it), every variant is
/// compared with control, and control's installs are the largest any comparison needs.
package struct ExperimentPlan: Sendable, Equatable {
    /// What the product manager asks.
    package struct Input: Sendable, Equatable {
        /// Control's expected conversion rate, in (0, 1).
        package var baselineRate: Double
        /// The smallest change worth finding.
        package var minimumDetectableEffect: ExperimentEffect
        /// The two-sided false-positive rate over all variants (0.05 is usual).
        package var alpha: Double
        /// The chance of finding an effect of exactly the minimum size (0.8 is usual).
        package var power: Double
        /// The arms' split, control first, as the experiment's weights (adding up to 1).
        package var weights: [Double]

        package init(
            baselineRate: Double,
            minimumDetectableEffect: ExperimentEffect,
            alpha: Double = 0.05,
            power: Double = 0.8,
            weights: [Double] = [0.5, 0.5]
        ) {
            self.baselineRate = baselineRate
            self.minimumDetectableEffect = minimumDetectableEffect
            self.alpha = alpha
            self.power = power
            self.weights = weights
        }
    }

    /// Why a plan cannot be made: every bad input, each with a JSON pointer named after `Input`'s
    /// members (`/baselineRate`, `/minimumDetectableEffect`, `/alpha`, `/power`, `/weights/1`), ready
    /// for a 422.
    package struct Refusal: Error, Sendable, Equatable {
        package var issues: [ValidationIssue]
    }

    package var input: Input
    /// The effect in rate points (target rate − baseline) and relative to the baseline.
    package var absoluteEffect: Double
    package var relativeEffect: Double
    /// α per comparison: α divided by the number of variants.
    package var comparisonAlpha: Double
    /// Installs per arm, in `weights` order, for the fixed-horizon test and for the sequential one.
    package var fixedHorizonInstalls: [Int]
    package var sequentialInstalls: [Int]

    package var fixedHorizonTotal: Int { fixedHorizonInstalls.reduce(0, +) }
    package var sequentialTotal: Int { sequentialInstalls.reduce(0, +) }

    /// The installs at which variant `index`'s confidence sequence is tuned to be tightest: control's
    /// and that variant's planned (sequential) installs.
    package func tuningInstalls(variant index: Int) -> Double {
        guard sequentialInstalls.indices.contains(index), index > 0 else { return Double(sequentialTotal) }
        return Double(sequentialInstalls[0] + sequentialInstalls[index])
    }

    /// The plan for `input`.
    /// - Throws: `Refusal` naming every input out of range.
    package static func make(_ input: Input) throws(Refusal) -> ExperimentPlan {
        var issues = check(
            baselineRate: input.baselineRate,
            alpha: input.alpha,
            power: input.power,
            weights: input.weights
        )
        let delta = input.minimumDetectableEffect.absolute(from: input.baselineRate)
        if let issue = effectIssue(input) { issues.append(issue) }
        guard issues.isEmpty else { throw Refusal(issues: issues) }
        let comparisonAlpha = input.alpha / Double(input.weights.count - 1)
        let fixed = try perArm(input.weights) {
            fixedHorizonControl(
                baseline: input.baselineRate,
                delta: delta,
                alpha: comparisonAlpha,
                power: input.power,
                ratio: $0
            )
        }
        let sequential = try perArm(input.weights) {
            sequentialControl(
                baseline: input.baselineRate,
                delta: delta,
                alpha: comparisonAlpha,
                power: input.power,
                ratio: $0
            )
        }
        return ExperimentPlan(
            input: input,
            absoluteEffect: delta,
            relativeEffect: delta / input.baselineRate,
            comparisonAlpha: comparisonAlpha,
            fixedHorizonInstalls: fixed,
            sequentialInstalls: sequential
        )
    }

    /// The smallest rise of the rate (absolute, in rate points) that `totalInstalls` split by
    /// `weights` find with the given power: the inverse of `make`, for "what can we detect with the
    /// traffic we have?".
    /// - Returns: `nil` when no rise up to a rate of 100 % is found with that many installs.
    /// - Throws: `Refusal` for inputs out of range (`/totalInstalls` among them).
    package static func minimumDetectableEffect(
        baselineRate: Double,
        totalInstalls: Int,
        alpha: Double = 0.05,
        power: Double = 0.8,
        weights: [Double] = [0.5, 0.5],
        sequential: Bool
    ) throws(Refusal) -> Double? {
        var issues = check(baselineRate: baselineRate, alpha: alpha, power: power, weights: weights)
        if totalInstalls <= 0 { issues.append(.init("/totalInstalls", "must be a positive number of installs")) }
        guard issues.isEmpty else { throw Refusal(issues: issues) }
        let comparisonAlpha = alpha / Double(weights.count - 1)
        let control = Double(totalInstalls) * weights[0] / weights.reduce(0, +)
        func enough(_ delta: Double) -> Bool {
            weights.dropFirst().allSatisfy { weight in
                let ratio = weight / weights[0]
                let needed =
                    sequential
                    ? sequentialControl(
                        baseline: baselineRate,
                        delta: delta,
                        alpha: comparisonAlpha,
                        power: power,
                        ratio: ratio
                    )
                    : fixedHorizonControl(
                        baseline: baselineRate,
                        delta: delta,
                        alpha: comparisonAlpha,
                        power: power,
                        ratio: ratio
                    )
                return needed <= control
            }
        }
        // The installs needed fall as the effect grows: bisect on the effect.
        var high = (1 - baselineRate) * (1 - 1e-12)
        guard enough(high) else { return nil }
        var low = 0.0
        for _ in 0..<200 where high - low > 1e-15 {
            let middle = (low + high) / 2
            if enough(middle) { high = middle } else { low = middle }
        }
        return high
    }

    // MARK: - The formulas

    /// Control's installs for the fixed-horizon test, before rounding up; `ratio` = variant/control.
    package static func fixedHorizonControl(
        baseline pa: Double,
        delta: Double,
        alpha: Double,
        power: Double,
        ratio k: Double
    ) -> Double {
        let pb = pa + delta
        let pooled = (pa + k * pb) / (1 + k)
        let null = (pooled * (1 - pooled) * (1 + 1 / k)).squareRoot()
        let alternative = (pa * (1 - pa) + pb * (1 - pb) / k).squareRoot()
        let z = NormalDistribution.quantile(1 - alpha / 2) * null + NormalDistribution.quantile(power) * alternative
        return z * z / (delta * delta)
    }

    /// Control's installs for the sequential test, before rounding up (see the type's comment).
    package static func sequentialControl(
        baseline pa: Double,
        delta: Double,
        alpha: Double,
        power: Double,
        ratio k: Double
    ) -> Double {
        let pb = pa + delta
        let alternative = (pa * (1 - pa) + pb * (1 - pb) / k).squareRoot()
        // Tuned at the size being solved for, r = N ρ² = N* ρ² is the same for every N.
        let boundary = SequentialTest.twoSidedCritical(
            alpha: alpha,
            r: SequentialTest.mixingRate(alpha: alpha, tuningInstalls: 1)
        )
        let z = (boundary + NormalDistribution.quantile(power)) * alternative
        return z * z / (delta * delta)
    }

    /// More installs per arm than any plan is made for: a tiny effect or α (`5e-324`, which the
    /// input rules allow) would otherwise ask for an infinite number, which is no `Int`.
    package static let maximumInstallsPerArm = 1e12

    /// Installs per arm: control gets the most any comparison needs, each variant its weight's share
    /// of that, each rounded up.
    /// - Throws: `Refusal` when an arm would need more than `maximumInstallsPerArm` (or the formula
    ///   is not finite): the effect, α or power is too extreme to plan for.
    private static func perArm(_ weights: [Double], control: (Double) -> Double) throws(Refusal) -> [Int] {
        let needed = weights.dropFirst().map { control($0 / weights[0]) }.max() ?? 0
        let arms = weights.map { (needed * $0 / weights[0]).rounded(.up) }
        guard arms.allSatisfy({ $0.isFinite && $0 >= 0 && $0 <= maximumInstallsPerArm }) else {
            throw Refusal(issues: [
                .init(
                    "/minimumDetectableEffect",
                    "needs more than 10^12 installs per variant with this alpha and power: plan for a larger effect"
                )
            ])
        }
        return arms.map { Int($0) }
    }

    /// What is wrong with the effect, if anything. A relative effect of an invalid baseline is not
    /// judged: the baseline's own issue says it all.
    private static func effectIssue(_ input: Input) -> ValidationIssue? {
        let baselineValid = input.baselineRate > 0 && input.baselineRate < 1
        if case .relative = input.minimumDetectableEffect, !baselineValid { return nil }
        let delta = input.minimumDetectableEffect.absolute(from: input.baselineRate)
        guard delta.isFinite, delta != 0 else {
            return .init("/minimumDetectableEffect", "must be a finite change other than 0")
        }
        let target = input.baselineRate + delta
        guard !baselineValid || (target > 0 && target < 1) else {
            return .init(
                "/minimumDetectableEffect",
                "takes the rate out of (0, 1): the baseline plus the effect is \(target)"
            )
        }
        return nil
    }

    private static func check(
        baselineRate: Double,
        alpha: Double,
        power: Double,
        weights: [Double]
    ) -> [ValidationIssue] {
        var issues: [ValidationIssue] = []
        if !(baselineRate > 0 && baselineRate < 1) {
            issues.append(.init("/baselineRate", "must be a rate strictly between 0 and 1"))
        }
        if !(alpha > 0 && alpha <= 0.5) { issues.append(.init("/alpha", "must be in (0, 0.5]; 0.05 is usual")) }
        if !(power >= 0.5 && power < 1) { issues.append(.init("/power", "must be in [0.5, 1); 0.8 is usual")) }
        if !(2...5).contains(weights.count) {
            issues.append(.init("/weights", "must have 2 to 5 weights, control's first, as the experiment's variants"))
        } else {
            for (index, weight) in weights.enumerated() where !(weight.isFinite && weight > 0) {
                issues.append(.init("/weights/\(index)", "must be a positive number"))
            }
            let total = weights.reduce(0, +)
            if issues.allSatisfy({ !$0.pointer.hasPrefix("/weights") }), total < 0.99 || total > 1.01 {
                issues.append(
                    .init("/weights", "must add up to 1, as the experiment's weights do (they add up to \(total))")
                )
            }
        }
        return issues
    }
}
