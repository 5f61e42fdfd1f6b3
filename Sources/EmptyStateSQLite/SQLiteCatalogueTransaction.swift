import EmptyStateCore
import EmptyStateStore
import GRDB

/// The catalogue's writes on SQLite: the SQL of `CatalogueTransaction` inside one GRDB write
/// transaction (the writer lock serializes writes, so a read stays true until COMMIT). What a
/// write decides is `CatalogueWrite`'s; every statement is cached (prepared once per connection),
/// so a batch of thousands of rows (the import of built-ins) costs a step per row, not a parse.
struct SQLiteCatalogueTransaction: CatalogueTransaction {
    let db: Database
    /// Rung once the transaction commits, when it queued webhook deliveries (`record`).
    var bell: OutboxBell? = nil

    /// Runs GRDB work, its failure as the store's (`StoreError.from(_:)`).
    func sql<T>(_ body: () throws -> T) throws(StoreError) -> T {
        do {
            return try body()
        } catch let error as StoreError {
            throw error
        } catch {
            throw .from(error)
        }
    }

    func currentRows(_ ids: [String], kind: DocumentKind) throws(StoreError) -> [String: CurrentDocument] {
        try sql { try SQLiteTemplateStore.currentRows(db, ids: ids, kind: kind) }
    }

    func recorded(documentID: String, revision: Int) throws(StoreError) -> CatalogueRules.Target {
        try sql {
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: "SELECT document FROM revision WHERE template_id = ? AND revision = ?",
                    arguments: [documentID, revision]
                )
            else { return .missing }
            return (row["document"] as String?).map { .document($0) } ?? .deletion
        }
    }

    func aliasOwners(of names: [String], except templateID: String) throws(StoreError) -> [String: String] {
        try sql {
            var owners: [String: String] = [:]
            let statement = try db.cachedStatement(
                sql: "SELECT template_id FROM template_alias WHERE alias = ? AND template_id <> ?"
            )
            for name in names {
                owners[name] = try String.fetchOne(statement, arguments: [name, templateID])
            }
            return owners
        }
    }

    func liveTemplateIDs(among ids: [String], except templateID: String) throws(StoreError) -> Set<String> {
        try sql {
            let statement = try db.cachedStatement(
                sql: "SELECT 1 FROM template WHERE id = ? AND deleted = 0 AND kind = 'template' AND id <> ?"
            )
            return Set(try ids.filter { try Bool.fetchOne(statement, arguments: [$0, templateID]) != nil })
        }
    }

    func write(_ rows: CatalogueRows) throws(StoreError) {
        try sql {
            try setCurrent(rows.documents)
            for deletion in rows.deletions { try markDeleted(deletion) }
            try replaceContents(rows.contents)
            try append(rows.revisions)
            try writeChangeRequestRows(rows)
        }
    }

    /// SQLite has no other process to tell: one that shares the file reads it (`PolicyWatcher`).
    func announce(_ revisions: [RevisionWrite]) throws(StoreError) {}

    // MARK: - Statements
    //
    // The rows are bound through SQLite's C API (`RawBindings`): GRDB's `StatementArguments`, an
    // array of existentials a row, was most of the import of 10,000 built-ins (about 250,000
    // string rows).

    /// The current rows as the writes leave them: live, at their revisions. `edited` is sticky.
    private func setCurrent(_ documents: [(write: RevisionWrite, edited: Bool)]) throws {
        guard !documents.isEmpty else { return }
        var upsert = RawBindings(
            try db.cachedStatement(
                sql: """
                    INSERT INTO template (id, kind, revision, deleted, document, edited, updated_at, updated_by)
                    VALUES (?, ?, ?, 0, ?, ?, ?, ?)
                    ON CONFLICT(id) DO UPDATE SET revision = excluded.revision, deleted = 0, document = excluded.document,
                        edited = MAX(template.edited, excluded.edited), updated_at = excluded.updated_at,
                        updated_by = excluded.updated_by
                    """
            )
        )
        for (write, edited) in documents {
            upsert.row()
            upsert.bind(write.documentID)
            upsert.bind(write.kind)
            upsert.bind(write.revision)
            upsert.bind(write.document)
            upsert.bind(edited ? 1 : 0)
            upsert.bind(write.at)
            upsert.bind(write.by)
            try upsert.execute()
        }
    }

    private func markDeleted(_ deletion: RevisionWrite) throws {
        try db.cachedStatement(
            sql:
                "UPDATE template SET revision = ?, deleted = 1, edited = 1, updated_at = ?, updated_by = ? WHERE id = ?"
        ).execute(arguments: [deletion.revision, deletion.at, deletion.by, deletion.documentID])
        try db.cachedStatement(sql: "DELETE FROM template_string WHERE template_id = ?")
            .execute(arguments: [deletion.documentID])
        try db.cachedStatement(sql: "DELETE FROM template_alias WHERE template_id = ?")
            .execute(arguments: [deletion.documentID])
    }

    /// Templates' strings and aliases as the contents have them. Unchanged strings keep who
    /// changed them and when (the upsert changes a row only when its value differs), unless the
    /// write marks them (`TemplateContent.marks`: the marking upsert stamps them whatever their
    /// value); a template that had none gets plain inserts.
    private func replaceContents(_ contents: [TemplateContent]) throws {
        guard !contents.isEmpty else { return }
        let columns = "template_id, locale, key, value, updated_at, updated_by, revision, review"
        var insert = RawBindings(
            try db.cachedStatement(sql: "INSERT INTO template_string (\(columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
        )
        let set = """
            value = excluded.value, updated_at = excluded.updated_at, updated_by = excluded.updated_by,
                revision = excluded.revision, review = excluded.review
            """
        var upsert = RawBindings(
            try db.cachedStatement(
                sql: """
                    INSERT INTO template_string (\(columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT(template_id, locale, key) DO UPDATE SET \(set)
                    WHERE template_string.value <> excluded.value
                    """
            )
        )
        var mark = RawBindings(
            try db.cachedStatement(
                sql: """
                    INSERT INTO template_string (\(columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT(template_id, locale, key) DO UPDATE SET \(set)
                    """
            )
        )
        var insertAlias = RawBindings(
            try db.cachedStatement(sql: "INSERT INTO template_alias (alias, template_id) VALUES (?, ?)")
        )
        for content in contents {
            if !content.replacesNothing { try removeStale(content) }
            for (locale, key, value) in content.strings {
                if content.replacesNothing {
                    try Self.run(&insert, content, locale, key, value)
                } else if content.marks(locale: locale, key: key) {
                    try Self.run(&mark, content, locale, key, value)
                } else {
                    try Self.run(&upsert, content, locale, key, value)
                }
            }
            for alias in content.aliases {
                insertAlias.row()
                insertAlias.bind(alias)
                insertAlias.bind(content.templateID)
                try insertAlias.execute()
            }
        }
    }

    /// One string row of `content`.
    private static func run(
        _ statement: inout RawBindings,
        _ content: TemplateContent,
        _ locale: String,
        _ key: String,
        _ value: String
    ) throws {
        statement.row()
        statement.bind(content.templateID)
        statement.bind(locale)
        statement.bind(key)
        statement.bind(value)
        statement.bind(content.at)
        statement.bind(content.by)
        statement.bind(content.revision)
        statement.bind(content.review(locale: locale, key: key).rawValue)
        try statement.execute()
    }

    /// Removes the strings of a template that `content` no longer has, and all its aliases
    /// (inserted again after).
    private func removeStale(_ content: TemplateContent) throws {
        let wanted = Set(content.strings.map { $0.locale + "\u{0}" + $0.key })
        let stored = try Row.fetchAll(
            db.cachedStatement(sql: "SELECT locale, key FROM template_string WHERE template_id = ?"),
            arguments: [content.templateID]
        )
        let remove = try db.cachedStatement(
            sql: "DELETE FROM template_string WHERE template_id = ? AND locale = ? AND key = ?"
        )
        for row in stored where !wanted.contains((row["locale"] as String) + "\u{0}" + (row["key"] as String)) {
            try remove.execute(arguments: [content.templateID, row["locale"] as String, row["key"] as String])
        }
        try db.cachedStatement(sql: "DELETE FROM template_alias WHERE template_id = ?")
            .execute(arguments: [content.templateID])
    }

    /// Appends the revisions, numbered by `seq` in this order after the newest (writes are
    /// serialized, so the numbers are unique; the unique index makes it the audit trail's order).
    private func append(_ revisions: [RevisionWrite]) throws {
        guard !revisions.isEmpty else { return }
        var seq = try Int64.fetchOne(db, sql: "SELECT COALESCE(MAX(seq), 0) FROM revision") ?? 0
        var insert = RawBindings(
            try db.cachedStatement(
                sql: """
                    INSERT INTO revision (template_id, revision, action, document, changed_fields, created_at,
                        created_by, note, seq)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """
            )
        )
        for write in revisions {
            seq += 1
            insert.row()
            insert.bind(write.documentID)
            insert.bind(write.revision)
            insert.bind(write.action.rawValue)
            insert.bind(write.document)
            insert.bind(write.changedFields)
            insert.bind(write.at)
            insert.bind(write.by)
            insert.bind(write.note)
            insert.bind(seq)
            try insert.execute()
        }
    }
}
