import EmptyStateCore
import JSONCoding

/// What one catalogue write stores, as every backend stores it: the document's new current
/// state and the immutable revision that records it (the same columns, text and timestamps on
/// SQLite and PostgreSQL, so a revision reads back alike through either).
///
/// A backend writes it with two statements of its own dialect: the upsert of the current row
/// (`template`) and the append to `revision`. Templates also sync their strings and aliases.
package struct RevisionWrite: Sendable, Equatable {
    /// The row id: a template id, or `StoredDocuments.appPolicyID(_:)`.
    package var documentID: String
    /// `StoredDocuments.templateKind` or `.appPolicyKind`.
    package var kind: String
    package var revision: Int
    package var action: RevisionRecord.Action
    /// The document's text (`StoredDocuments.text(of:)`); `nil` for a deletion.
    package var document: String?
    /// The JSON array of changed fields (`StoredDocuments.changedFieldsText(_:)`).
    package var changedFields: String
    /// When (`Timestamp.now()`) and by whom.
    package var at: String
    package var by: String
    /// Why, when the writer says (`imported from fr.xlf`); shown with the revision.
    package var note: String?

    package init(
        documentID: String,
        kind: String,
        revision: Int,
        action: RevisionRecord.Action,
        document: String?,
        changedFields: String,
        at: String,
        by: String,
        note: String? = nil
    ) {
        self.documentID = documentID
        self.kind = kind
        self.revision = revision
        self.action = action
        self.document = document
        self.changedFields = changedFields
        self.at = at
        self.by = by
        self.note = note
    }

    /// A template written as the current state at `revision`.
    /// - Parameters:
    ///   - previous: the live version it replaces (fields are diffed against it); `nil` when
    ///     there is none, and every field changed.
    ///   - text: the template's document as text when the caller has it already
    ///     (`StoredDocuments.text(of:)`; making it is most of the cost of a write in memory).
    package static func template(
        _ template: Template,
        previous: Template?,
        revision: Int,
        action: RevisionRecord.Action,
        actor: String,
        note: String? = nil,
        now: String = Timestamp.now(),
        text: String? = nil
    ) -> RevisionWrite {
        RevisionWrite(
            documentID: template.id,
            kind: StoredDocuments.templateKind,
            revision: revision,
            action: action,
            document: text ?? StoredDocuments.text(of: template.document),
            changedFields: StoredDocuments.changedFieldsText(TemplateDiff.changedFields(from: previous, to: template)),
            at: now,
            by: actor,
            note: note
        )
    }

    /// A template written as `plan` (a put or a rollback) decided.
    /// - Throws: `StoreError.database` when the document it replaces no longer parses.
    package static func template(
        _ template: Template,
        plan: CatalogueRules.Plan,
        actor: String
    ) throws(StoreError) -> RevisionWrite {
        .template(
            template,
            previous: try plan.replaced.map { (row) throws(StoreError) in
                try StoredDocuments.template(fromText: row.document)
            },
            revision: plan.revision,
            action: plan.action,
            actor: actor
        )
    }

    /// A platform's policy written as `plan` (a put or a rollback) decided.
    /// - Throws: `StoreError.database` when the policy it replaces no longer parses.
    package static func policy(
        _ policy: AppPolicy,
        plan: CatalogueRules.Plan,
        actor: String
    ) throws(StoreError)
        -> RevisionWrite
    {
        let previous = try plan.replaced.map { (row) throws(StoreError) in
            try StoredDocuments.appPolicy(fromText: row.document)
        }
        return RevisionWrite(
            documentID: StoredDocuments.appPolicyID(policy.platform),
            kind: StoredDocuments.appPolicyKind,
            revision: plan.revision,
            action: plan.action,
            document: StoredDocuments.text(of: policy.document),
            changedFields: StoredDocuments.changedFieldsText(AppPolicy.changedFields(from: previous, to: policy)),
            at: Timestamp.now(),
            by: actor
        )
    }

    /// An experiment written as `plan` decided; its changed fields are the top-level members
    /// that differ from the experiment it replaces (`/variants`, `/status` …).
    package static func experiment(
        _ experiment: Experiment,
        plan: CatalogueRules.Plan,
        actor: String
    ) -> RevisionWrite {
        let previous: JSONValue? = plan.replaced.flatMap { try? JSONParser.parse(Array($0.document.utf8)) }
        var changed: [String] = []
        if case .object(let members) = experiment.document {
            for member in members where previous?[member.key] != member.value { changed.append("/" + member.key) }
        }
        if case .object(let old)? = previous {
            for member in old where experiment.document[member.key] == nil { changed.append("/" + member.key) }
        }
        return RevisionWrite(
            documentID: StoredDocuments.experimentID(experiment.id),
            kind: StoredDocuments.experimentKind,
            revision: plan.revision,
            action: plan.action,
            document: StoredDocuments.text(of: experiment.document),
            changedFields: StoredDocuments.changedFieldsText(changed),
            at: Timestamp.now(),
            by: actor
        )
    }

    /// The deletion of a template: a revision without a document, in which everything changed.
    package static func deletion(
        id: String,
        revision: Int,
        actor: String,
        now: String = Timestamp.now()
    )
        -> RevisionWrite
    {
        RevisionWrite(
            documentID: id,
            kind: StoredDocuments.templateKind,
            revision: revision,
            action: .delete,
            document: nil,
            changedFields: StoredDocuments.changedFieldsText(["/"]),
            at: now,
            by: actor
        )
    }

    /// The rows of a template's strings, one per locale and key, in the template's order: what
    /// `template_string` holds for it once the write is done. A plural string's row holds all of
    /// its forms (`PluralText.storedText`), so a change of any form restamps it, and makes its
    /// translations stale when it is the source; no column or migration was needed for plurals.
    package static func strings(of template: Template) -> [(locale: String, key: String, value: String)] {
        template.strings.flatMap { entry in
            let plurals = template.plurals[entry.locale]
            return entry.values.map { (entry.locale, $0.key, plurals?[$0.key]?.storedText ?? $0.value) }
        }
    }
}
