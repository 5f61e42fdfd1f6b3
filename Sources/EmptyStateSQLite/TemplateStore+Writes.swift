import EmptyStateCore
import EmptyStateStore
import GRDB

/// Changes to templates: each is one transaction that checks the caller's precondition, writes
/// the current state (document, strings, aliases) and appends an immutable revision.
extension TemplateStore {
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
            let now = Timestamp.now()
            let row = try Row.fetchOne(
                db,
                sql: "SELECT revision, deleted, document FROM template WHERE id = ?",
                arguments: [template.id]
            )
            let live = row.map { ($0["deleted"] as Int) == 0 } ?? false
            let currentRevision = row.map { $0["revision"] as Int } ?? 0
            switch precondition {
            case .absent:
                if live { throw StoreError.alreadyExists(id: template.id, revision: currentRevision) }
            case .revision(let expected):
                guard let row else { throw StoreError.notFound(id: template.id) }
                guard live else { throw StoreError.deleted(id: template.id, revision: row["revision"]) }
                if expected != currentRevision { throw StoreError.stale(id: template.id, current: currentRevision) }
            }
            try self.checkConflicts(db, template: template)
            let previous = live ? try row.map { try StoredDocuments.template(fromText: $0["document"]) } : nil
            let stored = try self.apply(
                db,
                template: template,
                previous: previous,
                revision: currentRevision + 1,
                action: live ? .replace : .create,
                actor: actor,
                now: now,
                edited: true
            )
            return (stored, !live)
        }
    }

    /// Replaces one locale's strings of a live template (a translator's unit of work).
    /// - Parameter build: makes the new template from the current one, or throws its validation error.
    package func updateStrings<Failure: Error>(
        id: String,
        expectedRevision: Int,
        actor: String,
        build: (Template) throws(Failure) -> Template
    ) throws -> StoredTemplate {
        do {
            return try timedWrite { db in
                let current = try self.live(db, id: id)
                if current.revision != expectedRevision { throw StoreError.stale(id: id, current: current.revision) }
                let template = try build(current.template)
                return try self.apply(
                    db,
                    template: template,
                    previous: current.template,
                    revision: current.revision + 1,
                    action: .strings,
                    actor: actor,
                    now: Timestamp.now(),
                    edited: true
                )
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
            let current = try self.live(db, id: id)
            if current.revision != expectedRevision { throw StoreError.stale(id: id, current: current.revision) }
            let revision = current.revision + 1
            let now = Timestamp.now()
            try db.execute(
                sql:
                    "UPDATE template SET revision = ?, deleted = 1, edited = 1, updated_at = ?, updated_by = ? WHERE id = ?",
                arguments: [revision, now, actor, id]
            )
            try db.execute(sql: "DELETE FROM template_string WHERE template_id = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM template_alias WHERE template_id = ?", arguments: [id])
            try db.execute(
                sql: Self.insertRevision,
                arguments: [
                    id, revision, RevisionRecord.Action.delete.rawValue, nil, StoredDocuments.changedFieldsText(["/"]),
                    now, actor,
                ]
            )
            return revision
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
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: "SELECT revision, deleted, document FROM template WHERE id = ? AND kind = 'template'",
                    arguments: [id]
                )
            else { throw StoreError.notFound(id: id) }
            let currentRevision: Int = row["revision"]
            if let expectedRevision, expectedRevision != currentRevision {
                throw StoreError.stale(id: id, current: currentRevision)
            }
            guard
                let recorded = try Row.fetchOne(
                    db,
                    sql: "SELECT document FROM revision WHERE template_id = ? AND revision = ?",
                    arguments: [id, target]
                )
            else { throw StoreError.noSuchRevision(id: id, revision: target) }
            guard let text = recorded["document"] as String? else {
                throw StoreError.conflicts([
                    ("/revision", "revision \(target) records a deletion; roll back to a revision with content")
                ])
            }
            let template = try StoredDocuments.template(fromText: text)
            let live = (row["deleted"] as Int) == 0
            try self.checkConflicts(db, template: template)
            return try self.apply(
                db,
                template: template,
                previous: live ? try StoredDocuments.template(fromText: row["document"]) : nil,
                revision: currentRevision + 1,
                action: .rollback,
                actor: actor,
                now: Timestamp.now(),
                edited: true
            )
        }
    }

    // MARK: - Pieces of a write

    func live(_ db: Database, id: String) throws -> StoredTemplate {
        guard
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT id, revision, deleted, document, updated_at, updated_by FROM template
                    WHERE id = ? AND kind = 'template'
                    """,
                arguments: [id]
            )
        else { throw StoreError.notFound(id: id) }
        if (row["deleted"] as Int) == 1 { throw StoreError.deleted(id: id, revision: row["revision"]) }
        return try Self.stored(row)
    }

    /// Throws `.conflicts` when `template`'s id or aliases clash with other live templates;
    /// writes nothing (for `?validateOnly=true`).
    package func checkConflicts(_ template: Template) throws(StoreError) {
        try read { db in try self.checkConflicts(db, template: template) }
    }

    /// Ids and aliases are unique across live templates.
    func checkConflicts(_ db: Database, template: Template) throws {
        var problems: [(pointer: String, rule: String)] = []
        if let owner = try String.fetchOne(
            db,
            sql: "SELECT template_id FROM template_alias WHERE alias = ? AND template_id <> ?",
            arguments: [template.id, template.id]
        ) {
            problems.append(("/id", "\"\(template.id)\" is an alias of \(owner)"))
        }
        for (index, alias) in template.aliases.enumerated() {
            if let owner = try String.fetchOne(
                db,
                sql: "SELECT template_id FROM template_alias WHERE alias = ? AND template_id <> ?",
                arguments: [alias, template.id]
            ) {
                problems.append(("/aliases/\(index)", "\"\(alias)\" is already an alias of \(owner)"))
            } else if try Bool.fetchOne(
                db,
                sql: "SELECT 1 FROM template WHERE id = ? AND deleted = 0 AND id <> ?",
                arguments: [alias, template.id]
            ) != nil {
                problems.append(("/aliases/\(index)", "\"\(alias)\" is the id of another template"))
            }
        }
        if !problems.isEmpty { throw StoreError.conflicts(problems) }
    }

    /// Writes `template` as the current state at `revision`, syncs its strings and aliases, and
    /// appends the revision. Unchanged strings keep who changed them and when.
    @discardableResult
    func apply(
        _ db: Database,
        template: Template,
        previous: Template?,
        revision: Int,
        action: RevisionRecord.Action,
        actor: String,
        now: String,
        edited: Bool
    ) throws -> StoredTemplate {
        let document = StoredDocuments.text(of: template.document)
        try db.cachedStatement(
            sql: """
                INSERT INTO template (id, revision, deleted, document, edited, updated_at, updated_by)
                VALUES (?, ?, 0, ?, ?, ?, ?)
                ON CONFLICT(id) DO UPDATE SET revision = excluded.revision, deleted = 0, document = excluded.document,
                    edited = MAX(template.edited, excluded.edited), updated_at = excluded.updated_at,
                    updated_by = excluded.updated_by
                """
        ).execute(
            arguments: [template.id, revision, document, edited ? 1 : 0, now, actor]
        )

        var wanted: [String: String] = [:]
        for entry in template.strings {
            for (key, value) in entry.values {
                wanted[entry.locale + "\u{0}" + key] = value
                try db.cachedStatement(
                    sql: """
                        INSERT INTO template_string (template_id, locale, key, value, updated_at, updated_by)
                        VALUES (?, ?, ?, ?, ?, ?)
                        ON CONFLICT(template_id, locale, key) DO UPDATE SET value = excluded.value,
                            updated_at = excluded.updated_at, updated_by = excluded.updated_by
                        WHERE template_string.value <> excluded.value
                        """
                ).execute(
                    arguments: [template.id, entry.locale, key, value, now, actor]
                )
            }
        }
        for row in try Row.fetchAll(
            db,
            sql: "SELECT locale, key FROM template_string WHERE template_id = ?",
            arguments: [template.id]
        )
        where wanted[(row["locale"] as String) + "\u{0}" + (row["key"] as String)] == nil {
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

        let changed = TemplateDiff.changedFields(from: previous, to: template)
        try db.cachedStatement(sql: Self.insertRevision).execute(
            arguments: [
                template.id, revision, action.rawValue, document, StoredDocuments.changedFieldsText(changed), now,
                actor,
            ]
        )
        return StoredTemplate(template: template, revision: revision, updatedAt: now, updatedBy: actor)
    }

    /// Appends a revision: (template_id, revision, action, document, changed_fields, created_at,
    /// created_by), numbered by `seq` in commit order (writes are serialized, so `MAX + 1` is
    /// unique; the unique index makes it the audit trail's order).
    static let insertRevision = """
        INSERT INTO revision (template_id, revision, action, document, changed_fields, created_at, created_by, seq)
        VALUES (?, ?, ?, ?, ?, ?, ?, (SELECT COALESCE(MAX(seq), 0) + 1 FROM revision))
        """
}
