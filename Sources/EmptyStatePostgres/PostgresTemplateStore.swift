import EmptyStateCore
import EmptyStateStore
import JSONCoding
import Logging
import PostgresNIO

/// The localization store in PostgreSQL, shared by replicas: the same tables and rules as the
/// SQLite `TemplateStore`, plus a change feed.
///
/// Every catalogue write is one transaction that first takes a transaction advisory lock
/// (`PostgresSchema.catalogueWriteLock`), so writes from all replicas are serialized: two
/// `If-Match` writes of the same revision sent to two replicas have exactly one winner, aliases
/// stay unique across the catalogue, and the change feed's numbers follow commit order. The
/// transaction also appends a `catalogue_change` row and `pg_notify`s its number on
/// `catalogueChannel`; the other replicas' `CatalogueChangeListener` loads the change and
/// publishes it. Commits use the server's `synchronous_commit` (on by default), so an answered
/// write survives a crash of the replica and of PostgreSQL.
package final class PostgresTemplateStore: TemplateStoring {
    /// The NOTIFY channel of catalogue changes (the payload is the change's feed number).
    package static let catalogueChannel = "empty_state_catalogue"

    package let database: PostgresBackend
    private let logger: Logger
    /// Called with the duration of each write transaction in seconds, whatever its outcome.
    private let onCommit: (@Sendable (Double) -> Void)?

    package init(database: PostgresBackend, logger: Logger, onCommit: (@Sendable (Double) -> Void)? = nil) {
        self.database = database
        self.logger = logger
        self.onCommit = onCommit
    }

    package var location: String { database.location }

    // MARK: - Seeding

    @discardableResult
    package func importBuiltins(_ templates: [Template]) throws(StoreError) -> (added: Int, updated: Int) {
        let logger = logger
        // Several replicas may start at once: the write lock makes them take turns, and the
        // later ones find every document current.
        return try write(timeout: .seconds(60)) { connection in
            var current: [String: (revision: Int, deleted: Bool, document: String, edited: Bool)] = [:]
            for try await (id, revision, deleted, document, edited) in try await connection.query(
                "SELECT id, revision, deleted, document, edited FROM template WHERE kind = 'template'",
                logger: logger
            ).decode((String, Int, Bool, String, Bool).self) {
                current[id] = (revision, deleted, document, edited)
            }
            var added = 0
            var updated = 0
            let now = Timestamp.now()
            for template in templates {
                let document = StoredDocuments.text(of: template.document)
                let row = current[template.id]
                var previous: Template?
                var revision = 1
                switch BuiltinImport.decide(
                    current: row.map { .init(document: $0.document, edited: $0.edited, deleted: $0.deleted) },
                    document: document
                ) {
                case .unchanged:
                    continue
                case .keepOpsVersion:
                    logger.notice(
                        "built-in template changed in this release but ops edited it; keeping their version",
                        metadata: ["template.id": "\(template.id)", "template.revision": "\(row?.revision ?? 0)"]
                    )
                    continue
                case .add:
                    added += 1
                case .update:
                    previous = try StoredDocuments.template(fromText: row!.document)
                    revision = row!.revision + 1
                    updated += 1
                }
                try await Self.apply(
                    connection,
                    template: template,
                    previous: previous,
                    revision: revision,
                    action: .import,
                    actor: BuiltinImport.actor,
                    now: now,
                    edited: false,
                    logger: logger
                )
            }
            return (added, updated)
        }
    }

    // MARK: - Writes

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

    // MARK: - Reads

    package func liveTemplates() throws(StoreError) -> [StoredTemplate] {
        let rows = try liveRows(kind: .template)
        return try Self.parsing {
            try rows.map { row in
                StoredTemplate(
                    template: try StoredDocuments.template(fromText: row.document),
                    revision: row.revision,
                    updatedAt: row.updatedAt,
                    updatedBy: row.updatedBy
                )
            }
        }
    }

    package func template(id: String) throws(StoreError) -> StoredTemplate {
        let logger = logger
        let row = try read { client in
            try await client.withConnection { connection in
                try await Self.row(connection, id: id, kind: .template, logger: logger)
            }
        }
        guard let row else { throw .notFound(id: id) }
        if row.deleted { throw .deleted(id: id, revision: row.revision) }
        return try Self.parsing {
            StoredTemplate(
                template: try StoredDocuments.template(fromText: row.document),
                revision: row.revision,
                updatedAt: row.updatedAt,
                updatedBy: row.updatedBy
            )
        }
    }

    package func strings(id: String) throws(StoreError) -> [StoredString] {
        let logger = logger
        return try read { client in
            var strings: [StoredString] = []
            for try await (locale, key, value, updatedAt, updatedBy) in try await client.query(
                """
                SELECT locale, key, value, updated_at, updated_by FROM template_string
                WHERE template_id = \(id) ORDER BY locale COLLATE "C", key COLLATE "C"
                """,
                logger: logger
            ).decode((String, String, String, String, String).self) {
                strings.append(
                    StoredString(locale: locale, key: key, value: value, updatedAt: updatedAt, updatedBy: updatedBy)
                )
            }
            return strings
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

    package func audit(page: Int, pageSize: Int, templateID: String?) throws(StoreError) -> Page<RevisionRecord> {
        let logger = logger
        let (total, rows) = try read { client in
            let total: Int
            let sequence: PostgresRowSequence
            if let templateID {
                total = try await Self.count(
                    client,
                    "SELECT COUNT(*) FROM revision WHERE template_id = \(templateID)",
                    logger: logger
                )
                sequence = try await client.query(
                    """
                    SELECT template_id, revision, action, changed_fields, created_at, created_by FROM revision
                    WHERE template_id = \(templateID)
                    ORDER BY seq DESC
                    LIMIT \(pageSize) OFFSET \((page - 1) * pageSize)
                    """,
                    logger: logger
                )
            } else {
                total = try await Self.count(client, "SELECT COUNT(*) FROM revision", logger: logger)
                sequence = try await client.query(
                    """
                    SELECT template_id, revision, action, changed_fields, created_at, created_by FROM revision
                    ORDER BY seq DESC
                    LIMIT \(pageSize) OFFSET \((page - 1) * pageSize)
                    """,
                    logger: logger
                )
            }
            var rows: [RevisionRow] = []
            for try await (id, revision, action, changed, createdAt, createdBy) in sequence.decode(
                (String, Int, String, String, String, String).self
            ) {
                rows.append(RevisionRow(id, revision, action, nil, changed, createdAt, createdBy))
            }
            return (total, rows)
        }
        let items = try Self.parsing { try rows.map { try $0.record(withDocument: false) } }
        return Page(items: items, page: page, pageSize: pageSize, total: total)
    }

    package func checkConflicts(_ template: Template) throws(StoreError) {
        let logger = logger
        try read { client in
            try await client.withConnection { connection in
                try await Self.checkConflicts(connection, template: template, logger: logger)
            }
        }
    }

    // MARK: - App policies

    package func livePolicies() throws(StoreError) -> [StoredAppPolicy] {
        let rows = try liveRows(kind: .appPolicy)
        return try Self.parsing {
            try rows.map { row in
                StoredAppPolicy(
                    policy: try StoredDocuments.appPolicy(fromText: row.document),
                    revision: row.revision,
                    updatedAt: row.updatedAt,
                    updatedBy: row.updatedBy
                )
            }
        }
    }

    package func policyRevisions() throws(StoreError) -> [Platform: Int] {
        let logger = logger
        return try read { client in
            var revisions: [Platform: Int] = [:]
            for try await (id, revision) in try await client.query(
                "SELECT id, revision FROM template WHERE kind = 'app-policy' AND deleted = false",
                logger: logger
            ).decode((String, Int).self) {
                if let platform = StoredDocuments.appPolicyPlatform(documentID: id) { revisions[platform] = revision }
            }
            return revisions
        }
    }

    package func policy(platform: Platform) throws(StoreError) -> StoredAppPolicy {
        let logger = logger
        let id = StoredDocuments.appPolicyID(platform)
        let row = try read { client in
            try await client.withConnection { connection in
                try await Self.row(connection, id: id, kind: .appPolicy, logger: logger)
            }
        }
        guard let row, !row.deleted else { throw .notFound(id: platform.rawValue) }
        return try Self.parsing {
            StoredAppPolicy(
                policy: try StoredDocuments.appPolicy(fromText: row.document),
                revision: row.revision,
                updatedAt: row.updatedAt,
                updatedBy: row.updatedBy
            )
        }
    }

    package func putPolicy(
        _ policy: AppPolicy,
        precondition: WritePrecondition,
        actor: String
    ) throws(StoreError) -> (stored: StoredAppPolicy, created: Bool) {
        let logger = logger
        return try write { connection in
            let platform = policy.platform
            let id = StoredDocuments.appPolicyID(platform)
            let row = try await Self.row(connection, id: id, kind: .appPolicy, logger: logger)
            let current = row?.revision ?? 0
            switch precondition {
            case .absent:
                if row != nil { throw StoreError.alreadyExists(id: platform.rawValue, revision: current) }
            case .revision(let expected):
                guard row != nil else { throw StoreError.notFound(id: platform.rawValue) }
                if expected != current { throw StoreError.stale(id: platform.rawValue, current: current) }
            }
            let stored = try await Self.applyPolicy(
                connection,
                policy,
                previous: try row.map { try StoredDocuments.appPolicy(fromText: $0.document) },
                revision: current + 1,
                action: row == nil ? .create : .replace,
                actor: actor,
                logger: logger
            )
            return (stored, row == nil)
        }
    }

    package func rollbackPolicy(
        platform: Platform,
        to target: Int,
        expectedRevision: Int?,
        actor: String
    ) throws(StoreError) -> StoredAppPolicy {
        let logger = logger
        return try write { connection in
            let id = StoredDocuments.appPolicyID(platform)
            guard let row = try await Self.row(connection, id: id, kind: .appPolicy, logger: logger) else {
                throw StoreError.notFound(id: platform.rawValue)
            }
            if let expectedRevision, expectedRevision != row.revision {
                throw StoreError.stale(id: platform.rawValue, current: row.revision)
            }
            let recorded = try await connection.all(
                "SELECT document FROM revision WHERE template_id = \(id) AND revision = \(target)",
                logger: logger
            )
            guard let first = recorded.first, let text = try first.decode(String?.self) else {
                throw StoreError.noSuchRevision(id: platform.rawValue, revision: target)
            }
            return try await Self.applyPolicy(
                connection,
                try StoredDocuments.appPolicy(fromText: text),
                previous: try StoredDocuments.appPolicy(fromText: row.document),
                revision: row.revision + 1,
                action: .rollback,
                actor: actor,
                logger: logger
            )
        }
    }

    package func policyRevisions(
        platform: Platform,
        page: Int,
        pageSize: Int
    ) throws(StoreError)
        -> Page<RevisionRecord>
    {
        try revisions(
            documentID: StoredDocuments.appPolicyID(platform),
            kind: .appPolicy,
            reportedAs: platform.rawValue,
            page: page,
            pageSize: pageSize
        )
    }

    package func policyRevision(platform: Platform, number: Int) throws(StoreError) -> RevisionRecord {
        try revision(
            documentID: StoredDocuments.appPolicyID(platform),
            kind: .appPolicy,
            reportedAs: platform.rawValue,
            number: number
        )
    }

    // MARK: - The change feed

    /// The documents changed after feed number `after`, oldest first, each with its newest
    /// number: what a replica that applied everything up to `after` must load.
    package func changes(after: Int64) throws(StoreError) -> [(seq: Int64, documentID: String)] {
        let logger = logger
        return try read { client in
            var changes: [(seq: Int64, documentID: String)] = []
            for try await (seq, id) in try await client.query(
                """
                SELECT MAX(seq), document_id FROM catalogue_change WHERE seq > \(after)
                GROUP BY document_id ORDER BY MAX(seq)
                """,
                logger: logger
            ).decode((Int64, String).self) {
                changes.append((seq, id))
            }
            return changes
        }
    }

    /// The newest feed number (0 when nothing was ever written).
    package func latestChange() throws(StoreError) -> Int64 {
        let logger = logger
        return try read { client in
            var latest: Int64 = 0
            for try await seq in try await client.query(
                "SELECT COALESCE(MAX(seq), 0) FROM catalogue_change",
                logger: logger
            ).decode(Int64.self) {
                latest = seq
            }
            return latest
        }
    }

    // MARK: - Internals

    private enum Kind: String {
        case template
        case appPolicy = "app-policy"
    }

    /// The current row of a document, live or deleted.
    private struct CurrentRow: Sendable {
        var revision: Int
        var deleted: Bool
        var document: String
        var updatedAt: String
        var updatedBy: String
    }

    /// A revision row as read, decoded into a `RevisionRecord` off the event loop.
    private struct RevisionRow: Sendable {
        var id: String
        var revision: Int
        var action: String
        var document: String?
        var changed: String
        var createdAt: String
        var createdBy: String

        init(
            _ id: String,
            _ revision: Int,
            _ action: String,
            _ document: String?,
            _ changed: String,
            _ createdAt: String,
            _ createdBy: String
        ) {
            self.id = id
            self.revision = revision
            self.action = action
            self.document = document
            self.changed = changed
            self.createdAt = createdAt
            self.createdBy = createdBy
        }

        func record(withDocument: Bool) throws(StoreError) -> RevisionRecord {
            try RevisionRecord(
                templateID: id,
                revision: revision,
                action: action,
                createdAt: createdAt,
                createdBy: createdBy,
                changedFieldsText: changed,
                documentText: withDocument ? document : nil
            )
        }
    }

    /// One catalogue write: a transaction serialized with every other replica's writes.
    private func write<T: Sendable>(
        timeout: Duration? = nil,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) throws(StoreError) -> T {
        let started = ContinuousClock.now
        defer {
            if let onCommit {
                let elapsed = ContinuousClock.now - started
                onCommit(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
            }
        }
        let logger = logger
        do {
            return try database.blocking(timeout: timeout) { client in
                try await client.withTransaction(logger: logger) { connection in
                    try await connection.all(
                        "SELECT pg_advisory_xact_lock(\(PostgresSchema.catalogueWriteLock))",
                        logger: logger
                    )
                    return try await body(connection)
                }
            }
        } catch {
            throw logged(error, "store write failed")
        }
    }

    private func read<T: Sendable>(
        _ body: @escaping @Sendable (PostgresClient) async throws -> T
    ) throws(StoreError)
        -> T
    {
        do {
            return try database.blocking(body)
        } catch {
            throw logged(error, "store read failed")
        }
    }

    /// Logs a failure that is not the caller's (a precondition or conflict is).
    private func logged(_ error: StoreError, _ message: Logger.Message) -> StoreError {
        switch error {
        case .database(let text):
            logger.error(message, metadata: ["error": "\(text)", "store.url": "\(location)"])
        case .unavailable, .busy, .notFound, .deleted, .alreadyExists, .stale, .noSuchRevision, .conflicts:
            break
        }
        return error
    }

    /// Runs `body`, which parses stored documents; a failure means a damaged row.
    private static func parsing<T>(_ body: () throws -> T) throws(StoreError) -> T {
        do {
            return try body()
        } catch let error as StoreError {
            throw error
        } catch {
            throw .database("a stored document cannot be read: \(error)")
        }
    }

    private static func count(_ client: PostgresClient, _ query: PostgresQuery, logger: Logger) async throws -> Int {
        var total = 0
        for try await value in try await client.query(query, logger: logger).decode(Int.self) { total = value }
        return total
    }

    /// The current rows of every live document of `kind`, in id order (bytewise, as SQLite).
    private func liveRows(kind: Kind) throws(StoreError) -> [CurrentRow] {
        let logger = logger
        return try read { client in
            var rows: [CurrentRow] = []
            for try await (revision, document, updatedAt, updatedBy) in try await client.query(
                """
                SELECT revision, document, updated_at, updated_by FROM template
                WHERE deleted = false AND kind = \(kind.rawValue) ORDER BY id COLLATE "C"
                """,
                logger: logger
            ).decode((Int, String, String, String).self) {
                rows.append(
                    CurrentRow(
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

    private static func row(
        _ connection: PostgresConnection,
        id: String,
        kind: Kind,
        logger: Logger
    ) async throws -> CurrentRow? {
        let rows = try await connection.all(
            """
            SELECT revision, deleted, document, updated_at, updated_by FROM template
            WHERE id = \(id) AND kind = \(kind.rawValue)
            """,
            logger: logger
        )
        guard let first = rows.first else { return nil }
        let (revision, deleted, document, updatedAt, updatedBy) = try first.decode(
            (Int, Bool, String, String, String).self
        )
        return CurrentRow(
            revision: revision,
            deleted: deleted,
            document: document,
            updatedAt: updatedAt,
            updatedBy: updatedBy
        )
    }

    private func revisions(
        documentID id: String,
        kind: Kind,
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
            for try await (id, revision, action, changed, createdAt, createdBy) in try await client.query(
                """
                SELECT template_id, revision, action, changed_fields, created_at, created_by FROM revision
                WHERE template_id = \(id) ORDER BY revision DESC LIMIT \(pageSize) OFFSET \((page - 1) * pageSize)
                """,
                logger: logger
            ).decode((String, Int, String, String, String, String).self) {
                rows.append(RevisionRow(id, revision, action, nil, changed, createdAt, createdBy))
            }
            return (total, rows)
        }
        guard let (total, rows) = result else { throw .notFound(id: name) }
        let items = try Self.parsing { try rows.map { try $0.record(withDocument: false) } }
        return Page(items: items, page: page, pageSize: pageSize, total: total)
    }

    private func revision(
        documentID id: String,
        kind: Kind,
        reportedAs name: String,
        number: Int
    ) throws(StoreError) -> RevisionRecord {
        let logger = logger
        let found: (exists: Bool, row: RevisionRow?) = try read { client in
            var row: RevisionRow?
            for try await (id, revision, action, document, changed, createdAt, createdBy) in try await client.query(
                """
                SELECT r.template_id, r.revision, r.action, r.document, r.changed_fields, r.created_at, r.created_by
                FROM revision r JOIN template t ON t.id = r.template_id
                WHERE r.template_id = \(id) AND r.revision = \(number) AND t.kind = \(kind.rawValue)
                """,
                logger: logger
            ).decode((String, Int, String, String?, String, String, String).self) {
                row = RevisionRow(id, revision, action, document, changed, createdAt, createdBy)
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
        return try Self.parsing { try row.record(withDocument: true) }
    }

    /// Ids and aliases are unique across live templates.
    private static func checkConflicts(
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
    private static func apply(
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

    /// Writes `policy` as the current state at `revision`, appends the revision and announces it.
    private static func applyPolicy(
        _ connection: PostgresConnection,
        _ policy: AppPolicy,
        previous: AppPolicy?,
        revision: Int,
        action: RevisionRecord.Action,
        actor: String,
        logger: Logger
    ) async throws -> StoredAppPolicy {
        let id = StoredDocuments.appPolicyID(policy.platform)
        let document = StoredDocuments.text(of: policy.document)
        let now = Timestamp.now()
        try await connection.all(
            """
            INSERT INTO template (id, kind, revision, deleted, document, edited, updated_at, updated_by)
            VALUES (\(id), 'app-policy', \(revision), false, \(document), true, \(now), \(actor))
            ON CONFLICT (id) DO UPDATE SET revision = excluded.revision, document = excluded.document,
                updated_at = excluded.updated_at, updated_by = excluded.updated_by
            """,
            logger: logger
        )
        let changed = StoredDocuments.text(
            of:
                .array(AppPolicy.changedFields(from: previous, to: policy).map(JSONValue.string))
        )
        try await connection.all(
            """
            INSERT INTO revision (template_id, revision, action, document, changed_fields, created_at, created_by)
            VALUES (\(id), \(revision), \(action.rawValue), \(document), \(changed), \(now), \(actor))
            """,
            logger: logger
        )
        try await announce(connection, documentID: id, revision: revision, logger: logger)
        return StoredAppPolicy(policy: policy, revision: revision, updatedAt: now, updatedBy: actor)
    }

    /// Appends the change to the feed and notifies the listeners; both happen at COMMIT.
    private static func announce(
        _ connection: PostgresConnection,
        documentID: String,
        revision: Int,
        logger: Logger
    ) async throws {
        try await connection.all(
            """
            WITH change AS (
                INSERT INTO catalogue_change (document_id, revision) VALUES (\(documentID), \(revision)) RETURNING seq)
            SELECT pg_notify(\(catalogueChannel), seq::text) FROM change
            """,
            logger: logger
        )
    }
}
