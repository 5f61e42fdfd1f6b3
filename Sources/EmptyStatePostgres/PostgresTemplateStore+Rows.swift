import EmptyStateStore
import Logging
import PostgresNIO

/// Rows as read from PostgreSQL and the SQL helpers every concern uses; the text columns are
/// decoded as every backend decodes them (`StoredDocuments`, `RevisionRecord`).
extension PostgresTemplateStore {
    /// A revision row as read, decoded into a `RevisionRecord` off the event loop.
    struct RevisionRow: Sendable {
        var id: String
        var revision: Int
        var action: String
        var document: String?
        var changed: String
        var createdAt: String
        var createdBy: String
        var note: String?

        init(
            _ id: String,
            _ revision: Int,
            _ action: String,
            _ document: String?,
            _ changed: String,
            _ createdAt: String,
            _ createdBy: String,
            _ note: String?
        ) {
            self.id = id
            self.revision = revision
            self.action = action
            self.document = document
            self.changed = changed
            self.createdAt = createdAt
            self.createdBy = createdBy
            self.note = note
        }

        func record(withDocument: Bool) throws(StoreError) -> RevisionRecord {
            try RevisionRecord(
                templateID: id,
                revision: revision,
                action: action,
                createdAt: createdAt,
                createdBy: createdBy,
                changedFieldsText: changed,
                documentText: withDocument ? document : nil,
                note: note
            )
        }
    }

    static func count(_ client: PostgresClient, _ query: PostgresQuery, logger: Logger) async throws -> Int {
        var total = 0
        for try await value in try await client.query(query, logger: logger).decode(Int.self) { total = value }
        return total
    }

    /// The current rows of the documents of `kind` with these ids, live or deleted, by id (with
    /// `edited`); an id no document ever had is absent. One statement for any number of ids.
    static func currentRows(
        _ connection: PostgresConnection,
        ids: [String],
        kind: DocumentKind,
        logger: Logger
    ) async throws -> [String: CurrentDocument] {
        var rows: [String: CurrentDocument] = [:]
        for try await (id, revision, deleted, document, updatedAt, updatedBy, edited) in try await connection.query(
            """
            SELECT id, revision, deleted, document, updated_at, updated_by, edited FROM template
            WHERE id = ANY(\(ids)) AND kind = \(kind.rawValue)
            """,
            logger: logger
        ).decode((String, Int, Bool, String, String, String, Bool).self) {
            rows[id] = CurrentDocument(
                revision: revision,
                deleted: deleted,
                document: document,
                updatedAt: updatedAt,
                updatedBy: updatedBy,
                edited: edited
            )
        }
        return rows
    }
}
