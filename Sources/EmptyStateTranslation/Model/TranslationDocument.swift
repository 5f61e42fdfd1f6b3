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

    package init(sourceLocale: String, targetLocale: String, exportedAt: String?, units: [TranslationUnit]) {
        self.sourceLocale = sourceLocale
        self.targetLocale = targetLocale
        self.exportedAt = exportedAt
        self.units = units
    }
}
