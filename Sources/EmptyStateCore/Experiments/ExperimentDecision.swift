/// The verdict on an experiment, in a word and in sentences for a product manager: what to do now.
///
/// It rests on the **sequential** figures (valid however often the results are read), never on the
/// fixed-horizon z-test shown beside them, and applies in this order:
/// 1. `collecting`: a draft, or an arm of positive weight below the minimum installs.
/// 2. `sample-ratio-mismatch`: the split is broken, so no other figure can be trusted.
/// 3. `winner`: the variant with the largest difference among those whose confidence sequence lies
///    above 0; or control, when every variant's lies below 0.
/// 4. `no-detectable-difference`: the planned installs are reached without a winner.
/// 5. `keep-running` while the experiment runs; `inconclusive` once stopped (or shipped) without
///    any of the above.
/// Warnings come on top of any outcome but the first two: a guardrail harmed by a variant, and a
/// difference that changed over time (see `ConfidenceSequence`).
package struct ExperimentDecision: Sendable, Equatable {
    package enum Outcome: String, Sendable, CaseIterable {
        case collecting
        case sampleRatioMismatch = "sample-ratio-mismatch"
        case keepRunning = "keep-running"
        case winner
        case noDetectableDifference = "no-detectable-difference"
        case inconclusive
    }

    package var outcome: Outcome
    /// The winning arm's key (control's when every variant is worse) when `outcome` is `winner`.
    package var winner: String?
    package var warnings: [ExperimentWarning]
    /// The verdict in words, warnings included: what the console shows above the figures.
    package var sentence: String

    package init(outcome: Outcome, winner: String?, warnings: [ExperimentWarning], sentence: String) {
        self.outcome = outcome
        self.winner = winner
        self.warnings = warnings
        self.sentence = sentence
    }
}

/// Something the verdict warns about, with its own sentence (also part of the decision's).
package struct ExperimentWarning: Sendable, Equatable {
    package enum Kind: String, Sendable, CaseIterable {
        /// A variant harms a guardrail (its always-valid lower bound of harm is above 0).
        case guardrailHarmed = "guardrail-harmed"
        /// A variant's difference to control changed over time (two looks' intervals disjoint).
        case differenceChangedOverTime = "difference-changed-over-time"
    }

    package var kind: Kind
    package var variant: String
    /// The guardrail's key for `guardrailHarmed`.
    package var guardrail: String?
    package var message: String

    package init(kind: Kind, variant: String, guardrail: String? = nil, message: String) {
        self.kind = kind
        self.variant = variant
        self.guardrail = guardrail
        self.message = message
    }
}

extension ExperimentDecision {
    /// Everything the verdict reads, as of the latest day.
    package struct Evidence: Sendable {
        package var arms: [ExperimentArm]
        package var latest: ExperimentTimelinePoint?
        package var fixedHorizon: ExperimentAnalysis
        package var progress: ExperimentProgress?
        package var plan: ExperimentPlan?
        package var settings: ExperimentReportSettings
        package var status: Experiment.Status

        package init(
            arms: [ExperimentArm],
            latest: ExperimentTimelinePoint?,
            fixedHorizon: ExperimentAnalysis,
            progress: ExperimentProgress?,
            plan: ExperimentPlan?,
            settings: ExperimentReportSettings,
            status: Experiment.Status
        ) {
            self.arms = arms
            self.latest = latest
            self.fixedHorizon = fixedHorizon
            self.progress = progress
            self.plan = plan
            self.settings = settings
            self.status = status
        }

        /// The variants' rows (not control's) that have a comparison.
        var variants: [ExperimentTimelineArm] { (latest?.arms ?? []).dropFirst().filter { $0.comparison != nil } }

        /// The comparison's α: α divided by the number of variants.
        var comparisonAlpha: Double { settings.alpha / Double(max(arms.count - 1, 1)) }
    }

    /// The verdict on `evidence`; see the type's comment for the order of the checks.
    package static func decide(_ evidence: Evidence) -> ExperimentDecision {
        let wording = ExperimentWording(evidence)
        guard evidence.status != .draft, let latest = evidence.latest, evidence.fixedHorizon.enoughData else {
            return ExperimentDecision(outcome: .collecting, winner: nil, warnings: [], sentence: wording.collecting())
        }
        if evidence.fixedHorizon.sampleRatio.mismatch {
            return ExperimentDecision(
                outcome: .sampleRatioMismatch,
                winner: nil,
                warnings: [],
                sentence: wording.sampleRatioMismatch()
            )
        }
        let variants = evidence.variants
        let better = variants.filter { ($0.comparison?.sequential).map { $0.significant && $0.lower > 0 } ?? false }
        let controlWins =
            !variants.isEmpty
            && variants.allSatisfy { ($0.comparison?.sequential).map { $0.significant && $0.upper < 0 } ?? false }
        let best = better.max {
            ($0.comparison?.sequential?.difference ?? 0) < ($1.comparison?.sequential?.difference ?? 0)
        }

        let outcome: Outcome
        let winner: String?
        let main: String
        if let best {
            (outcome, winner) = (.winner, best.key)
            main = wording.winner(best, others: better.filter { $0.key != best.key })
        } else if controlWins, let control = latest.arms.first {
            (outcome, winner) = (.winner, control.key)
            main = wording.controlWins()
        } else if evidence.progress?.reached == true {
            (outcome, winner) = (.noDetectableDifference, nil)
            main = wording.noDetectableDifference()
        } else if evidence.status == .running {
            (outcome, winner) = (.keepRunning, nil)
            main = wording.keepRunning()
        } else {
            (outcome, winner) = (.inconclusive, nil)
            main = wording.inconclusive()
        }

        var warnings: [ExperimentWarning] = []
        for guardrail in latest.guardrails {
            for comparison in guardrail.comparisons where comparison.state == .harmed {
                warnings.append(
                    ExperimentWarning(
                        kind: .guardrailHarmed,
                        variant: comparison.variant,
                        guardrail: guardrail.key,
                        message: wording.guardrailHarmed(guardrail, comparison)
                    )
                )
            }
        }
        for variant in variants {
            guard let sequential = variant.comparison?.sequential, sequential.drifted else { continue }
            warnings.append(
                ExperimentWarning(
                    kind: .differenceChangedOverTime,
                    variant: variant.key,
                    message: wording.drifted(variant.key, since: sequential.since)
                )
            )
        }
        let sentence = ([main] + warnings.map(\.message)).joined(separator: " ")
        return ExperimentDecision(outcome: outcome, winner: winner, warnings: warnings, sentence: sentence)
    }
}
