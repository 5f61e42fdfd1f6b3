import EmptyStateCore
import EmptyStateStore
import Logging
import PostgresNIO

/// The catalogue's writes on PostgreSQL: the SQL of `CatalogueTransaction`, each method one step
/// of a `PostgresSession` under the catalogue write lock. A batch of rows is written with one
/// statement per table, its values passed as arrays (`unnest`), so importing 10,000 built-ins is
/// a handful of statements, not tens of thousands.
struct PostgresCatalogueTransaction: CatalogueTransaction {
    let session: PostgresSession

    private var logger: Logger { session.logger }

    func currentRows(_ ids: [String], kind: DocumentKind) throws(StoreError) -> [String: CurrentDocument] {
        let logger = logger
        return try session.run { connection in
            try await PostgresTemplateStore.currentRows(connection, ids: ids, kind: kind, logger: logger)
        }
    }

    func recorded(documentID: String, revision: Int) throws(StoreError) -> CatalogueRules.Target {
        let logger = logger
        return try session.run { connection in
            let rows = try await connection.all(
                "SELECT document FROM revision WHERE template_id = \(documentID) AND revision = \(revision)",
                logger: logger
            )
            guard let first = rows.first else { return .missing }
            return try first.decode(String?.self).map { .document($0) } ?? .deletion
        }
    }

    func aliasOwners(of names: [String], except templateID: String) throws(StoreError) -> [String: String] {
        let logger = logger
        return try session.run { connection in
            var owners: [String: String] = [:]
            for try await (alias, owner) in try await connection.query(
                """
                SELECT alias, template_id FROM template_alias
                WHERE alias = ANY(\(names)) AND template_id <> \(templateID)
                """,
                logger: logger
            ).decode((String, String).self) {
                owners[alias] = owner
            }
            return owners
        }
    }

    func liveTemplateIDs(among ids: [String], except templateID: String) throws(StoreError) -> Set<String> {
        guard !ids.isEmpty else { return [] }
        let logger = logger
        return try session.run { connection in
            var live: Set<String> = []
            for try await id in try await connection.query(
                """
                SELECT id FROM template
                WHERE id = ANY(\(ids)) AND deleted = false AND id <> \(templateID) AND kind = 'template'
                """,
                logger: logger
            ).decode(String.self) {
                live.insert(id)
            }
            return live
        }
    }

    func write(_ rows: CatalogueRows) throws(StoreError) {
        let logger = logger
        try session.run { connection in
            if !rows.documents.isEmpty { try await Self.setCurrent(rows.documents, connection, logger) }
            if !rows.deletions.isEmpty { try await Self.markDeleted(rows.deletions, connection, logger) }
            if !rows.contents.isEmpty { try await Self.replaceContents(rows.contents, connection, logger) }
            if !rows.revisions.isEmpty { try await Self.append(rows.revisions, connection, logger) }
            try await Self.writeChangeRequestRows(rows, connection, logger)
        }
    }

    /// Appends one `catalogue_change` row per revision and notifies the newest number once; both
    /// take effect at COMMIT. Other replicas' `CatalogueChangeListener` load what changed.
    func announce(_ revisions: [RevisionWrite]) throws(StoreError) {
        let logger = logger
        try session.run { connection in
            try await connection.all(
                """
                WITH change AS (
                    INSERT INTO catalogue_change (document_id, revision)
                    SELECT * FROM unnest(\(revisions.map(\.documentID))::text[], \(revisions.map(\.revision))::int8[])
                    RETURNING seq)
                SELECT pg_notify(\(PostgresTemplateStore.catalogueChannel), MAX(seq)::text) FROM change
                """,
                logger: logger
            )
        }
    }

    // MARK: - Statements

    /// The current rows as the writes leave them: live, at their revisions. `edited` is sticky.
    private static func setCurrent(
        _ documents: [(write: RevisionWrite, edited: Bool)],
        _ connection: PostgresConnection,
        _ logger: Logger
    ) async throws {
        let writes = documents.map(\.write)
        try await connection.all(
            """
            INSERT INTO template (id, kind, revision, deleted, document, edited, updated_at, updated_by)
            SELECT id, kind, revision, false, document, edited, at, by
            FROM unnest(\(writes.map(\.documentID))::text[], \(writes.map(\.kind))::text[],
                \(writes.map(\.revision))::int8[], \(writes.map { $0.document ?? "" })::text[], \(documents.map(\.edited))::bool[],
                \(writes.map(\.at))::text[], \(writes.map(\.by))::text[])
                AS w(id, kind, revision, document, edited, at, by)
            ON CONFLICT (id) DO UPDATE SET revision = excluded.revision, deleted = false, document = excluded.document,
                edited = template.edited OR excluded.edited, updated_at = excluded.updated_at,
                updated_by = excluded.updated_by
            """,
            logger: logger
        )
    }

    private static func markDeleted(
        _ deletions: [RevisionWrite],
        _ connection: PostgresConnection,
        _ logger: Logger
    ) async throws {
        let ids = deletions.map(\.documentID)
        try await connection.all(
            """
            UPDATE template t SET revision = d.revision, deleted = true, edited = true, updated_at = d.at,
                updated_by = d.by
            FROM unnest(\(ids)::text[], \(deletions.map(\.revision))::int8[], \(deletions.map(\.at))::text[],
                \(deletions.map(\.by))::text[]) AS d(id, revision, at, by)
            WHERE t.id = d.id
            """,
            logger: logger
        )
        try await connection.all("DELETE FROM template_string WHERE template_id = ANY(\(ids))", logger: logger)
        try await connection.all("DELETE FROM template_alias WHERE template_id = ANY(\(ids))", logger: logger)
    }

