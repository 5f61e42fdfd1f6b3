import EmptyStateCore
import EmptyStateStore
import GRDB

/// Catalogue writes on SQLite: one GRDB write transaction (the writer lock serializes them; WAL
/// with `synchronous=FULL` makes each durable before it returns) running the edits of
/// `CatalogueWrite` over `SQLiteCatalogueTransaction`, which holds this backend's SQL.
extension SQLiteTemplateStore {
    package func write<T>(_ edits: (CatalogueWrite) throws -> T) throws -> T {
        do {
            return try CommitTimer.timed(onCommit) {
                try pool.write { db in try CatalogueWrite.run(on: SQLiteCatalogueTransaction(db: db), edits) }
            }
        } catch let error as StoreError {
            throw logged(error, "store write failed")
        } catch let error as DatabaseError {
            // BEGIN or COMMIT (the transaction's statements map their own failures).
            throw logged(.from(error), "store write failed")
        }
        // Any other error is the edits' own (a validation failure of `updateStrings`'s `build`):
        // nothing was written, and it goes to the caller as it is.
    }

    /// Imports the built-in templates (`CatalogueWrite.importBuiltins`) in one transaction.
    /// - Returns: how many templates were added and updated.
    @discardableResult
    package func importBuiltins(_ templates: [Template]) throws(StoreError) -> (added: Int, updated: Int) {
        let imported = try StoreError.only { try write { try $0.importBuiltins(templates, logger: logger) } }
        justImported.withLock { $0 = imported.documents }
        return (imported.added, imported.updated)
    }

    /// Throws `.conflicts` when `template`'s id or aliases clash with other live templates,
    /// read on a reader connection as a write would read them; writes nothing.
    package func checkConflicts(_ template: Template) throws(StoreError) {
        try read { db in
            try CatalogueWrite.run(on: SQLiteCatalogueTransaction(db: db)) { edits in try edits.checkConflicts(template)
            }
        }
    }
}
