import EmptyStateCore
import EmptyStateStore
import JSONCoding
import Logging
import PostgresNIO

/// Changes to templates: each is one transaction under the catalogue write lock that checks the
/// caller's precondition, writes the current state (document, strings, aliases), appends an
/// immutable revision and announces the change.
extension PostgresTemplateStore {
    package func put(
        _ template: Template,
        precondition: WritePrecondition,
        actor: String
    ) throws(StoreError) -> (stored: StoredTemplate, created: Bool) {
        let logger = logger
        return try write { connection in
            let row = try await Self.row(connection, id: template.id, kind: .template, logger: logger)
            let live = row.map { !$0.deleted } ?? false
            let currentRevision = row?.revision ?? 0
            switch precondition {
            case .absent:
                if live { throw StoreError.alreadyExists(id: template.id, revision: currentRevision) }
            case .revision(let expected):
                guard let row else { throw StoreError.notFound(id: template.id) }
                guard live else { throw StoreError.deleted(id: template.id, revision: row.revision) }
                if expected != currentRevision { throw StoreError.stale(id: template.id, current: currentRevision) }
            }
            try await Self.checkConflicts(connection, template: template, logger: logger)
            let previous = live ? try row.map { try StoredDocuments.template(fromText: $0.document) } : nil
            let stored = try await Self.apply(
                connection,
                template: template,
                previous: previous,
                revision: currentRevision + 1,
                action: live ? .replace : .create,
                actor: actor,
                now: Timestamp.now(),
                edited: true,
                logger: logger
            )
            return (stored, !live)
        }
    }

    package func updateStrings<Failure: Error>(
        id: String,
        expectedRevision: Int,
        actor: String,
        build: (Template) throws(Failure) -> Template
    ) throws -> StoredTemplate {
        // `build` runs on this thread, between a read and a write that checks the revision again
        // under the write lock: a change committed in between makes the write `.stale`, as if it
        // had come first.
        let current = try template(id: id)
        if current.revision != expectedRevision { throw StoreError.stale(id: id, current: current.revision) }
        let template = try build(current.template)
        let logger = logger
        return try write { connection in
            let row = try await Self.row(connection, id: id, kind: .template, logger: logger)
            guard let row else { throw StoreError.notFound(id: id) }
            if row.deleted { throw StoreError.deleted(id: id, revision: row.revision) }
            if row.revision != expectedRevision { throw StoreError.stale(id: id, current: row.revision) }
            return try await Self.apply(
                connection,
                template: template,
                previous: current.template,
                revision: row.revision + 1,
                action: .strings,
                actor: actor,
                now: Timestamp.now(),
                edited: true,
                logger: logger
            )
        }
    }

    package func delete(id: String, expectedRevision: Int, actor: String) throws(StoreError) -> Int {
        let logger = logger
        return try write { connection in
            guard let row = try await Self.row(connection, id: id, kind: .template, logger: logger) else {
                throw StoreError.notFound(id: id)
            }
            if row.deleted { throw StoreError.deleted(id: id, revision: row.revision) }
            if row.revision != expectedRevision { throw StoreError.stale(id: id, current: row.revision) }
            let revision = row.revision + 1
            let now = Timestamp.now()
            try await connection.all(
                "UPDATE template SET revision = \(revision), deleted = true, edited = true, updated_at = \(now), updated_by = \(actor) WHERE id = \(id)",
                logger: logger
            )
            try await connection.all("DELETE FROM template_string WHERE template_id = \(id)", logger: logger)
            try await connection.all("DELETE FROM template_alias WHERE template_id = \(id)", logger: logger)
            try await connection.all(
                """
                INSERT INTO revision (template_id, revision, action, document, changed_fields, created_at, created_by)
                VALUES (\(id), \(revision), 'delete', NULL, '["/"]', \(now), \(actor))
                """,
                logger: logger
            )
            try await Self.announce(connection, documentID: id, revision: revision, logger: logger)
            return revision
        }
    }

    package func rollback(
        id: String,
        to target: Int,
        expectedRevision: Int?,
        actor: String
    ) throws(StoreError) -> StoredTemplate {
        let logger = logger
        return try write { connection in
            guard let row = try await Self.row(connection, id: id, kind: .template, logger: logger) else {
                throw StoreError.notFound(id: id)
            }
            if let expectedRevision, expectedRevision != row.revision {
                throw StoreError.stale(id: id, current: row.revision)
            }
            let recorded = try await connection.all(
                "SELECT document FROM revision WHERE template_id = \(id) AND revision = \(target)",
                logger: logger
            )
            guard let first = recorded.first else { throw StoreError.noSuchRevision(id: id, revision: target) }
            guard let text = try first.decode(String?.self) else {
                throw StoreError.conflicts([
                    ("/revision", "revision \(target) records a deletion; roll back to a revision with content")
                ])
            }
            let template = try StoredDocuments.template(fromText: text)
            try await Self.checkConflicts(connection, template: template, logger: logger)
            return try await Self.apply(
                connection,
                template: template,
                previous: row.deleted ? nil : try StoredDocuments.template(fromText: row.document),
                revision: row.revision + 1,
                action: .rollback,
                actor: actor,
                now: Timestamp.now(),
                edited: true,
                logger: logger
            )
        }
    }

