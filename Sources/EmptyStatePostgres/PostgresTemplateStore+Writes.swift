import EmptyStateCore
import EmptyStateStore
import Logging
import PostgresNIO

/// Changes to templates: each is one transaction under the catalogue write lock that checks the
/// caller's precondition (`CatalogueRules`), writes the current state (document, strings,
/// aliases), appends an immutable revision and announces the change.
extension PostgresTemplateStore {
    package func put(
        _ template: Template,
        precondition: WritePrecondition,
        actor: String
    ) throws(StoreError) -> (stored: StoredTemplate, created: Bool) {
        let logger = logger
        return try write { connection in
            let plan = try CatalogueRules.put(
                name: template.id,
                current: try await Self.row(connection, id: template.id, kind: .template, logger: logger),
                precondition: precondition
            )
            try await Self.checkConflicts(connection, template: template, logger: logger)
            let write = try RevisionWrite.template(template, plan: plan, actor: actor)
            return (try await Self.apply(connection, template, write, edited: true, logger: logger), plan.created)
        }
    }

    package func updateStrings<Failure: Error>(
        id: String,
        expectedRevision: Int,
        actor: String,
        note: String?,
        build: (Template) throws(Failure) -> Template
    ) throws -> StoredTemplate {
        // `build` runs on this thread, between a read and a write that checks the revision again
        // under the write lock: a change committed in between makes the write `.stale`, as if it
        // had come first.
        let live = try CatalogueRules.change(
            name: id,
            current: try current(id: id, kind: .template),
            expectedRevision: expectedRevision
        )
        let current = try StoredDocuments.template(fromText: live.document)
        let template = try build(current)
        let logger = logger
        return try write { connection in
            let live = try CatalogueRules.change(
                name: id,
                current: try await Self.row(connection, id: id, kind: .template, logger: logger),
                expectedRevision: expectedRevision
            )
            let write = RevisionWrite.template(
                template,
                previous: current,
                revision: live.revision + 1,
                action: .strings,
                actor: actor,
                note: note
            )
            return try await Self.apply(connection, template, write, edited: true, logger: logger)
        }
    }

    package func delete(id: String, expectedRevision: Int, actor: String) throws(StoreError) -> Int {
        let logger = logger
        return try write { connection in
            let live = try CatalogueRules.change(
                name: id,
                current: try await Self.row(connection, id: id, kind: .template, logger: logger),
                expectedRevision: expectedRevision
            )
            let deletion = RevisionWrite.deletion(id: id, revision: live.revision + 1, actor: actor)
            try await connection.all(
                """
                UPDATE template SET revision = \(deletion.revision), deleted = true, edited = true,
                    updated_at = \(deletion.at), updated_by = \(deletion.by)
                WHERE id = \(id)
                """,
                logger: logger
            )
            try await connection.all("DELETE FROM template_string WHERE template_id = \(id)", logger: logger)
            try await connection.all("DELETE FROM template_alias WHERE template_id = \(id)", logger: logger)
            try await Self.appendRevision(connection, deletion, logger: logger)
            return deletion.revision
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
            let plan = try CatalogueRules.rollback(
                name: id,
                current: try await Self.row(connection, id: id, kind: .template, logger: logger),
                expectedRevision: expectedRevision
            )
            let text = try CatalogueRules.rollbackText(
                name: id,
                number: target,
                target: try await Self.recorded(connection, documentID: id, revision: target, logger: logger)
            )
            let template = try StoredDocuments.template(fromText: text)
            try await Self.checkConflicts(connection, template: template, logger: logger)
            let write = try RevisionWrite.template(template, plan: plan, actor: actor)
            return try await Self.apply(connection, template, write, edited: true, logger: logger)
        }
    }

    // MARK: - Pieces of a write

    /// What the store holds for revision `number` of a document, for a rollback.
    static func recorded(
        _ connection: PostgresConnection,
        documentID: String,
        revision number: Int,
        logger: Logger
    ) async throws -> CatalogueRules.Target {
        let rows = try await connection.all(
            "SELECT document FROM revision WHERE template_id = \(documentID) AND revision = \(number)",
            logger: logger
        )
        guard let first = rows.first else { return .missing }
        return try first.decode(String?.self).map { .document($0) } ?? .deletion
    }

    /// Ids and aliases are unique across live templates (`CatalogueRules.checkConflicts`).
    static func checkConflicts(
        _ connection: PostgresConnection,
        template: Template,
        logger: Logger
    ) async throws {
        var aliasOwners: [String: String] = [:]
        for try await (alias, owner) in try await connection.query(
            """
            SELECT alias, template_id FROM template_alias
            WHERE alias = ANY(\(CatalogueRules.claimedNames(template))) AND template_id <> \(template.id)
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
        try CatalogueRules.checkConflicts(template, aliasOwners: aliasOwners, liveIDs: liveIDs)
    }

    /// Writes `template` as the current state `write` records, syncs its strings and aliases,
    /// appends the revision and announces the change. Unchanged strings keep who changed them
    /// and when.
    @discardableResult
    static func apply(
        _ connection: PostgresConnection,
        _ template: Template,
        _ write: RevisionWrite,
        edited: Bool,
        logger: Logger
    ) async throws -> StoredTemplate {
        try await setCurrent(connection, write, edited: edited, logger: logger)
        let strings = RevisionWrite.strings(of: template)
        let locales = strings.map(\.locale)
        let keys = strings.map(\.key)
        let values = strings.map(\.value)
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
            INSERT INTO template_string (template_id, locale, key, value, updated_at, updated_by, revision)
            SELECT \(template.id), w.locale, w.key, w.value, \(write.at), \(write.by), \(write.revision)
            FROM unnest(\(locales)::text[], \(keys)::text[], \(values)::text[]) AS w(locale, key, value)
            ON CONFLICT (template_id, locale, key) DO UPDATE SET value = excluded.value,
                updated_at = excluded.updated_at, updated_by = excluded.updated_by, revision = excluded.revision
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
        try await appendRevision(connection, write, logger: logger)
        return StoredTemplate(template: template, revision: write.revision, updatedAt: write.at, updatedBy: write.by)
    }

    /// Writes the current row of a document (template or policy) as `write` leaves it: live, at
    /// its revision. `edited` is sticky: once ops changed a document, a later import keeps off it.
    static func setCurrent(
        _ connection: PostgresConnection,
        _ write: RevisionWrite,
        edited: Bool,
        logger: Logger
    ) async throws {
        try await connection.all(
            """
            INSERT INTO template (id, kind, revision, deleted, document, edited, updated_at, updated_by)
            VALUES (\(write.documentID), \(write.kind), \(write.revision), false, \(write.document), \(edited),
                \(write.at), \(write.by))
            ON CONFLICT (id) DO UPDATE SET revision = excluded.revision, deleted = false, document = excluded.document,
                edited = template.edited OR excluded.edited, updated_at = excluded.updated_at,
                updated_by = excluded.updated_by
            """,
            logger: logger
        )
    }

    /// Appends `write`'s revision and announces it on the change feed (both take effect at COMMIT).
    static func appendRevision(_ connection: PostgresConnection, _ write: RevisionWrite, logger: Logger) async throws {
        try await connection.all(
            """
            INSERT INTO revision (template_id, revision, action, document, changed_fields, created_at, created_by, note)
            VALUES (\(write.documentID), \(write.revision), \(write.action.rawValue), \(write.document),
                \(write.changedFields), \(write.at), \(write.by), \(write.note))
            """,
            logger: logger
        )
        try await announce(connection, documentID: write.documentID, revision: write.revision, logger: logger)
    }
}
