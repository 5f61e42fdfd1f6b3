/// Which experiment and variant a served template shows: written into its JSON as
/// `"experiment": {"id": …, "variant": …}` beside `revision`, and into its HTML as
/// `data-experiment-id` and `data-variant`, so that the events an app reports for it name what
/// was shown rather than a recomputation.
package struct ExperimentMark: Sendable, Hashable {
    package var experimentID: String
    /// The variant's key (control's key for control installs inside the coverage).
    package var variant: String

    package init(experimentID: String, variant: String) {
        self.experimentID = experimentID
        self.variant = variant
    }

    /// The value stored in the events' `variant` column: `<experimentId>/<variantKey>`, which
    /// tells experiments apart in the rollups (neither name can hold a `/`).
    package var eventVariant: String { experimentID + "/" + variant }
}
