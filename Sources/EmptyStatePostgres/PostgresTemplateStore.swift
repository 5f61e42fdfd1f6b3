import EmptyStateStore
import Logging
import PostgresNIO

/// The localization store in PostgreSQL, shared by replicas: the same tables and rules as the
/// `SQLiteTemplateStore`, plus a change feed.
///
/// Every catalogue write is one transaction that first takes a transaction advisory lock
/// (`PostgresSchema.catalogueWriteLock`), so writes from all replicas are serialized: two
/// `If-Match` writes of the same revision sent to two replicas have exactly one winner, aliases
/// stay unique across the catalogue, and the change feed's numbers follow commit order. The
/// transaction also appends a `catalogue_change` row per document it wrote and `pg_notify`s the
/// newest number on `catalogueChannel`; the other replicas' `CatalogueChangeListener` loads the
/// changes and publishes them. Commits use `synchronous_commit = on`, so an answered write
/// survives a crash of the replica and of PostgreSQL.
///
/// Writes and the import of built-ins are in `+Writes` (what a write does is `CatalogueWrite`'s,
/// shared with the other backend; this backend's SQL for it is `PostgresCatalogueTransaction`,
/// sent through a `PostgresSession`), reads, paging and the audit trail in `+Reads`, app policies
/// and experiments in `+AppPolicies` and `+Experiments`, the change feed in `+ChangeFeed`, and the
/// rows as read with the SQL helpers they share in `+Rows`; the schema is `PostgresSchema`.
package final class PostgresTemplateStore: TemplateStoring {
    package let database: PostgresBackend
    let logger: Logger
    /// Called with the duration of each write transaction in seconds, whatever its outcome.
    let onCommit: (@Sendable (Double) -> Void)?
    /// Rung after each catalogue write that committed, and when a redelivery or ping was queued
    /// (`ringOnQueued`): this replica's dispatcher looks for due deliveries at once.
    let outboxBell = OutboxBell()

    package init(database: PostgresBackend, logger: Logger, onCommit: (@Sendable (Double) -> Void)? = nil) {
        self.database = database
        self.logger = logger
        self.onCommit = onCommit
    }

    package var location: String { database.location }

    // MARK: - Transactions

    /// One catalogue transaction: serialized with every other replica's catalogue writes by a
    /// transaction advisory lock, its edits decided on this thread (`CatalogueWrite`) and sent
    /// step by step (`PostgresSession`, `PostgresCatalogueTransaction`). A write that times out
    /// before its COMMIT is rolled back (`.unavailable`); one that times out after it answers
    /// `.outcomeUnknown`.
    /// - Throws: what `edits` throws, as it is; `StoreError` for the transaction's failures.
    func catalogueWrite<T>(timeout: Duration? = nil, _ edits: (CatalogueWrite) throws -> T) throws -> T {
        let logger = logger
        do {
            // Any catalogue write may have queued webhook deliveries (`record`): the dispatcher
            // looks once the write has ended (committed or not: a claim that finds nothing costs
            // one indexed query).
            defer { outboxBell.ring() }
            return try CommitTimer.timed(onCommit) {
                try database.session(timeout: timeout) { session in
                    try session.run { connection in
                        _ = try await connection.all(
                            "SELECT pg_advisory_xact_lock(\(PostgresSchema.catalogueWriteLock))",
                            logger: logger
                        )
                    }
                    return try CatalogueWrite.run(on: PostgresCatalogueTransaction(session: session), edits)
                }
            }
        } catch let error as StoreError {
            throw logged(error, "store write failed")
        }
    }

    func read<T: Sendable>(
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
    func logged(_ error: StoreError, _ message: Logger.Message) -> StoreError {
        switch error {
        case .database(let text):
            logger.error(message, metadata: ["error": "\(text)", "store.url": "\(location)"])
        case .outcomeUnknown(let text):
            logger.error(message, metadata: ["error": "\(text)", "store.url": "\(location)"])
        case .unavailable, .busy, .notFound, .deleted, .alreadyExists, .stale, .noSuchRevision, .conflicts,
            .reviewRequired:
            break
        }
        return error
    }
}
