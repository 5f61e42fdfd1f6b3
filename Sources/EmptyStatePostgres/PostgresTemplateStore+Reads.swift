import EmptyStateCore
import EmptyStateStore
import EmptyStateStoreSQL
import Logging
import PostgresNIO

/// Reads of templates, one page at a time for listings, and the audit trail.
extension PostgresTemplateStore {
    package func liveTemplates() throws(StoreError) -> [StoredTemplate] {
        try liveRows(kind: .template).map { (row) throws(StoreError) in try StoredTemplate(row) }
    }

    package func template(id: String) throws(StoreError) -> StoredTemplate {
        try StoredTemplate(CatalogueRules.live(name: id, current: try current(id: id, kind: .template)))
    }

    package func strings(id: String) throws(StoreError) -> [StoredString] {
        let logger = logger
        return try read { client in
            var strings: [StoredString] = []
            for try await (locale, key, value, updatedAt, updatedBy, revision, review) in try await client.query(
                """
                SELECT locale, key, value, updated_at, updated_by, revision, review FROM template_string
                WHERE template_id = \(id) ORDER BY locale COLLATE "C", key COLLATE "C"
                """,
                logger: logger
            ).decode((String, String, String, String, String, Int, String).self) {
                strings.append(
                    StoredString(
                        locale: locale,
                        key: key,
                        value: value,
                        updatedAt: updatedAt,
                        updatedBy: updatedBy,
                        revision: revision,
                        review: ReviewState(rawValue: review) ?? .translated
                    )
                )
            }
            return strings
        }
    }

    package func stringStamps() throws(StoreError) -> [StringStamp] {
        let logger = logger
        return try read { client in
            var stamps: [StringStamp] = []
            // Deleted templates have no strings (a delete removes them), app policies none at all.
            for try await (templateID, locale, key, revision, updatedAt, review) in try await client.query(
                """
                SELECT template_id, locale, key, revision, updated_at, review FROM template_string
                ORDER BY template_id COLLATE "C"
                """,
                logger: logger
            ).decode((String, String, String, Int, String, String).self) {
                stamps.append(
                    StringStamp(
                        templateID: templateID,
                        locale: locale,
                        key: key,
                        revision: revision,
                        updatedAt: updatedAt,
                        review: ReviewState(rawValue: review) ?? .translated
                    )
                )
            }
            return stamps
        }
    }

    package func list(page: Int, pageSize: Int) throws(StoreError) -> Page<TemplateSummary> {
        let logger = logger
        return try read { client in
            let total = try await Self.count(
                client,
                "SELECT COUNT(*) FROM template WHERE deleted = false AND kind = 'template'",
                logger: logger
            )
            var items: [TemplateSummary] = []
            for try await (id, revision, updatedAt, updatedBy) in try await client.query(
                """
                SELECT id, revision, updated_at, updated_by FROM template WHERE deleted = false AND kind = 'template'
                ORDER BY id COLLATE "C" LIMIT \(pageSize) OFFSET \((page - 1) * pageSize)
                """,
                logger: logger
            ).decode((String, Int, String, String).self) {
                items.append(TemplateSummary(id: id, revision: revision, updatedAt: updatedAt, updatedBy: updatedBy))
            }
            return Page(items: items, page: page, pageSize: pageSize, total: total)
        }
    }

    package func revisions(id: String, page: Int, pageSize: Int) throws(StoreError) -> Page<RevisionRecord> {
        try revisions(documentID: id, kind: .template, reportedAs: id, page: page, pageSize: pageSize)
    }

    package func revision(id: String, number: Int) throws(StoreError) -> RevisionRecord {
        try revision(documentID: id, kind: .template, reportedAs: id, number: number)
    }

    package func audit(_ filter: AuditFilter, page: Int, pageSize: Int) throws(StoreError) -> Page<RevisionRecord> {
        let logger = logger
        // The filter's `?`s become $1, $2, … with their values bound in order.
        let (clauses, arguments) = filter.sqlConditions(.postgres)
        var bindings = PostgresBindings()
        for argument in arguments { bindings.append(argument) }
        var number = 0
        let condition =
            clauses.isEmpty
            ? ""
            : "WHERE "
                + clauses.map { clause in
                    clause.split(separator: "?", omittingEmptySubsequences: false).enumerated().map { index, part in
                        guard index > 0 else { return String(part) }
                        number += 1
                        return "$\(number)" + part
                    }.joined()
                }.joined(separator: " AND ")
        let countQuery = PostgresQuery(unsafeSQL: "SELECT COUNT(*) FROM revision \(condition)", binds: bindings)
        let pageQuery = PostgresQuery(
            unsafeSQL: """
                SELECT template_id, revision, action, changed_fields, created_at, created_by, note FROM revision \(condition)
                ORDER BY seq DESC LIMIT \(pageSize) OFFSET \((page - 1) * pageSize)
                """,
            binds: bindings
        )
        let (total, rows) = try read { client in
            let total = try await Self.count(client, countQuery, logger: logger)
            var rows: [RevisionRow] = []
            for try await (id, revision, action, changed, createdAt, createdBy, note) in try await client.query(
                pageQuery,
                logger: logger
            ).decode((String, Int, String, String, String, String, String?).self) {
                rows.append(RevisionRow(id, revision, action, nil, changed, createdAt, createdBy, note))
            }
            return (total, rows)
        }
        let items = try rows.map { (row) throws(StoreError) in try row.record(withDocument: false) }
        return Page(items: items, page: page, pageSize: pageSize, total: total)
    }

