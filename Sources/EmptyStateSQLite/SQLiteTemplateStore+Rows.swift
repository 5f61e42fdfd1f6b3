import EmptyStateStore
import GRDB

/// Records from SQLite rows; the text columns are decoded as every backend decodes them
/// (`StoredDocuments`, `RevisionRecord.init(templateID:revision:action:…)`).
extension SQLiteTemplateStore {
    /// The current rows of the documents of `kind` with these ids, live or deleted, by id (with
    /// `edited`); one cached statement, stepped once an id.
    static func currentRows(_ db: Database, ids: [String], kind: DocumentKind) throws -> [String: CurrentDocument] {
        let statement = try db.cachedStatement(
            sql: """
                SELECT revision, deleted, document, updated_at, updated_by, edited FROM template
                WHERE id = ? AND kind = ?
                """
        )
        var rows: [String: CurrentDocument] = [:]
        rows.reserveCapacity(ids.count)
        for id in ids {
            guard let row = try Row.fetchOne(statement, arguments: [id, kind.rawValue]) else { continue }
            var current = Self.current(row)
            current.edited = (row["edited"] as Int) != 0
            rows[id] = current
        }
        return rows
    }

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
