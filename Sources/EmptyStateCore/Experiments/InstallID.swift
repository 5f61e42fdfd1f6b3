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
