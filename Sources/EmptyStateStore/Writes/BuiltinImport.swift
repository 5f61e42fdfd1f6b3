import EmptyStateCore

/// The release's built-in templates against what the store holds: which are added, which
/// updated, and which kept because ops changed them. A pure decision, so every backend imports
/// alike.
package enum BuiltinImport {
    /// Who wrote the revisions imported from `config/templates/`.
    package static let actor = "built-in"

    /// What the store holds for a built-in's id.
    package struct Current: Sendable, Equatable {
        /// The stored document's text (`StoredDocuments.text(of:)`).
        package var document: String
        /// Ops changed it (a write through the admin API, or a delete).
        package var edited: Bool
        package var deleted: Bool

        package init(document: String, edited: Bool, deleted: Bool) {
            self.document = document
            self.edited = edited
            self.deleted = deleted
        }
    }

    /// What to do with one built-in.
    package enum Decision: Sendable, Equatable {
        /// No template has the id: add it at revision 1.
        case add
        /// The release changed a template ops never touched: write it as the next revision.
        case update
        /// The stored document is the release's: nothing to write.
        case unchanged
        /// The release changed it, but ops edited or deleted it: keep their version (and log it).
        case keepOpsVersion
    }

    /// - Parameters:
    ///   - current: the stored row with the built-in's id, `nil` when there is none.
    ///   - document: the release's document as text (`StoredDocuments.text(of:)`).
    package static func decide(current: Current?, document: String) -> Decision {
        guard let current else { return .add }
        if current.document == document { return .unchanged }
        if current.edited || current.deleted { return .keepOpsVersion }
        return .update
    }
}

extension BuiltinImport {
    /// The revision that adds (`previous == nil`, at revision 1) or updates a built-in.
    /// - Parameter text: the template's document as text (`StoredDocuments.text(of:)`), when
    ///   the import made it already to decide.
    package static func write(
        _ template: Template,
        previous: Template?,
        revision: Int,
        now: String,
        text: String? = nil
    ) -> RevisionWrite {
        .template(template, previous: previous, revision: revision, action: .import, actor: actor, now: now, text: text)
    }
}

extension BuiltinImport {
    /// The release's built-ins with each document as the store keeps it
    /// (`StoredDocuments.text(of:)`): what an import compares with the stored text and writes.
    /// The texts are made on every core before the import's transaction (at 10,000 templates,
    /// writing them was a fifth of a start).
    package struct Release: Sendable {
        package let templates: [Template]
        /// `templates[i]`'s document as text.
        package let texts: [String]

        package init(_ templates: [Template]) {
            self.templates = templates
            texts = templates.concurrentMap { StoredDocuments.text(of: $0.document) }
        }
    }
}
