import EmptyStateCore
import Logging

/// Seeding from `config/templates/`, by the rule of `BuiltinImport.decide(current:document:)`.
extension CatalogueWrite {
    /// What an import did: how many templates it added and updated, and the text of every
    /// built-in as stored, by id (a backend that reads the catalogue right after need not parse
    /// a document that is one of these again).
    package struct Imported {
        package var added = 0
        package var updated = 0
        package var documents: [String: (document: String, template: Template)] = [:]
    }

    /// Imports the built-in templates: new ones are added; ones ops never edited are updated when
    /// the release changed them; ones ops edited or deleted are kept as they are (and logged).
    /// One read of every built-in's row, then one batch of writes.
    package func importBuiltins(_ release: BuiltinImport.Release, logger: Logger) throws(StoreError) -> Imported {
        let rows = try currentRows(release.templates.map(\.id), kind: .template)
        var imported = Imported()
        imported.documents.reserveCapacity(release.templates.count)
        let now = Timestamp.now()
        for (template, document) in zip(release.templates, release.texts) {
            imported.documents[template.id] = (document, template)
            let row = rows[template.id]
            let current = row.map {
                BuiltinImport.Current(document: $0.document, edited: $0.edited, deleted: $0.deleted)
            }
            switch BuiltinImport.decide(current: current, document: document) {
            case .unchanged:
                continue
            case .keepOpsVersion:
                logger.notice(
                    "built-in template changed in this release but ops edited it; keeping their version",
                    metadata: ["template.id": "\(template.id)", "template.revision": "\(row?.revision ?? 0)"]
                )
            case .add:
                let write = BuiltinImport.write(template, previous: nil, revision: 1, now: now, text: document)
                queue(template, write, replacing: nil, edited: false)
                imported.added += 1
            case .update:
                guard let row else { continue }  // `.update` is decided on a stored row
                let previous = try StoredDocuments.template(fromText: row.document)
                let write = BuiltinImport.write(
                    template,
                    previous: previous,
                    revision: row.revision + 1,
                    now: now,
                    text: document
                )
                queue(template, write, replacing: row, edited: false)
                imported.updated += 1
            }
        }
        return imported
    }
}
