import EmptyStateStore
import Logging
import PostgresNIO

/// Rows as read from PostgreSQL and the SQL helpers every concern uses; the text columns are
/// decoded as every backend decodes them (`StoredDocuments`, `RevisionRecord`).
extension PostgresTemplateStore {
    enum Kind: String {
        case template
        case appPolicy = "app-policy"
        case experiment
    }

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

    /// The current row of a document of `kind`, live or deleted; `nil` when none ever had the id.
    static func row(
        _ connection: PostgresConnection,
        id: String,
        kind: Kind,
        logger: Logger
    ) async throws -> CurrentDocument? {
        let rows = try await connection.all(
            """
            SELECT revision, deleted, document, updated_at, updated_by FROM template
            WHERE id = \(id) AND kind = \(kind.rawValue)
            """,
            logger: logger
        )
        guard let first = rows.first else { return nil }
        let (revision, deleted, document, updatedAt, updatedBy) = try first.decode(
            (Int, Bool, String, String, String).self
        )
        return CurrentDocument(
            revision: revision,
            deleted: deleted,
            document: document,
            updatedAt: updatedAt,
            updatedBy: updatedBy
        )
    }
}
