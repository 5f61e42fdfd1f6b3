/// What a write may change in an experiment, given the one it replaces: the status moves
/// draft → running → stopped (→ shipped, by shipping a variant), and while an experiment runs
/// its split is frozen.
package enum ExperimentLifecycle {
    /// Why a write is refused: a conflict with the experiment's state, not a malformed document.
    package struct Refusal: Error, Sendable, Equatable {
        /// A short machine name (`split-frozen`, `invalid-transition`).
        package var slug: String
        package var issues: [ValidationIssue]
    }

    /// The experiment to store for `next` written over `current` (`nil`: created), with
    /// `startedAt`/`stoppedAt` kept or stamped by the service (what a client sends in them is
    /// ignored).
    /// - Throws: `Refusal` when the transition is not allowed, or when the split of a running
    ///   experiment would change.
    package static func apply(
        _ next: Experiment,
        over current: Experiment?,
        now: String
    ) throws(Refusal) -> Experiment {
        var result = next
        result.startedAt = current?.startedAt
        result.stoppedAt = current?.stoppedAt
        let from = current?.status
        switch (from, next.status) {
        case (nil, .draft), (.draft?, .draft), (.running?, .running), (.stopped?, .stopped):
            break
        case (.draft?, .running):
            result.startedAt = now
        case (.running?, .stopped):
            result.stoppedAt = now
        case (_, .shipped):
            throw Refusal(
                slug: "invalid-transition",
                issues: [.init("/status", "shipped is set by shipping a variant (POST …/ship), not written")]
            )
        default:
            let allowed =
                switch from {
                case nil: "a new experiment starts as draft"
                case .draft?: "a draft may start running"
                case .running?: "a running experiment may only stop"
                case .stopped?:
                    "a stopped experiment is not restarted (its installs saw control meanwhile); create another"
                case .shipped?: "a shipped experiment is final"
                }
            throw Refusal(
                slug: "invalid-transition",
                issues: [
                    .init(
                        "/status",
                        "cannot go from \(from?.rawValue ?? "nothing") to \(next.status.rawValue): \(allowed)"
                    )
                ]
            )
        }
        if let current, from == .running || from == .stopped { try checkFrozen(result, current) }
        return result
    }

    /// Once an experiment has run, what decides who saw what is fixed: changing a weight, the
    /// variants or the template re-buckets installs (or changes what an arm showed midway) and
    /// biases the comparison. Coverage may change: GrowthBook's ranges only grow or shrink in
    /// place, never moving an install to another variant.
    private static func checkFrozen(_ next: Experiment, _ current: Experiment) throws(Refusal) {
        var issues: [ValidationIssue] = []
        let reason = "is frozen once the experiment has run (changing it re-buckets installs and biases the result)"
        if next.templateID != current.templateID { issues.append(.init("/templateId", reason)) }
        if next.guardrails != current.guardrails {
            issues.append(
                .init("/guardrails", "is frozen once the experiment has run (its figures run from the start)")
            )
        }
        if next.plan != current.plan {
            // The plan tunes the confidence sequences: re-planning after seeing the data would let
            // a reader pick the tuning that gives a verdict.
            issues.append(
                .init("/plan", "is frozen once the experiment has run (it tunes the statistics the verdict rests on)")
            )
        }
        if next.targeting != current.targeting {
            // Widening it adds installs midway and narrowing it drops some: either changes who
            // the comparison is about. Overrides may change: they move only the installs listed.
            issues.append(.init("/targeting", "is frozen once the experiment has run (it decides who is in)"))
        }
        if next.variants.count != current.variants.count {
            issues.append(.init("/variants", reason))
        } else {
            for (index, (new, old)) in zip(next.variants, current.variants).enumerated() {
                if new.weight != old.weight { issues.append(.init("/variants/\(index)/weight", reason)) }
                if new.key != old.key { issues.append(.init("/variants/\(index)/key", reason)) }
                if new != old, new.weight == old.weight, new.key == old.key {
                    issues.append(.init("/variants/\(index)", "its copy " + reason))
                }
            }
        }
        if !issues.isEmpty { throw Refusal(slug: "split-frozen", issues: issues) }
    }
}
