import EmptyStateCore

/// The installs an experiment exposed, counted exactly from `experiment_install`: per variant the
/// installs that saw only that variant and how many of them converted, and the installs seen in
/// more than one variant (excluded from the comparison, and counted).
///
/// **How they are stored.** Every event that carries a variant (`<experimentId>/<key>`) and an
/// install id upserts the install's row in the same transaction that stores the event, and only
/// when the event was new (a resent id changes nothing): the first sight inserts it with its
/// variant; a different variant later marks it `crossed`; its first tap of any action sets
/// `converted_at`, and its first tap of each action is kept in `experiment_install_tap` (with the
/// variant it tapped in). So what a client was told is stored is counted, also across a crash,
/// and never twice.
///
/// **Why taps per action rather than "converted" per experiment.** Which tap converts depends on
/// the experiment's primary metric, which lives in the catalogue, not in the event store (on
/// SQLite, another database). Keeping the first tap of each action lets the results apply the
/// metric when they are read: ingestion needs no lookup of running experiments (any replica, any
/// moment, a document it may not have followed yet), and an experiment whose metric is edited
/// reads right at once. An install taps a handful of actions at most, so the table stays about the
/// size of the converting installs.
///
/// **How they are read.** By query, in one snapshot: the installs and any-tap conversions per
/// variant are a range of an index that starts with the experiment (the crossed flag and variant
/// next); a one-action metric's conversions are that action's first taps per variant (a range of
/// the tap table's key) less those of the crossed installs, which are few. The cost grows with
/// the experiment's installs (measured by `Benchmarks/experiments.py`), not with its events.
///
/// **Retention.** Rows are kept: one short row an install and experiment (a million installs are
/// a few tens of MB), and a shipped experiment's results stay readable. Event retention does not
/// touch them.
package struct ExperimentExposures: Sendable, Equatable {
    /// One variant's installs that saw only it.
    package struct Variant: Sendable, Equatable {
        /// The variant's key (without the experiment id).
        package var key: String
        package var installs: Int
        /// Installs that converted by the metric asked for.
        package var conversions: Int

        package init(key: String, installs: Int, conversions: Int) {
            self.key = key
            self.installs = installs
            self.conversions = conversions
        }
    }

    /// The variants any install saw, by key; a variant nobody saw has no entry.
    package var perVariant: [Variant]
    /// Installs seen in more than one variant.
    package var crossed: Int

    package init(perVariant: [Variant], crossed: Int) {
        self.perVariant = perVariant.sorted { $0.key < $1.key }
        self.crossed = crossed
    }

    /// The counts of the variant `key` (zero when no install saw it).
    package subscript(key: String) -> Variant {
        perVariant.first { $0.key == key } ?? Variant(key: key, installs: 0, conversions: 0)
    }

    /// The experiment and variant key of an event's `variant` (`<experimentId>/<key>`), or `nil`
    /// when it is not an experiment's (no `/`, or an empty part).
    package static func split(_ variant: String) -> (experimentID: String, key: String)? {
        guard let slash = variant.firstIndex(of: "/") else { return nil }
        let experiment = variant[..<slash]
        let key = variant[variant.index(after: slash)...]
        guard !experiment.isEmpty, !key.isEmpty, !key.contains("/") else { return nil }
        return (String(experiment), String(key))
    }
}

extension Experiment.Metric {
    /// The action whose tap converts, `nil` for any tap.
    package var convertingAction: String? {
        switch self {
        case .tap(let action): action
        case .anyTap: nil
        }
    }
}
