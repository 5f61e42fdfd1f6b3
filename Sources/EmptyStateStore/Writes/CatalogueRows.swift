import EmptyStateCore

/// The rows a catalogue transaction's edits leave, by table, in the order the edits were made:
/// what `CatalogueTransaction.write(_:)` writes. A backend writes `documents`, then `deletions`,
/// then `contents`, then `revisions` (the current row exists before the rows that refer to it),
/// then the change requests' lines, their review records and preview tokens.
/// A document appears at most once in one batch: an edit reads its document's row first, and a
/// read hands the pending rows over before it runs.
package struct CatalogueRows: Sendable {
    /// Current rows to write as live (created, or replaced), each with whether ops edited it: the
    /// flag is sticky, so a document ops changed once is never overwritten by a later import.
    package var documents: [(write: RevisionWrite, edited: Bool)] = []
    /// Templates to mark deleted (at the deletion's revision, by its author): their strings and
    /// aliases go, their history stays.
    package var deletions: [RevisionWrite] = []
    /// The strings and aliases of templates as they are once written.
    package var contents: [TemplateContent] = []
    /// Revisions to append, in the order they were made (the audit trail's order).
    package var revisions: [RevisionWrite] = []
    /// Change requests' lines in `change_request`, inserted or replaced (one per request).
    package var changeRequests: [ChangeRequestSummary] = []
    /// Comments, approvals and rejections to append.
    package var reviews: [ReviewRecord] = []
    /// Preview tokens inserted, or replaced once revoked (only `revokedAt`/`revokedBy` change).
    package var previewTokens: [PreviewTokenRecord] = []

    package init() {}

    package var isEmpty: Bool {
        documents.isEmpty && deletions.isEmpty && contents.isEmpty && revisions.isEmpty && changeRequests.isEmpty
            && reviews.isEmpty && previewTokens.isEmpty
    }
}

/// A template's strings and aliases as a write leaves them: they replace what the template had.
/// A string whose value is unchanged keeps who changed it, when and in which revision; a changed
/// or new one is stamped with this write's, with the review state `translated`. A string this
/// write marks (`marks`) is stamped with this write's and takes the mark's review state whether
/// its value changed or not: that is how a reviewer confirms a stale translation without
/// changing it.
package struct TemplateContent: Sendable {
    package var templateID: String
    /// One row per locale and key (`RevisionWrite.strings(of:)`).
    package var strings: [(locale: String, key: String, value: String)]
    /// `locale` + `"\u{0}"` + `key` → the review state this write gives the string
    /// (`TemplateContent.markKey`).
    package var marks: [String: ReviewState]
    package var aliases: [String]
    /// The revision that writes them, its time and author.
    package var revision: Int
    package var at: String
    package var by: String
    /// The template had no strings or aliases before: it is new, or re-created after a delete
    /// (which removed them). A backend then inserts, with nothing to compare or remove.
    package var replacesNothing: Bool

    /// - Parameters:
    ///   - replacing: the live template the write replaces, `nil` when there is none.
    ///   - marks: `markKey(locale:key:)` → the review state this write gives that string.
    package init(
        _ template: Template,
        _ write: RevisionWrite,
        replacing: CurrentDocument?,
        marks: [String: ReviewState] = [:]
    ) {
        templateID = template.id
        strings = RevisionWrite.strings(of: template)
        self.marks = marks
        aliases = template.aliases
        revision = write.revision
        at = write.at
        by = write.by
        replacesNothing = replacing == nil
    }
}

extension TemplateContent {
    /// The key of `marks` for one string.
    package static func markKey(locale: String, key: String) -> String { locale + "\u{0}" + key }

    /// The review state the row of `locale`/`key` gets when this write changes or marks it.
    package func review(locale: String, key: String) -> ReviewState {
        marks[Self.markKey(locale: locale, key: key)] ?? .translated
    }

    /// Whether this write marks the row (stamps it even when its value is unchanged).
    package func marks(locale: String, key: String) -> Bool {
        marks[Self.markKey(locale: locale, key: key)] != nil
    }
}
