/// A secondary metric an experiment must not make worse, such as the share of exposed installs that
/// tap back or dismiss: tested for harm at every look, one-sided and sequentially, so that a harmed
/// guardrail is seen as soon as the data show it while a healthy one raises a false alarm at most
/// α of the time however often the results are read.
///
/// Its unit is the install, like the primary metric's: the rate is installs that did the
/// guardrail's action at least once over installs exposed (the store keeps each install's first
/// tap of each action), so the same binomial model and `SequentialTest` apply.
///
/// Three states, per variant against control:
/// - `harmed`: the always-valid lower bound of the harm is above 0 (p < α for "no harm").
/// - `not-harmed`: the always-valid upper bound of the harm is below the margin: any harm there is
///   is smaller than what the team said it tolerates. Wrongly said of a harm of the margin's size
///   at most α of the time.
/// - `inconclusive`: neither yet, or fewer installs than the minimum.
/// Each bound is one-sided at α, α divided by the number of variants like the primary metric's.
/// Several guardrails are each tested at that α: more guardrails, more false alarms in total — a
/// false alarm costs a second look, a missed harm ships it.
package struct ExperimentGuardrail: Sendable, Equatable {
    /// Which way the rate moving is harm.
    package enum Harm: String, Sendable, CaseIterable {
        /// More is worse (back, dismiss, error taps): the usual guardrail.
        case increase
        /// Less is worse (a secondary action that should not fall).
        case decrease

        var sign: Double { self == .increase ? 1 : -1 }
    }

    /// The default margin: a harm up to 10 % of control's rate is tolerated. Stricter margins need
    /// more installs to reach `not-harmed` (they never change when `harmed` is said).
    package static let defaultMargin = ExperimentEffect.relative(0.1)

    /// Its name in the results (for example the action, `back`).
    package var key: String
    package var harm: Harm
    /// The largest harm tolerated, relative to control's observed rate or in rate points.
    package var margin: ExperimentEffect

    package init(key: String, harm: Harm = .increase, margin: ExperimentEffect = defaultMargin) {
        self.key = key
        self.harm = harm
        self.margin = margin
    }
}

/// What a guardrail says of a variant: see `ExperimentGuardrail`.
package enum GuardrailState: String, Sendable, CaseIterable {
    case harmed
    case notHarmed = "not-harmed"
    case inconclusive
}

/// One variant against control on one guardrail, as of a look, with the running (always-valid)
/// figures.
package struct GuardrailComparison: Sendable, Equatable {
    package var variant: String
    package var controlRate: Double
    package var rate: Double
    /// The observed harm: the difference of the rates signed so that positive is harm.
    package var harm: Double
    /// The always-valid bounds on the harm, each one-sided at the comparison's α.
    package var lowerBound: Double
    package var upperBound: Double
    /// The always-valid p-value of "no harm".
    package var pValue: Double
    /// The margin in rate points, positive.
    package var margin: Double
    package var state: GuardrailState
    /// Whether the harm's bounds ever contradicted each other over time (see `ConfidenceSequence`).
    package var drifted: Bool

    package init(
        variant: String,
        controlRate: Double,
        rate: Double,
        harm: Double,
        lowerBound: Double,
        upperBound: Double,
        pValue: Double,
        margin: Double,
        state: GuardrailState,
        drifted: Bool
    ) {
        self.variant = variant
        self.controlRate = controlRate
        self.rate = rate
        self.harm = harm
        self.lowerBound = lowerBound
        self.upperBound = upperBound
        self.pValue = pValue
        self.margin = margin
        self.state = state
        self.drifted = drifted
    }
}

/// A guardrail across the variants, as of a look.
package struct GuardrailResult: Sendable, Equatable {
    package var key: String
    package var harm: ExperimentGuardrail.Harm
    /// One per variant (not control), in variant order.
    package var comparisons: [GuardrailComparison]

    package init(key: String, harm: ExperimentGuardrail.Harm, comparisons: [GuardrailComparison]) {
        self.key = key
        self.harm = harm
        self.comparisons = comparisons
    }

    /// The worst state of any variant: harmed, else inconclusive, else not harmed.
    package var state: GuardrailState {
        if comparisons.contains(where: { $0.state == .harmed }) { return .harmed }
        if comparisons.contains(where: { $0.state == .inconclusive }) || comparisons.isEmpty { return .inconclusive }
        return .notHarmed
    }
}

/// The running state of one variant's guardrail test over the looks.
package struct GuardrailSequence: Sendable, Equatable {
    private var sequence = ConfidenceSequence()
    private var withinMargin = 1.0

    package init() {}

    /// Adds a look and returns the comparison as of it.
    /// - Parameters:
    ///   - counted: whether both arms have the minimum installs; a look without them is not
    ///     recorded (the normal approximation is not trusted yet) and says `inconclusive`.
    ///   - alpha: the comparison's level (α divided by the number of variants).
    package mutating func record(
        variant key: String,
        control: ExperimentArmTally,
        variant: ExperimentArmTally,
        guardrail: ExperimentGuardrail,
        alpha: Double,
        tuningInstalls: Double,
        counted: Bool
    ) -> GuardrailComparison {
        let sign = guardrail.harm.sign
        let margin = abs(guardrail.margin.absolute(from: control.rate))
        if counted {
            let look = SequentialTest.oneSided(
                control: control,
                variant: variant,
                sign: sign,
                alpha: alpha,
                tuningInstalls: tuningInstalls
            )
            let pWithin = SequentialTest.withinMarginPValue(
                control: control,
                variant: variant,
                sign: sign,
                margin: margin,
                alpha: alpha,
                tuningInstalls: tuningInstalls
            )
            let restarted = sequence.record(look)
            withinMargin = restarted ? pWithin : min(withinMargin, pWithin)
        }
        let state: GuardrailState
        if sequence.looks == 0 {
            state = .inconclusive
        } else if sequence.pValue < alpha {
            state = .harmed
        } else if withinMargin < alpha {
            state = .notHarmed
        } else {
            state = .inconclusive
        }
        return GuardrailComparison(
            variant: key,
            controlRate: control.rate,
            rate: variant.rate,
            harm: sign * (variant.rate - control.rate),
            lowerBound: sequence.looks == 0 ? -1 : sequence.lower,
            upperBound: sequence.looks == 0 ? 1 : sequence.upper,
            pValue: sequence.looks == 0 ? 1 : sequence.pValue,
            margin: margin,
            state: state,
            drifted: sequence.drifted
        )
    }
}
