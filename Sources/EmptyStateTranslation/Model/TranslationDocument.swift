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
    /// Whether the format carries plural strings' forms (set by its reader). A unit of a format
    /// that does not is refused for a plural string (`ImportRejection.Reason.plural`): its one
    /// text would otherwise replace every form.
    package var carriesPlurals: Bool

    package init(
        sourceLocale: String,
        targetLocale: String,
        exportedAt: String?,
        units: [TranslationUnit],
        translatedConfirms: Bool = false,
        carriesPlurals: Bool = false
    ) {
        self.sourceLocale = sourceLocale
        self.targetLocale = targetLocale
        self.exportedAt = exportedAt
        self.units = units
        self.translatedConfirms = translatedConfirms
        self.carriesPlurals = carriesPlurals
    }

    /// The same strings from the same export; `carriesPlurals` is the format's, not the file's.
    package static func == (lhs: TranslationDocument, rhs: TranslationDocument) -> Bool {
        lhs.sourceLocale == rhs.sourceLocale && lhs.targetLocale == rhs.targetLocale
            && lhs.exportedAt == rhs.exportedAt && lhs.units == rhs.units
            && lhs.translatedConfirms == rhs.translatedConfirms
    }
}
