import EmptyStateCore
import EmptyStateStore
import GRDB

/// The catalogue's writes on SQLite: the SQL of `CatalogueTransaction` inside one GRDB write
/// transaction (the writer lock serializes writes, so a read stays true until COMMIT). What a
/// write decides is `CatalogueWrite`'s; every statement is cached (prepared once per connection),
/// so a batch of thousands of rows (the import of built-ins) costs a step per row, not a parse.
struct SQLiteCatalogueTransaction: CatalogueTransaction {
    let db: Database

    /// Runs GRDB work, its failure as the store's (`StoreError.from(_:)`).
    private func sql<T>(_ body: () throws -> T) throws(StoreError) -> T {
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
            for (write, edited) in rows.documents { try setCurrent(write, edited: edited) }
            for deletion in rows.deletions { try markDeleted(deletion) }
            for content in rows.contents { try replaceContent(content) }
            for revision in rows.revisions { try append(revision) }
        }
    }

    /// SQLite has no other process to tell: one that shares the file reads it (`PolicyWatcher`).
    func announce(_ revisions: [RevisionWrite]) throws(StoreError) {}

    // MARK: - Statements

    /// The current row as `write` leaves it: live, at its revision. `edited` is sticky.
    private func setCurrent(_ write: RevisionWrite, edited: Bool) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO template (id, kind, revision, deleted, document, edited, updated_at, updated_by)
                VALUES (?, ?, ?, 0, ?, ?, ?, ?)
                ON CONFLICT(id) DO UPDATE SET revision = excluded.revision, deleted = 0, document = excluded.document,
                    edited = MAX(template.edited, excluded.edited), updated_at = excluded.updated_at,
                    updated_by = excluded.updated_by
                """
        ).execute(
            arguments: [
                write.documentID, write.kind, write.revision, write.document, edited ? 1 : 0, write.at, write.by,
            ]
        )
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

    /// A template's strings and aliases as `content` has them. Unchanged strings keep who changed
    /// them and when (the upsert changes a row only when its value differs).
    private func replaceContent(_ content: TemplateContent) throws {
        var wanted: Set<String> = []
        let upsert = try db.cachedStatement(
            sql: """
                INSERT INTO template_string (template_id, locale, key, value, updated_at, updated_by, revision)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(template_id, locale, key) DO UPDATE SET value = excluded.value,
                    updated_at = excluded.updated_at, updated_by = excluded.updated_by, revision = excluded.revision
                WHERE template_string.value <> excluded.value
                """
        )
        for (locale, key, value) in content.strings {
            wanted.insert(locale + "\u{0}" + key)
            try upsert.execute(
                arguments: [content.templateID, locale, key, value, content.at, content.by, content.revision]
            )
        }
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
        let insertAlias = try db.cachedStatement(sql: "INSERT INTO template_alias (alias, template_id) VALUES (?, ?)")
        for alias in content.aliases {
            try insertAlias.execute(arguments: [alias, content.templateID])
        }
    }

    /// Appends a revision, numbered by `seq` in commit order (writes are serialized, so
    /// `MAX + 1` is unique; the unique index makes it the audit trail's order).
    private func append(_ write: RevisionWrite) throws {
        try db.cachedStatement(
            sql: """
                INSERT INTO revision (template_id, revision, action, document, changed_fields, created_at, created_by, note, seq)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM revision))
                """
        ).execute(
            arguments: [
                write.documentID, write.revision, write.action.rawValue, write.document, write.changedFields, write.at,
                write.by, write.note,
            ]
        )
    }
}
