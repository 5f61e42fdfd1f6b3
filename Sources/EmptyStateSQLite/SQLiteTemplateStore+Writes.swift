import EmptyStateCore
import EmptyStateStore
import GRDB

/// Catalogue writes on SQLite: one GRDB write transaction (the writer lock serializes them; WAL
/// with `synchronous=FULL` makes each durable before it returns) running the edits of
/// `CatalogueWrite` over `SQLiteCatalogueTransaction`, which holds this backend's SQL.
extension SQLiteTemplateStore {
    package func write<T>(_ edits: (CatalogueWrite) throws -> T) throws -> T {
        try write(cacheKiB: nil, edits)
    }

    /// The page cache of the writer connection while the built-ins are imported. A new store
    /// takes 8 KB a template (the document twice, in `template` and `revision`, and the strings),
    /// 80 MB at 10,000 templates; with SQLite's default cache of 2 MB, the transaction spilled
    /// pages to the WAL and read them back all along (78,000 writes and 53,000 reads for one
    /// import, most of its time). The cache only grows as far as the pages written, and is given
    /// back when the import is done.
    static let importCacheKiB = 256 * 1024

    /// `write(_:)`, with the writer's page cache at `cacheKiB` (SQLite's default, 2,000 KiB,
    /// restored after) when given.
    private func write<T>(cacheKiB: Int?, _ edits: (CatalogueWrite) throws -> T) throws -> T {
        do {
            return try CommitTimer.timed(onCommit) {
                try pool.writeWithoutTransaction { db in
                    if let cacheKiB { try db.execute(sql: "PRAGMA cache_size = -\(cacheKiB)") }
                    defer {
                        if cacheKiB != nil {
                            try? db.execute(sql: "PRAGMA cache_size = -2000")
                            try? db.execute(sql: "PRAGMA shrink_memory")
                        }
                    }
                    var value: T?
                    try db.inTransaction {
                        value = try CatalogueWrite.run(on: SQLiteCatalogueTransaction(db: db, bell: outboxBell), edits)
                        return .commit
                    }
                    guard let value else { throw StoreError.database("the transaction ended without a value") }
                    return value
                }
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
        let release = BuiltinImport.Release(templates)
        let imported = try StoreError.only {
            try write(cacheKiB: Self.importCacheKiB) { try $0.importBuiltins(release, logger: logger) }
        }
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
