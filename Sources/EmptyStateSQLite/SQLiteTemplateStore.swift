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
/// `SQLiteTemplateStore+Migrations.swift`, writes and the import of built-ins in `+Writes` (what a
/// write does is `CatalogueWrite`'s, shared with the other backend; this backend's SQL for it is
/// `SQLiteCatalogueTransaction`), reads, paging and the audit trail in `+Reads`, app policies and
/// experiments in `+AppPolicies` and `+Experiments`, console sessions in `+Sessions`, webhooks and
/// their outbox in `+Webhooks`.
package final class SQLiteTemplateStore: Sendable {
    let pool: DatabasePool
    let logger: Logger
    package let path: String
    /// Called with the duration of each write transaction in seconds, whatever its outcome (for metrics).
    let onCommit: (@Sendable (Double) -> Void)?
    /// Rung when a commit queued webhook deliveries (`ringOnQueued`).
    let outboxBell = OutboxBell()
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

    /// One write transaction of rows outside the catalogue (console sessions); a failure is
    /// logged and mapped by `StoreError.from(_:)`. Catalogue writes go through `write(_:)`.
    func transaction<T>(_ body: (Database) throws -> T) throws(StoreError) -> T {
        do {
            return try CommitTimer.timed(onCommit) { try pool.write(body) }
        } catch let error as StoreError {
            throw error
        } catch {
            logger.error("store write failed", metadata: ["error": "\(error)", "store.path": "\(path)"])
            throw .from(error)
        }
    }

    /// Logs a failure of the database (a precondition or conflict is the caller's, and not logged).
    func logged(_ error: StoreError, _ message: Logger.Message) -> StoreError {
        if case .database(let text) = error {
            logger.error(message, metadata: ["error": "\(text)", "store.path": "\(path)"])
        }
        return error
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