    /// Ids and aliases are unique across live templates.
    static func checkConflicts(
        _ connection: PostgresConnection,
        template: Template,
        logger: Logger
    ) async throws {
        var problems: [(pointer: String, rule: String)] = []
        let names = [template.id] + template.aliases
        var aliasOwners: [String: String] = [:]
        for try await (alias, owner) in try await connection.query(
            """
            SELECT alias, template_id FROM template_alias
            WHERE alias = ANY(\(names)) AND template_id <> \(template.id)
            """,
            logger: logger
        ).decode((String, String).self) {
            aliasOwners[alias] = owner
        }
        var liveIDs: Set<String> = []
        for try await id in try await connection.query(
            """
            SELECT id FROM template
            WHERE id = ANY(\(template.aliases)) AND deleted = false AND id <> \(template.id) AND kind = 'template'
            """,
            logger: logger
        ).decode(String.self) {
            liveIDs.insert(id)
        }
        if let owner = aliasOwners[template.id] {
            problems.append(("/id", "\"\(template.id)\" is an alias of \(owner)"))
        }
        for (index, alias) in template.aliases.enumerated() {
            if let owner = aliasOwners[alias] {
                problems.append(("/aliases/\(index)", "\"\(alias)\" is already an alias of \(owner)"))
            } else if liveIDs.contains(alias) {
                problems.append(("/aliases/\(index)", "\"\(alias)\" is the id of another template"))
            }
        }
        if !problems.isEmpty { throw StoreError.conflicts(problems) }
    }

    /// Writes `template` as the current state at `revision`, syncs its strings and aliases,
    /// appends the revision and announces the change. Unchanged strings keep who changed them
    /// and when.
    @discardableResult
    static func apply(
        _ connection: PostgresConnection,
        template: Template,
        previous: Template?,
        revision: Int,
        action: RevisionRecord.Action,
        actor: String,
        now: String,
        edited: Bool,
        logger: Logger
    ) async throws -> StoredTemplate {
        let document = StoredDocuments.text(of: template.document)
        try await connection.all(
            """
            INSERT INTO template (id, kind, revision, deleted, document, edited, updated_at, updated_by)
            VALUES (\(template.id), 'template', \(revision), false, \(document), \(edited), \(now), \(actor))
            ON CONFLICT (id) DO UPDATE SET revision = excluded.revision, deleted = false, document = excluded.document,
                edited = template.edited OR excluded.edited, updated_at = excluded.updated_at,
                updated_by = excluded.updated_by
            """,
            logger: logger
        )
        var locales: [String] = []
        var keys: [String] = []
        var values: [String] = []
        for entry in template.strings {
            for (key, value) in entry.values {
                locales.append(entry.locale)
                keys.append(key)
                values.append(value)
            }
        }
        try await connection.all(
            """
            DELETE FROM template_string s WHERE s.template_id = \(template.id) AND NOT EXISTS (
                SELECT 1 FROM unnest(\(locales)::text[], \(keys)::text[]) AS w(locale, key)
                WHERE w.locale = s.locale AND w.key = s.key)
            """,
            logger: logger
        )
        try await connection.all(
            """
            INSERT INTO template_string (template_id, locale, key, value, updated_at, updated_by)
            SELECT \(template.id), w.locale, w.key, w.value, \(now), \(actor)
            FROM unnest(\(locales)::text[], \(keys)::text[], \(values)::text[]) AS w(locale, key, value)
            ON CONFLICT (template_id, locale, key) DO UPDATE SET value = excluded.value,
                updated_at = excluded.updated_at, updated_by = excluded.updated_by
            WHERE template_string.value <> excluded.value
            """,
            logger: logger
        )
        try await connection.all("DELETE FROM template_alias WHERE template_id = \(template.id)", logger: logger)
        if !template.aliases.isEmpty {
            try await connection.all(
                """
                INSERT INTO template_alias (alias, template_id)
                SELECT a, \(template.id) FROM unnest(\(template.aliases)::text[]) AS a
                """,
                logger: logger
            )
        }
        let changed = StoredDocuments.text(
            of:
                .array(TemplateDiff.changedFields(from: previous, to: template).map(JSONValue.string))
        )
        try await connection.all(
            """
            INSERT INTO revision (template_id, revision, action, document, changed_fields, created_at, created_by)
            VALUES (\(template.id), \(revision), \(action.rawValue), \(document), \(changed), \(now), \(actor))
            """,
            logger: logger
        )
        try await announce(connection, documentID: template.id, revision: revision, logger: logger)
        return StoredTemplate(template: template, revision: revision, updatedAt: now, updatedBy: actor)
    }
}
