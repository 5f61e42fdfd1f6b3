import EmptyStateCore
import EmptyStateStore
import GRDB
import Logging
import Synchronization

/// The localization store on SQLite: templates, their strings per locale and key, and every
/// revision, in SQLite (WAL, `synchronous=FULL`) so an acknowledged write survives a crash or
/// `kill -9`.
///
/// Each change is one transaction that writes the new current state and an immutable revision.
/// Reads use GRDB's pool of reader connections and never wait for a writer. The schema is in
/// `SQLiteTemplateStore+Migrations.swift`, the import of built-ins in `+Import`, writes in `+Writes`,
/// reads, paging and the audit trail in `+Reads`, app policies in `+AppPolicies`; the rules of a
/// write and how documents are kept as text are shared with the other backend (`CatalogueRules`,
/// `RevisionWrite`, `StoredDocuments`, `BuiltinImport`).
package final class SQLiteTemplateStore: Sendable {
    let pool: DatabasePool
    let logger: Logger
    package let path: String
    /// Called with the duration of each write transaction in seconds, whatever its outcome (for metrics).
    private let onCommit: (@Sendable (Double) -> Void)?
    /// The built-ins `importBuiltins` just serialized, by id, for the next `liveTemplates()`.
    let justImported = Mutex<[String: (document: String, template: Template)]>([:])

    /// Opens (creating and migrating when needed) the database at `path`.
    /// - Throws: `StoreError.database` when the file cannot be opened or migrated.
    package init(path: String, logger: Logger, onCommit: (@Sendable (Double) -> Void)? = nil) throws(StoreError) {
        self.path = path
        self.logger = logger
        self.onCommit = onCommit
        pool = try DurablePool.open(path: path, migrator: Self.migrator, foreignKeys: true)
    }

    /// The writer connection's `PRAGMA synchronous` (2 = FULL: every commit is fsync'd).
    package func synchronousMode() throws -> Int {
        try pool.write { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") ?? -1 }
    }

    // MARK: - Transactions

    /// One write transaction; a failure that is not a `StoreError` is logged and mapped by
    /// `StoreError.from(_:)`.
    func write<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try timedWrite(body)
        } catch let error as StoreError {
            throw error
        } catch {
            logger.error("store write failed", metadata: ["error": "\(error)", "store.path": "\(path)"])
            throw .from(error)
        }
    }

    /// One write transaction, its duration reported to `onCommit`.
    func timedWrite<T>(_ body: (Database) throws -> T) throws -> T {
        try CommitTimer.timed(onCommit) { try pool.write(body) }
    }

    /// One read on a reader connection (never waits for the writer).
    func read<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try pool.read(body)
        } catch let error as StoreError {
            throw error
        } catch {
            logger.error("store read failed", metadata: ["error": "\(error)", "store.path": "\(path)"])
            throw .from(error)
        }
    }
}
