import EmptyStateCore

/// The exact exposures of copy experiments: `experiment_install` and `experiment_install_tap`, one
/// row per experiment and install (and its first tap of each action), from which the results are
/// counted (`ExperimentDailyCounts`).
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
/// **How they are read.** By `EventStoring.experimentDailyCounts`, in one snapshot: the counted
/// installs are a range of an index that starts with the experiment, each read once, so the cost
/// grows with the experiment's installs (measured by `Benchmarks/experiments.py`), not with its
/// events.
///
/// **Retention.** Rows are kept: one short row an install and experiment (a million installs are
/// a few tens of MB), and a shipped experiment's results stay readable. Event retention does not
/// touch them.
package enum ExperimentExposures {
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
