/// The strings of one target locale, in one order: what one XLIFF or Android file holds (a
/// String Catalog holds several of these).
package struct TranslationDocument: Sendable, Equatable {
    /// Canonical BCP 47 tags.
    package var sourceLocale: String
    package var targetLocale: String
    /// When the export was taken (`2026-11-23T10:00:00Z`, the store's timestamp format), so an
    /// import can tell edits made in the store since then. `nil` when the file does not say.
    package var exportedAt: String?
    package var units: [TranslationUnit]
    /// The format has no review state of its own, and `translated` is what its editor makes of a
    /// string a reviewer looked at: a String Catalog, where Xcode's "Mark as Reviewed" turns
    /// `needs_review` into `translated`. An import then takes an unchanged `translated` string,
    /// translated from the current source, as that review (`ImportPlanner`).
    package var translatedConfirms: Bool
    package init(
        sourceLocale: String,
        targetLocale: String,
        exportedAt: String?,
        units: [TranslationUnit],
        translatedConfirms: Bool = false
    ) {
        self.sourceLocale = sourceLocale
        self.targetLocale = targetLocale
        self.exportedAt = exportedAt
        self.units = units
        self.translatedConfirms = translatedConfirms
    }
}
