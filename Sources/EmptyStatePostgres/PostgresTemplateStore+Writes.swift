import EmptyStateCore
import EmptyStateStore
import Logging
import PostgresNIO

/// Catalogue writes on PostgreSQL: one transaction under the catalogue write lock
/// (`catalogueWrite`) running the edits of `CatalogueWrite` over `PostgresCatalogueTransaction`,
/// which holds this backend's SQL and announces every change on the feed at COMMIT.
extension PostgresTemplateStore {
    package func write<T>(_ edits: (CatalogueWrite) throws -> T) throws -> T {
        try catalogueWrite(edits)
    }

    /// Imports the built-in templates (`CatalogueWrite.importBuiltins`) in one transaction.
    /// Several replicas may start at once: the write lock makes them take turns, and the later
    /// ones find every document current.
    @discardableResult
    package func importBuiltins(_ templates: [Template]) throws(StoreError) -> (added: Int, updated: Int) {
        let release = BuiltinImport.Release(templates)
        let imported = try StoreError.only {
            try catalogueWrite(timeout: .seconds(60)) { try $0.importBuiltins(release, logger: logger) }
        }
        return (imported.added, imported.updated)
    }

    /// Throws `.conflicts` when `template`'s id or aliases clash with other live templates, read
    /// as a write would read them (without its lock); writes nothing.
    package func checkConflicts(_ template: Template) throws(StoreError) {
        try StoreError.only {
            try database.session { session in
                try CatalogueWrite.run(on: PostgresCatalogueTransaction(session: session)) { edits in
                    try edits.checkConflicts(template)
                }
            }
        }
    }
}
