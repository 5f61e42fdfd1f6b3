import EmptyStateCore
import GRDB
import JSONCoding
import Logging
import Synchronization

/// The localization store: templates, their strings per locale and key, and every revision,
/// in SQLite (WAL, `synchronous=FULL`) so an acknowledged write survives a crash or `kill -9`.
///
/// Each change is one transaction that writes the new current state and an immutable revision.
/// Reads use GRDB's pool of reader connections and never wait for a writer.
package final class TemplateStore: Sendable {
    /// Who wrote the revisions imported from `config/templates/`.
    package static let builtinActor = "built-in"

    private let pool: DatabasePool
    private let logger: Logger
    package let path: String
    /// Called with the duration of each write transaction in seconds, whatever its outcome (for metrics).
    private let onCommit: (@Sendable (Double) -> Void)?
    /// The built-ins `importBuiltins` just serialized, by id, for the next `liveTemplates()`.
    private let justImported = Mutex<[String: (document: String, template: Template)]>([:])

    /// Opens (creating and migrating when needed) the database at `path`.
    /// - Throws: `StoreError.database` when the file cannot be opened or migrated.
    package init(path: String, logger: Logger, onCommit: (@Sendable (Double) -> Void)? = nil) throws(StoreError) {
        self.path = path
        self.logger = logger
        self.onCommit = onCommit
        pool = try DurablePool.open(path: path, migrator: Self.migrator, foreignKeys: true)
    }

    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: templates, strings, revisions") { db in
            try db.execute(
                sql: """
                    CREATE TABLE template (
                        id TEXT PRIMARY KEY NOT NULL,
                        revision INTEGER NOT NULL,
                        deleted INTEGER NOT NULL DEFAULT 0,
                        document TEXT NOT NULL,          -- the current document (JSON)
                        edited INTEGER NOT NULL DEFAULT 0, -- 1 once ops changed it: releases no longer overwrite it
                        updated_at TEXT NOT NULL,
                        updated_by TEXT NOT NULL
                    );
                    CREATE TABLE template_string (
                        template_id TEXT NOT NULL REFERENCES template(id) ON DELETE CASCADE,
                        locale TEXT NOT NULL,
                        key TEXT NOT NULL,
                        value TEXT NOT NULL,
                        updated_at TEXT NOT NULL,
                        updated_by TEXT NOT NULL,
                        PRIMARY KEY (template_id, locale, key)
                    );
                    CREATE TABLE template_alias (
                        alias TEXT PRIMARY KEY NOT NULL,
                        template_id TEXT NOT NULL REFERENCES template(id) ON DELETE CASCADE
                    );
                    CREATE TABLE revision (
                        template_id TEXT NOT NULL REFERENCES template(id) ON DELETE CASCADE,
                        revision INTEGER NOT NULL,
                        action TEXT NOT NULL,
                        document TEXT,                    -- NULL for a deletion
                        changed_fields TEXT NOT NULL,     -- JSON array of JSON pointers
                        created_at TEXT NOT NULL,
                        created_by TEXT NOT NULL,
                        PRIMARY KEY (template_id, revision)
                    );
                    CREATE INDEX revision_by_time ON revision(created_at);
                    """
            )
        }
        // Other kinds of versioned documents (app policies) share the current-state and revision
        // tables, so they get revisions, rollback and the audit trail as templates do. Existing
        // rows are templates; template queries filter on the kind.
        migrator.registerMigration("v2: document kinds") { db in
            try db.execute(sql: "ALTER TABLE template ADD COLUMN kind TEXT NOT NULL DEFAULT 'template'")
        }
        return migrator
    }

    // MARK: - Seeding

    /// Imports the built-in templates: new ones are added; ones ops never edited are updated when
    /// the release changed them; ones ops edited or deleted are kept as they are (and logged).
    /// - Returns: how many templates were added and updated.
    @discardableResult
    package func importBuiltins(_ templates: [Template]) throws(StoreError) -> (added: Int, updated: Int) {
        var imported: [String: (document: String, template: Template)] = [:]
        defer { justImported.withLock { $0 = imported } }
        return try write { db in
            var added = 0
            var updated = 0
            let now = Timestamp.now()
            for template in templates {
                let document = Self.text(template.document)
                imported[template.id] = (document, template)
                if let row = try Row.fetchOne(
                    db,
                    sql: "SELECT revision, deleted, document, edited FROM template WHERE id = ?",
                    arguments: [template.id]
                ) {
                    let current: String = row["document"]
                    if current == document { continue }
                    if (row["edited"] as Int) == 1 || (row["deleted"] as Int) == 1 {
                        logger.notice(
                            "built-in template changed in this release but ops edited it; keeping their version",
                            metadata: [
                                "template.id": "\(template.id)", "template.revision": "\(row["revision"] as Int)",
                            ]
                        )
                        continue
                    }
                    let previous = try Self.parse(current)
                    try self.apply(
                        db,
                        template: template,
                        previous: previous,
                        revision: (row["revision"] as Int) + 1,
                        action: .import,
                        actor: Self.builtinActor,
                        now: now,
                        edited: false
                    )
                    updated += 1
                } else {
                    try self.apply(
                        db,
                        template: template,
                        previous: nil,
                        revision: 1,
                        action: .import,
                        actor: Self.builtinActor,
                        now: now,
                        edited: false
                    )
                    added += 1
                }
            }
            return (added, updated)
        }
    }

    // MARK: - Writes

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
            let previous = live ? try row.map { try Self.parse($0["document"]) } : nil
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
                sql: """
                    INSERT INTO revision (template_id, revision, action, document, changed_fields, created_at, created_by)
                    VALUES (?, ?, 'delete', NULL, '["/"]', ?, ?)
                    """,
                arguments: [id, revision, now, actor]
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
            let template = try Self.parse(text)
            let live = (row["deleted"] as Int) == 0
            try self.checkConflicts(db, template: template)
            return try self.apply(
                db,
                template: template,
                previous: live ? try Self.parse(row["document"]) : nil,
                revision: currentRevision + 1,
                action: .rollback,
                actor: actor,
                now: Timestamp.now(),
                edited: true
            )
        }
    }

    // MARK: - Reads

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
                    SELECT id, revision, document, updated_at, updated_by FROM template
                    WHERE deleted = 0 AND kind = 'template' ORDER BY id
                    """
            ).map { row in
                if let builtin = known[row["id"] as String], builtin.document == row["document"] as String {
                    return StoredTemplate(
                        template: builtin.template,
                        revision: row["revision"],
                        updatedAt: row["updated_at"],
                        updatedBy: row["updated_by"]
                    )
                }
                return try Self.stored(row)
            }
        }
    }

    /// The live template with this id.
    /// - Throws: `.notFound` or `.deleted`.
    package func template(id: String) throws(StoreError) -> StoredTemplate {
        try read { db in try self.live(db, id: id) }
    }

    /// The strings of a live template with who changed each and when.
    package func strings(id: String) throws(StoreError) -> [StoredString] {
        try read { db in
            try Row.fetchAll(
                db,
                sql:
                    "SELECT locale, key, value, updated_at, updated_by FROM template_string WHERE template_id = ? ORDER BY locale, key",
                arguments: [id]
            ).map {
                StoredString(
                    locale: $0["locale"],
                    key: $0["key"],
                    value: $0["value"],
                    updatedAt: $0["updated_at"],
                    updatedBy: $0["updated_by"]
                )
            }
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
        try revisions(documentID: id, kind: Self.templateKind, reportedAs: id, page: page, pageSize: pageSize)
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
                    SELECT template_id, revision, action, changed_fields, created_at, created_by FROM revision
                    WHERE template_id = ? ORDER BY revision DESC LIMIT ? OFFSET ?
                    """,
                arguments: [id, pageSize, (page - 1) * pageSize]
            ).map { try Self.revisionRecord($0, withDocument: false) }
            return Page(items: items, page: page, pageSize: pageSize, total: total)
        }
    }

    /// One revision with its document.
    package func revision(id: String, number: Int) throws(StoreError) -> RevisionRecord {
        try revision(documentID: id, kind: Self.templateKind, reportedAs: id, number: number)
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
                        SELECT template_id, revision, action, document, changed_fields, created_at, created_by FROM revision
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

    /// Every change, newest first: who changed what, when, and which fields.
    package func audit(page: Int, pageSize: Int, templateID: String?) throws(StoreError) -> Page<RevisionRecord> {
        try read { db in
            let filter = templateID == nil ? "" : "WHERE template_id = ?"
            let filterArguments: StatementArguments = templateID.map { [$0] } ?? []
            let total =
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM revision \(filter)", arguments: filterArguments) ?? 0
            let items = try Row.fetchAll(
                db,
                sql: """
                    SELECT template_id, revision, action, changed_fields, created_at, created_by FROM revision \(filter)
                    ORDER BY created_at DESC, template_id, revision DESC LIMIT ? OFFSET ?
                    """,
                arguments: filterArguments + [pageSize, (page - 1) * pageSize]
            ).map { try Self.revisionRecord($0, withDocument: false) }
            return Page(items: items, page: page, pageSize: pageSize, total: total)
        }
    }

    // MARK: - Internals

    /// The `kind` of template rows.
    static let templateKind = "template"

    func write<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try timedWrite(body)
        } catch let error as StoreError {
            throw error
        } catch {
            logger.error("store write failed", metadata: ["error": "\(error)", "store.path": "\(path)"])
            throw .from(error)
        }
    }

    /// One write transaction, its duration reported to `onCommit`.
    private func timedWrite<T>(_ body: (Database) throws -> T) throws -> T {
        guard let onCommit else { return try pool.write(body) }
        let started = ContinuousClock.now
        defer {
            let elapsed = ContinuousClock.now - started
            onCommit(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        }
        return try pool.write(body)
    }

    func read<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try pool.read(body)
        } catch let error as StoreError {
            throw error
        } catch {
            logger.error("store read failed", metadata: ["error": "\(error)", "store.path": "\(path)"])
            throw .from(error)
        }
    }

    private func live(_ db: Database, id: String) throws -> StoredTemplate {
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
    private func checkConflicts(_ db: Database, template: Template) throws {
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
    private func apply(
        _ db: Database,
        template: Template,
        previous: Template?,
        revision: Int,
        action: RevisionRecord.Action,
        actor: String,
        now: String,
        edited: Bool
    ) throws -> StoredTemplate {
        let document = Self.text(template.document)
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
        try db.cachedStatement(
            sql: """
                INSERT INTO revision (template_id, revision, action, document, changed_fields, created_at, created_by)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """
        ).execute(
            arguments: [
                template.id, revision, action.rawValue, document, Self.text(.array(changed.map(JSONValue.string))), now,
                actor,
            ]
        )
        return StoredTemplate(template: template, revision: revision, updatedAt: now, updatedBy: actor)
    }

    private static func stored(_ row: Row) throws -> StoredTemplate {
        StoredTemplate(
            template: try parse(row["document"]),
            revision: row["revision"],
            updatedAt: row["updated_at"],
            updatedBy: row["updated_by"]
        )
    }

    static func revisionRecord(_ row: Row, withDocument: Bool) throws -> RevisionRecord {
        var changed: [String] = []
        if case .array(let values) = try JSONParser.parse(Array((row["changed_fields"] as String).utf8)) {
            changed = values.compactMap { if case .string(let text) = $0 { text } else { nil } }
        }
        var document: JSONValue?
        if withDocument, let text = row["document"] as String? {
            document = try JSONParser.parse(Array(text.utf8))
        }
        return RevisionRecord(
            templateID: row["template_id"],
            revision: row["revision"],
            action: RevisionRecord.Action(rawValue: row["action"]) ?? .replace,
            createdAt: row["created_at"],
            createdBy: row["created_by"],
            changedFields: changed,
            document: document
        )
    }

    static func text(_ value: JSONValue) -> String {
        var writer = JSONWriter()
        writer.value(value)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// Parses a stored document; it was valid when written, so a failure means the file was damaged.
    static func parse(_ text: String) throws -> Template {
        let value = try JSONParser.parse(Array(text.utf8))
        switch TemplateParser.parse(value, origin: .stored) {
        case .success(let template): return template
        case .failure(let failure):
            throw StoreError.database("a stored document no longer validates: \(failure.issues.map(\.description))")
        }
    }

    /// The writer connection's `PRAGMA synchronous` (2 = FULL: every commit is fsync'd).
    package func synchronousMode() throws -> Int {
        try pool.write { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1 }
    }
}
