import EmptyStateCore
import EmptyStateStore
import GRDB

/// Seeding from `config/templates/`, by the rule of `BuiltinImport.decide(current:document:)`.
extension SQLiteTemplateStore {
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
                let document = StoredDocuments.text(of: template.document)
                imported[template.id] = (document, template)
                let row = try Row.fetchOne(
                    db,
                    sql: "SELECT revision, deleted, document, edited FROM template WHERE id = ?",
                    arguments: [template.id]
                )
                let current = row.map {
                    BuiltinImport.Current(
                        document: $0["document"],
                        edited: ($0["edited"] as Int) == 1,
                        deleted: ($0["deleted"] as Int) == 1
                    )
                }
                let revision = row.map { $0["revision"] as Int } ?? 0
                switch BuiltinImport.decide(current: current, document: document) {
                case .unchanged:
                    continue
                case .keepOpsVersion:
                    logger.notice(
                        "built-in template changed in this release but ops edited it; keeping their version",
                        metadata: ["template.id": "\(template.id)", "template.revision": "\(revision)"]
                    )
                case .update:
                    let previous = try current.map { try StoredDocuments.template(fromText: $0.document) }
                    try apply(
                        db,
                        template,
                        BuiltinImport.write(template, previous: previous, revision: revision + 1, now: now),
                        edited: false
                    )
                    updated += 1
                case .add:
                    try apply(
                        db,
                        template,
                        BuiltinImport.write(template, previous: nil, revision: 1, now: now),
                        edited: false
                    )
                    added += 1
                }
            }
            return (added, updated)
        }
    }
}
