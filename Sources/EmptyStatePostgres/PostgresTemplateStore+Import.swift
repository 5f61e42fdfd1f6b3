import EmptyStateCore
import EmptyStateStore
import Logging
import PostgresNIO

/// Seeding from `config/templates/`, by the rule of `BuiltinImport.decide(current:document:)`.
extension PostgresTemplateStore {
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
                let write = BuiltinImport.write(template, previous: previous, revision: revision, now: now)
                try await Self.apply(connection, template, write, edited: false, logger: logger)
            }
            return (added, updated)
        }
    }
}
