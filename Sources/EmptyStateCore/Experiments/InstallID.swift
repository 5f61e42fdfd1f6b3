/// The unit of assignment of copy experiments: an id the app makes once per install (a UUID
/// kept in its storage) and sends as the `X-Install-ID` header and as the events' `installId`.
package enum InstallID {
    /// Longest install id accepted, in characters.
    package static let maximumLength = 128

    /// Whether `text` is an install id: 1–128 characters of printable ASCII (0x21–0x7E), so it
    /// fits a header field unchanged, holds no space or control character, and hashes the same
    /// in every GrowthBook SDK.
    package static func isValid(_ text: String) -> Bool {
        let bytes = text.utf8
        return !bytes.isEmpty && bytes.count <= maximumLength && bytes.allSatisfy { (0x21...0x7E).contains($0) }
    }

    /// What a refused install id is told: the rule it broke.
    package static let rule = "1 to \(maximumLength) printable ASCII characters (no spaces)"
}

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
