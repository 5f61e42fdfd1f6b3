import EmptyStateStore
import GRDB

/// Records from SQLite rows; the text columns are decoded as every backend decodes them
/// (`StoredDocuments`, `RevisionRecord.init(templateID:revision:action:…)`).
extension SQLiteTemplateStore {
    /// The current row of a document from a row of `template` (`revision`, `deleted`,
    /// `document`, `updated_at`, `updated_by`).
    static func current(_ row: Row) -> CurrentDocument {
        CurrentDocument(
            revision: row["revision"],
            deleted: (row["deleted"] as Int) != 0,
            document: row["document"],
            updatedAt: row["updated_at"],
            updatedBy: row["updated_by"]
        )
    }

    /// A revision from a row of `revision`; its document only when asked for (listings leave it
    /// out, and do not select it).
    static func revisionRecord(_ row: Row, withDocument: Bool) throws(StoreError) -> RevisionRecord {
        try RevisionRecord(
            templateID: row["template_id"],
            revision: row["revision"],
            action: row["action"],
            createdAt: row["created_at"],
            createdBy: row["created_by"],
            changedFieldsText: row["changed_fields"],
            documentText: withDocument ? row["document"] : nil,
            note: row["note"]
        )
    }
}
