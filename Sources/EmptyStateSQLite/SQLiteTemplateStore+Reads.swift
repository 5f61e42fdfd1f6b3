import EmptyStateCore
import EmptyStateStore
import EmptyStateStoreSQL
import GRDB

/// Reads of templates, one page at a time for listings, and the audit trail. They run on
/// reader connections and never wait for a writer.
extension SQLiteTemplateStore {
    /// Every live template, in id order: what clients are served.
    package func liveTemplates() throws(StoreError) -> [StoredTemplate] {
        // The built-ins imported at start, already parsed: a stored document that is exactly
        // one of them is not parsed again (at 10,000 templates, that is half the start-up).
        let known = justImported.withLock { known in
            defer { known = [:] }
            return known
        }
        return try read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT id, revision, deleted, document, updated_at, updated_by FROM template
                    WHERE deleted = 0 AND kind = 'template' ORDER BY id
                    """
            ).map { row in
                let current = Self.current(row)
                if let builtin = known[row["id"] as String], builtin.document == current.document {
                    return StoredTemplate(
                        template: builtin.template,
                        revision: current.revision,
                        updatedAt: current.updatedAt,
                        updatedBy: current.updatedBy
                    )
                }
                return try StoredTemplate(current)
            }
        }
    }

    /// The live template with this id.
    /// - Throws: `.notFound` or `.deleted`.
    package func template(id: String) throws(StoreError) -> StoredTemplate {
        try read { db in
            try StoredTemplate(
                CatalogueRules.live(name: id, current: try Self.currentRows(db, ids: [id], kind: .template)[id])
            )
        }
    }

    /// The strings of a live template with who changed each and when.
    package func strings(id: String) throws(StoreError) -> [StoredString] {
        try read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT locale, key, value, updated_at, updated_by, revision, review FROM template_string
                    WHERE template_id = ? ORDER BY locale, key
                    """,
                arguments: [id]
            ).map {
                StoredString(
                    locale: $0["locale"],
                    key: $0["key"],
                    value: $0["value"],
                    updatedAt: $0["updated_at"],
                    updatedBy: $0["updated_by"],
                    revision: $0["revision"],
                    review: ReviewState(rawValue: $0["review"]) ?? .translated
                )
            }
        }
    }

    package func stringStamps() throws(StoreError) -> [StringStamp] {
        try read { db in
            // Deleted templates have no strings (a delete removes them), app policies none at all.
            let rows = try Row.fetchCursor(
                db,
                sql: """
                    SELECT template_id, locale, key, revision, updated_at, review FROM template_string
                    ORDER BY template_id
                    """
            )
            var stamps: [StringStamp] = []
            while let row = try rows.next() {
                stamps.append(
                    StringStamp(
                        templateID: row[0],
                        locale: row[1],
                        key: row[2],
                        revision: row[3],
                        updatedAt: row[4],
                        review: ReviewState(rawValue: row[5]) ?? .translated
                    )
                )
            }
            return stamps
        }
    }

    package func list(page: Int, pageSize: Int) throws(StoreError) -> Page<TemplateSummary> {
        try read { db in
            let total =
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM template WHERE deleted = 0 AND kind = 'template'") ?? 0
            let items = try Row.fetchAll(
                db,
                sql:
                    "SELECT id, revision, updated_at, updated_by FROM template WHERE deleted = 0 AND kind = 'template' ORDER BY id LIMIT ? OFFSET ?",
                arguments: [pageSize, (page - 1) * pageSize]
            ).map {
                TemplateSummary(
                    id: $0["id"],
                    revision: $0["revision"],
                    updatedAt: $0["updated_at"],
                    updatedBy: $0["updated_by"]
                )
            }
            return Page(items: items, page: page, pageSize: pageSize, total: total)
        }
    }

    /// A template's revisions, newest first, without their documents.
    /// - Throws: `.notFound` when no template ever had the id.
    package func revisions(id: String, page: Int, pageSize: Int) throws(StoreError) -> Page<RevisionRecord> {
        try revisions(
            documentID: id,
            kind: StoredDocuments.templateKind,
            reportedAs: id,
            page: page,
            pageSize: pageSize
        )
    }

    /// `revisions(id:page:pageSize:)` of any kind of document; errors name it `reportedAs`.
    func revisions(
        documentID id: String,
        kind: String,
        reportedAs name: String,
        page: Int,
        pageSize: Int
    ) throws(StoreError) -> Page<RevisionRecord> {
        try read { db in
            guard
                try Bool.fetchOne(db, sql: "SELECT 1 FROM template WHERE id = ? AND kind = ?", arguments: [id, kind])
                    != nil
            else {
                throw StoreError.notFound(id: name)
            }
            let total =
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM revision WHERE template_id = ?", arguments: [id]) ?? 0
            let items = try Row.fetchAll(
                db,
                sql: """
                    SELECT template_id, revision, action, changed_fields, created_at, created_by, note FROM revision
                    WHERE template_id = ? ORDER BY revision DESC LIMIT ? OFFSET ?
                    """,
                arguments: [id, pageSize, (page - 1) * pageSize]
            ).map { try Self.revisionRecord($0, withDocument: false) }
            return Page(items: items, page: page, pageSize: pageSize, total: total)
        }
    }

    /// One revision with its document.
    package func revision(id: String, number: Int) throws(StoreError) -> RevisionRecord {
        try revision(documentID: id, kind: StoredDocuments.templateKind, reportedAs: id, number: number)
    }

    /// `revision(id:number:)` of any kind of document; errors name it `reportedAs`.
    func revision(
        documentID id: String,
        kind: String,
        reportedAs name: String,
        number: Int
    ) throws(StoreError)
        -> RevisionRecord
    {
        try read { db in
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: """
                        SELECT template_id, revision, action, document, changed_fields, created_at, created_by, note FROM revision
                        WHERE template_id = ? AND revision = ? AND template_id IN (SELECT id FROM template WHERE kind = ?)
                        """,
                    arguments: [id, number, kind]
                )
            else {
                if try Bool.fetchOne(
                    db,
                    sql: "SELECT 1 FROM template WHERE id = ? AND kind = ?",
                    arguments: [id, kind]
                )
                    == nil
                {
                    throw StoreError.notFound(id: name)
                }
                throw StoreError.noSuchRevision(id: name, revision: number)
            }
            return try Self.revisionRecord(row, withDocument: true)
        }
    }

    /// Every change, newest first (in the order the changes were committed; `created_at` is in whole
    /// seconds, so it ties): who changed what, when, and which fields.
    package func audit(_ filter: AuditFilter, page: Int, pageSize: Int) throws(StoreError) -> Page<RevisionRecord> {
        let (clauses, arguments) = filter.sqlConditions(.sqlite)
        let condition = clauses.isEmpty ? "" : "WHERE " + clauses.joined(separator: " AND ")
        let filterArguments = StatementArguments(arguments)
        return try read { db in
            let total =
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM revision \(condition)", arguments: filterArguments)
                ?? 0
            let items = try Row.fetchAll(
                db,
                sql: """
                    SELECT template_id, revision, action, changed_fields, created_at, created_by, note FROM revision \(condition)
                    ORDER BY seq DESC LIMIT ? OFFSET ?
                    """,
                arguments: filterArguments + [pageSize, (page - 1) * pageSize]
            ).map { try Self.revisionRecord($0, withDocument: false) }
            return Page(items: items, page: page, pageSize: pageSize, total: total)
        }
    }
}