    /// The current rows of every live document of `kind`, in id order (bytewise, as SQLite).
    func liveRows(kind: DocumentKind) throws(StoreError) -> [CurrentDocument] {
        let logger = logger
        return try read { client in
            var rows: [CurrentDocument] = []
            for try await (revision, document, updatedAt, updatedBy) in try await client.query(
                """
                SELECT revision, document, updated_at, updated_by FROM template
                WHERE deleted = false AND kind = \(kind.rawValue) ORDER BY id COLLATE "C"
                """,
                logger: logger
            ).decode((Int, String, String, String).self) {
                rows.append(
                    CurrentDocument(
                        revision: revision,
                        deleted: false,
                        document: document,
                        updatedAt: updatedAt,
                        updatedBy: updatedBy
                    )
                )
            }
            return rows
        }
    }

    /// The current row of one document of `kind`, live or deleted, read outside a write.
    func current(id: String, kind: DocumentKind) throws(StoreError) -> CurrentDocument? {
        let logger = logger
        return try read { client in
            try await client.withConnection { connection in
                try await Self.currentRows(connection, ids: [id], kind: kind, logger: logger)[id]
            }
        }
    }

    func revisions(
        documentID id: String,
        kind: DocumentKind,
        reportedAs name: String,
        page: Int,
        pageSize: Int
    ) throws(StoreError) -> Page<RevisionRecord> {
        let logger = logger
        let result: (Int, [RevisionRow])? = try read { client in
            guard
                try await Self.count(
                    client,
                    "SELECT COUNT(*) FROM template WHERE id = \(id) AND kind = \(kind.rawValue)",
                    logger: logger
                ) > 0
            else { return nil }
            let total = try await Self.count(
                client,
                "SELECT COUNT(*) FROM revision WHERE template_id = \(id)",
                logger: logger
            )
            var rows: [RevisionRow] = []
            for try await (id, revision, action, changed, createdAt, createdBy, note) in try await client.query(
                """
                SELECT template_id, revision, action, changed_fields, created_at, created_by, note FROM revision
                WHERE template_id = \(id) ORDER BY revision DESC LIMIT \(pageSize) OFFSET \((page - 1) * pageSize)
                """,
                logger: logger
            ).decode((String, Int, String, String, String, String, String?).self) {
                rows.append(RevisionRow(id, revision, action, nil, changed, createdAt, createdBy, note))
            }
            return (total, rows)
        }
        guard let (total, rows) = result else { throw .notFound(id: name) }
        let items = try rows.map { (row) throws(StoreError) in try row.record(withDocument: false) }
        return Page(items: items, page: page, pageSize: pageSize, total: total)
    }

    func revision(
        documentID id: String,
        kind: DocumentKind,
        reportedAs name: String,
        number: Int
    ) throws(StoreError) -> RevisionRecord {
        let logger = logger
        let found: (exists: Bool, row: RevisionRow?) = try read { client in
            var row: RevisionRow?
            for try await (id, revision, action, document, changed, createdAt, createdBy, note)
                in try await client.query(
                    """
                    SELECT r.template_id, r.revision, r.action, r.document, r.changed_fields, r.created_at, r.created_by,
                        r.note
                    FROM revision r JOIN template t ON t.id = r.template_id
                    WHERE r.template_id = \(id) AND r.revision = \(number) AND t.kind = \(kind.rawValue)
                    """,
                    logger: logger
                ).decode((String, Int, String, String?, String, String, String, String?).self)
            {
                row = RevisionRow(id, revision, action, document, changed, createdAt, createdBy, note)
            }
            if row != nil { return (true, row) }
            let exists =
                try await Self.count(
                    client,
                    "SELECT COUNT(*) FROM template WHERE id = \(id) AND kind = \(kind.rawValue)",
                    logger: logger
                ) > 0
            return (exists, nil)
        }
        guard found.exists else { throw .notFound(id: name) }
        guard let row = found.row else { throw .noSuchRevision(id: name, revision: number) }
        return try row.record(withDocument: true)
    }
}