    /// The string rows of one statement, column by column (postgres-nio binds arrays).
    private struct StringRows {
        var ids: [String] = [], locales: [String] = [], keys: [String] = [], values: [String] = []
        var ats: [String] = [], bys: [String] = [], revisions: [Int] = [], reviews: [String] = []

        mutating func append(_ content: TemplateContent, _ string: (locale: String, key: String, value: String)) {
            ids.append(content.templateID)
            locales.append(string.locale)
            keys.append(string.key)
            values.append(string.value)
            ats.append(content.at)
            bys.append(content.by)
            revisions.append(content.revision)
            reviews.append(content.review(locale: string.locale, key: string.key).rawValue)
        }
    }

    /// Templates' strings and aliases as the contents have them. Unchanged strings keep who
    /// changed them and when (the upsert changes a row only when its value differs), unless the
    /// write marks them (`TemplateContent.marks`: their own upsert stamps them whatever their
    /// value).
    private static func replaceContents(
        _ contents: [TemplateContent],
        _ connection: PostgresConnection,
        _ logger: Logger
    ) async throws {
        var all = StringRows()
        var plain = StringRows()
        var marked = StringRows()
        for content in contents {
            for string in content.strings {
                all.append(content, string)
                if content.marks(locale: string.locale, key: string.key) {
                    marked.append(content, string)
                } else {
                    plain.append(content, string)
                }
            }
        }
        let templateIDs = contents.map(\.templateID)
        try await connection.all(
            """
            DELETE FROM template_string s WHERE s.template_id = ANY(\(templateIDs)) AND NOT EXISTS (
                SELECT 1 FROM unnest(\(all.ids)::text[], \(all.locales)::text[], \(all.keys)::text[]) AS w(id, locale, key)
                WHERE w.id = s.template_id AND w.locale = s.locale AND w.key = s.key)
            """,
            logger: logger
        )
        for (rows, onlyChanged) in [(plain, true), (marked, false)] where !rows.ids.isEmpty {
            // postgres-nio binds values, not SQL: the two statements differ in their WHERE alone.
            let statement: PostgresQuery =
                onlyChanged
                ? """
                INSERT INTO template_string (template_id, locale, key, value, updated_at, updated_by, revision, review)
                SELECT * FROM unnest(\(rows.ids)::text[], \(rows.locales)::text[], \(rows.keys)::text[],
                    \(rows.values)::text[], \(rows.ats)::text[], \(rows.bys)::text[], \(rows.revisions)::int8[],
                    \(rows.reviews)::text[])
                ON CONFLICT (template_id, locale, key) DO UPDATE SET value = excluded.value,
                    updated_at = excluded.updated_at, updated_by = excluded.updated_by, revision = excluded.revision,
                    review = excluded.review
                WHERE template_string.value <> excluded.value
                """
                : """
                INSERT INTO template_string (template_id, locale, key, value, updated_at, updated_by, revision, review)
                SELECT * FROM unnest(\(rows.ids)::text[], \(rows.locales)::text[], \(rows.keys)::text[],
                    \(rows.values)::text[], \(rows.ats)::text[], \(rows.bys)::text[], \(rows.revisions)::int8[],
                    \(rows.reviews)::text[])
                ON CONFLICT (template_id, locale, key) DO UPDATE SET value = excluded.value,
                    updated_at = excluded.updated_at, updated_by = excluded.updated_by, revision = excluded.revision,
                    review = excluded.review
                """
            try await connection.all(statement, logger: logger)
        }
        try await connection.all("DELETE FROM template_alias WHERE template_id = ANY(\(templateIDs))", logger: logger)
        let aliased = contents.flatMap { content in content.aliases.map { (content.templateID, $0) } }
        if !aliased.isEmpty {
            try await connection.all(
                """
                INSERT INTO template_alias (alias, template_id)
                SELECT * FROM unnest(\(aliased.map(\.1))::text[], \(aliased.map(\.0))::text[])
                """,
                logger: logger
            )
        }
    }

    /// Appends the revisions; `seq` numbers them in this order. (postgres-nio binds no array
    /// with a NULL in it: a deletion's document and an absent note go as "" with a flag.)
    private static func append(
        _ revisions: [RevisionWrite],
        _ connection: PostgresConnection,
        _ logger: Logger
    )
        async throws
    {
        try await connection.all(
            """
            INSERT INTO revision (template_id, revision, action, document, changed_fields, created_at, created_by, note)
            SELECT id, revision, action, CASE WHEN has_document THEN document END, changed, at, by,
                CASE WHEN has_note THEN note END
            FROM unnest(\(revisions.map(\.documentID))::text[], \(revisions.map(\.revision))::int8[],
                \(revisions.map(\.action.rawValue))::text[], \(revisions.map { $0.document != nil })::bool[],
                \(revisions.map { $0.document ?? "" })::text[], \(revisions.map(\.changedFields))::text[],
                \(revisions.map(\.at))::text[], \(revisions.map(\.by))::text[], \(revisions.map { $0.note != nil })::bool[],
                \(revisions.map { $0.note ?? "" })::text[])
                WITH ORDINALITY AS r(id, revision, action, has_document, document, changed, at, by, has_note, note, n)
            ORDER BY n
            """,
            logger: logger
        )
    }
}
