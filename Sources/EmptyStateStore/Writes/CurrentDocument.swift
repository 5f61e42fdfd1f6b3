/// The current row of a document in the catalogue's `template` table (a template, or an app
/// policy), live or deleted, as every backend reads it: the columns as text and integers.
package struct CurrentDocument: Sendable, Equatable {
    package var revision: Int
    /// Deleted: its history remains, clients no longer see it (app policies are never deleted).
    package var deleted: Bool
    /// The document's text (`StoredDocuments.text(of:)`).
    package var document: String
    package var updatedAt: String
    package var updatedBy: String
    /// Ops changed it (a write through the admin API, or a delete): a release's import keeps off
    /// it. Read by writes (`CatalogueTransaction.currentRows`); `false` where a read leaves it out.
    package var edited: Bool

    package init(
        revision: Int,
        deleted: Bool,
        document: String,
        updatedAt: String,
        updatedBy: String,
        edited: Bool = false
    ) {
        self.revision = revision
        self.deleted = deleted
        self.document = document
        self.updatedAt = updatedAt
        self.updatedBy = updatedBy
        self.edited = edited
    }
}

extension StoredTemplate {
    /// The template a row holds, with its bookkeeping.
    /// - Throws: `StoreError.database` when the stored text no longer parses (a damaged row).
    package init(_ current: CurrentDocument) throws(StoreError) {
        self.init(
            template: try StoredDocuments.template(fromText: current.document),
            revision: current.revision,
            updatedAt: current.updatedAt,
            updatedBy: current.updatedBy
        )
    }
}

extension StoredAppPolicy {
    /// The policy a row holds, with its bookkeeping.
    /// - Throws: `StoreError.database` when the stored text no longer parses (a damaged row).
    package init(_ current: CurrentDocument) throws(StoreError) {
        self.init(
            policy: try StoredDocuments.appPolicy(fromText: current.document),
            revision: current.revision,
            updatedAt: current.updatedAt,
            updatedBy: current.updatedBy
        )
    }
}

extension StoredExperiment {
    /// The experiment a row holds, with its bookkeeping.
    /// - Throws: `StoreError.database` when the stored text no longer parses (a damaged row).
    package init(_ current: CurrentDocument) throws(StoreError) {
        self.init(
            experiment: try StoredDocuments.experiment(fromText: current.document),
            revision: current.revision,
            updatedAt: current.updatedAt,
            updatedBy: current.updatedBy
        )
    }
}
