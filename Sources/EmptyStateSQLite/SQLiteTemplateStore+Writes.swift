import EmptyStateCore
import EmptyStateStore
import GRDB

/// Changes to templates: each is one transaction that checks the caller's precondition, writes
/// the current state (document, strings, aliases) and appends an immutable revision.
extension SQLiteTemplateStore {
    /// Creates or replaces a template.
    /// - Returns: the stored template and whether it was created (or re-created after a delete).
    /// - Throws: `.alreadyExists`, `.notFound`, `.deleted`, `.stale` when the precondition fails;
    ///   `.conflicts` when an id or alias is taken by another template.
    package func put(
        _ template: Template,
        precondition: WritePrecondition,
        actor: String
    ) throws(StoreError)
        -> (stored: StoredTemplate, created: Bool)
    {
        try write { db in
            let plan = try CatalogueRules.put(
                name: template.id,
                current: try self.current(db, id: template.id),
                precondition: precondition
            )
            try self.checkConflicts(db, template: template)
            let write = try RevisionWrite.template(template, plan: plan, actor: actor)
            return (try self.apply(db, template, write, edited: true), plan.created)
        }
    }

    /// Replaces strings of a live template (a translator's unit of work).
    /// - Parameters:
    ///   - note: recorded with the revision.
    ///   - build: makes the new template from the current one, or throws its validation error.
    package func updateStrings<Failure: Error>(
        id: String,
        expectedRevision: Int,
        actor: String,
        note: String?,
        build: (Template) throws(Failure) -> Template
    ) throws -> StoredTemplate {
        do {
            return try timedWrite { db in
                let live = try CatalogueRules.change(
                    name: id,
                    current: try self.current(db, id: id),
                    expectedRevision: expectedRevision
                )
                let current = try StoredDocuments.template(fromText: live.document)
                let template = try build(current)
                let write = RevisionWrite.template(
                    template,
                    previous: current,
                    revision: live.revision + 1,
                    action: .strings,
                    actor: actor,
                    note: note
                )
                return try self.apply(db, template, write, edited: true)
            }
        } catch let error as StoreError {
            throw error
        } catch let error as Failure {
            throw error  // the caller's validation failure: nothing was written
        } catch {
            logger.error("store write failed", metadata: ["error": "\(error)", "store.path": "\(path)"])
            throw StoreError.from(error)
        }
    }

    /// Deletes a live template: clients get 404 from now on; its revisions stay.
    /// - Returns: the revision that records the deletion.
    package func delete(id: String, expectedRevision: Int, actor: String) throws(StoreError) -> Int {
        try write { db in
            let live = try CatalogueRules.change(
                name: id,
                current: try self.current(db, id: id),
                expectedRevision: expectedRevision
            )
            let deletion = RevisionWrite.deletion(id: id, revision: live.revision + 1, actor: actor)
            try db.execute(
                sql:
                    "UPDATE template SET revision = ?, deleted = 1, edited = 1, updated_at = ?, updated_by = ? WHERE id = ?",
                arguments: [deletion.revision, deletion.at, deletion.by, id]
            )
            try db.execute(sql: "DELETE FROM template_string WHERE template_id = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM template_alias WHERE template_id = ?", arguments: [id])
            try self.appendRevision(db, deletion)
            return deletion.revision
        }
    }

    /// Makes the content of revision `target` the newest revision; on a deleted template this
    /// restores it.
    /// - Parameter expectedRevision: when given, the current revision must equal it.
    package func rollback(
        id: String,
        to target: Int,
        expectedRevision: Int?,
        actor: String
    ) throws(StoreError)
        -> StoredTemplate
    {
        try write { db in
            let plan = try CatalogueRules.rollback(
                name: id,
                current: try self.current(db, id: id),
                expectedRevision: expectedRevision
            )
            let text = try CatalogueRules.rollbackText(
                name: id,
                number: target,
                target: try Self.recorded(db, documentID: id, revision: target)
            )
            let template = try StoredDocuments.template(fromText: text)
            try self.checkConflicts(db, template: template)
            return try self.apply(
                db,
                template,
                try RevisionWrite.template(template, plan: plan, actor: actor),
                edited: true
            )
        }
    }

    // MARK: - Pieces of a write

    /// The current row of the template `id`, live or deleted; `nil` when no template ever had it.
    func current(_ db: Database, id: String) throws -> CurrentDocument? {
        try Row.fetchOne(
            db,
            sql: """
                SELECT revision, deleted, document, updated_at, updated_by FROM template
                WHERE id = ? AND kind = 'template'
                """,
            arguments: [id]
        ).map(Self.current)
    }

    /// What the store holds for revision `number` of a document, for a rollback.
    static func recorded(_ db: Database, documentID: String, revision number: Int) throws -> CatalogueRules.Target {
        guard
            let row = try Row.fetchOne(
                db,
                sql: "SELECT document FROM revision WHERE template_id = ? AND revision = ?",
                arguments: [documentID, number]
            )
        else { return .missing }
        return (row["document"] as String?).map { .document($0) } ?? .deletion
    }

    /// Throws `.conflicts` when `template`'s id or aliases clash with other live templates;
    /// writes nothing (for `?validateOnly=true`).
    package func checkConflicts(_ template: Template) throws(StoreError) {
        try read { db in try self.checkConflicts(db, template: template) }
    }

    /// Ids and aliases are unique across live templates (`CatalogueRules.checkConflicts`).
    func checkConflicts(_ db: Database, template: Template) throws {
        var aliasOwners: [String: String] = [:]
        for name in CatalogueRules.claimedNames(template) {
            aliasOwners[name] = try String.fetchOne(
                db,
                sql: "SELECT template_id FROM template_alias WHERE alias = ? AND template_id <> ?",
                arguments: [name, template.id]
            )
        }
        var liveIDs: Set<String> = []
        for alias in template.aliases
        where try Bool.fetchOne(
            db,
            sql: "SELECT 1 FROM template WHERE id = ? AND deleted = 0 AND kind = 'template' AND id <> ?",
            arguments: [alias, template.id]
        ) != nil {
            liveIDs.insert(alias)
        }
        try CatalogueRules.checkConflicts(template, aliasOwners: aliasOwners, liveIDs: liveIDs)
    }

    /// Writes `template` as the current state `write` records, syncs its strings and aliases,
    /// and appends the revision. Unchanged strings keep who changed them and when.
    @discardableResult
    func apply(_ db: Database, _ template: Template, _ write: RevisionWrite, edited: Bool) throws -> StoredTemplate {
        try setCurrent(db, write, edited: edited)

        var wanted: Set<String> = []
        for (locale, key, value) in RevisionWrite.strings(of: template) {
            wanted.insert(locale + "\u{0}" + key)
            try db.cachedStatement(
                sql: """
                    INSERT INTO template_string (template_id, locale, key, value, updated_at, updated_by, revision)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT(template_id, locale, key) DO UPDATE SET value = excluded.value,
                        updated_at = excluded.updated_at, updated_by = excluded.updated_by, revision = excluded.revision
                    WHERE template_string.value <> excluded.value
                    """
            ).execute(
                arguments: [template.id, locale, key, value, write.at, write.by, write.revision]
            )
        }
        for row in try Row.fetchAll(
            db,
            sql: "SELECT locale, key FROM template_string WHERE template_id = ?",
            arguments: [template.id]
        )
        where !wanted.contains((row["locale"] as String) + "\u{0}" + (row["key"] as String)) {
            try db.cachedStatement(sql: "DELETE FROM template_string WHERE template_id = ? AND locale = ? AND key = ?")
                .execute(
                    arguments: [template.id, row["locale"] as String, row["key"] as String]
                )
        }

        try db.cachedStatement(sql: "DELETE FROM template_alias WHERE template_id = ?").execute(arguments: [template.id]
        )
        for alias in template.aliases {
            try db.cachedStatement(sql: "INSERT INTO template_alias (alias, template_id) VALUES (?, ?)").execute(
                arguments: [alias, template.id]
            )
        }

        try appendRevision(db, write)
        return StoredTemplate(template: template, revision: write.revision, updatedAt: write.at, updatedBy: write.by)
    }

    /// Writes the current row of a document (template or policy) as `write` leaves it: live, at
    /// its revision. `edited` is sticky: once ops changed a document, a later import keeps off it.
    func setCurrent(_ db: Database, _ write: RevisionWrite, edited: Bool) throws {
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

    /// Appends `write`'s revision, numbered by `seq` in commit order (writes are serialized, so
    /// `MAX + 1` is unique; the unique index makes it the audit trail's order).
    func appendRevision(_ db: Database, _ write: RevisionWrite) throws {
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
