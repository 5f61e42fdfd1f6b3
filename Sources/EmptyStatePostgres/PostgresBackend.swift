import Dispatch
import EmptyStateStore
import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle
import Synchronization
import _ConnectionPoolModule

/// One PostgreSQL database shared by every replica: the connection pool, the bridge from the
/// HTTP server's worker threads into it, and whether the database is reachable right now.
///
/// The stores' methods are synchronous (the HTTP layer runs handlers on its own worker threads),
/// and postgres-nio is async: `blocking(_:)` runs the async work as a task and waits for it on
/// the calling thread, which must never be a thread of Swift concurrency's cooperative pool (two
/// blocked callers there starve it; see `../shared/notes/postgres.md`).
///
/// While the database is down, postgres-nio's pool does not fail queries: it retries the
/// connection with backoff and the query waits. So every call is bounded by `wait` and fails
/// with `StoreError.unavailable`, and once an outage is known (the change listener, which holds
/// a connection at all times, lost it) calls fail at once until the listener is connected again.
/// A write that gives up is never committed later (its `CommitPoint`); one whose COMMIT was
/// already sent when the bound passed answers `StoreError.outcomeUnknown` instead, because it
/// may have committed.
/// Only the listener sets reachability: a call that times out (a slow query) or fails on one
/// pooled connection says nothing about the others.
package final class PostgresBackend: Service, Sendable {
    package let client: PostgresClient
    /// The URL without its password, for logs and errors.
    package let location: String
    /// The longest a store call waits for the database before answering `unavailable`.
    package let wait: Duration
    package let logger: Logger
    private let reachable = Atomic<Bool>(true)

    /// - Parameters:
    ///   - url: `postgres://user:password@host:port/database`, optionally `?sslmode=…&sslrootcert=…` (see `PostgresURL`).
    ///   - maximumConnections: the pool's size (each replica's share of PostgreSQL's `max_connections`).
    ///   - searchPath: the schema(s) to use instead of `public` (tests give each a schema of its own).
    package init(
        url: PostgresURL,
        maximumConnections: Int = 10,
        wait: Duration = .seconds(5),
        searchPath: String? = nil,
        logger: Logger
    ) {
        var configuration = PostgresClient.Configuration(
            host: url.host,
            port: url.port,
            username: url.user,
            password: url.password,
            database: url.database,
            tls: url.tls
        )
        configuration.options.maximumConnections = maximumConnections
        configuration.options.connectTimeout = .seconds(3)
        // Every commit is durable before it is acknowledged, whatever the server's default (an
        // answered write or event must survive a crash); DBAs see who is connected.
        configuration.options.additionalStartupParameters = [
            ("synchronous_commit", "on"), ("application_name", "empty-state-server"),
        ]
        if let searchPath { configuration.options.additionalStartupParameters.append(("search_path", searchPath)) }
        client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        location = url.redacted
        self.wait = wait
        self.logger = logger
    }

    private let pool = Mutex<Task<Void, Never>?>(nil)

    /// Starts the connection pool, so the stores can be used before the service group runs (to
    /// migrate, import and load the catalogue at start). Call once.
    package func startPool() {
        let client = client
        pool.withLock { $0 = Task { await client.run() } }
    }

    /// Closes the pool without waiting (for tests; the service closes it through `run()`).
    package func stopPool() {
        pool.withLock { $0 }?.cancel()
    }

    /// Keeps the pool until the service group shuts down, then closes it: it is the group's
    /// first service, so it stops last, after the stores were flushed.
    package func run() async throws {
        try? await gracefulShutdown()
        guard let task = pool.withLock({ $0 }) else { return }
        task.cancel()
        await task.value
    }

    /// Whether the change listener is connected (always `true` without one, as in store tests).
    package var isReachable: Bool { reachable.load(ordering: .relaxed) }

    /// Records whether the change listener holds its connection; logs the transitions.
    package func markReachable(_ value: Bool, reason: @autoclosure () -> String = "") {
        let was = reachable.exchange(value, ordering: .relaxed)
        if was && !value {
            logger.error(
                "database unreachable: writes and event posts answer 503, reads are served from memory",
                metadata: ["store.url": "\(location)", "error": "\(reason())"]
            )
        } else if !was && value {
            logger.notice("database reachable again", metadata: ["store.url": "\(location)"])
        }
    }

    /// Runs `body`, which only reads (or whose effect its caller may repeat), against the
    /// database from a synchronous worker thread and waits for it, at most `wait` (or
    /// `timeout`).
    /// - Throws: `StoreError` thrown by `body` as it is; `.unavailable` when the database is known
    ///   to be down, cannot be reached, or does not answer in time; `.database` for other
    ///   failures (a query error: a defect, logged by the caller).
    @discardableResult
    @available(*, noasync, message: "blocks its thread: call it from worker threads only")
    package func blocking<T: Sendable>(
        timeout: Duration? = nil,
        _ body: @escaping @Sendable (PostgresClient) async throws -> T
    ) throws(StoreError) -> T {
        try blocking(timeout: timeout) { client, _ in try await body(client) }
    }

    /// Runs a write in one transaction, its COMMIT guarded by a `CommitPoint`, and waits for it
    /// as `blocking(timeout:_:)` does.
    /// - Throws: as `blocking(timeout:_:)`; `.unavailable` only when the COMMIT was not sent (the
    ///   transaction is then rolled back, whenever the stalled statement returns), and
    ///   `.outcomeUnknown` when it was sent and no answer came in time, or the connection failed
    ///   while waiting for it.
    @discardableResult
    @available(*, noasync, message: "blocks its thread: call it from worker threads only")
    package func transaction<T: Sendable>(
        timeout: Duration? = nil,
        _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) throws(StoreError) -> T {
        let logger = logger
        return try blocking(timeout: timeout) { client, commit in
            try await client.withTransaction(logger: logger) { connection in
                let value = try await body(connection)
                // postgres-nio sends COMMIT as soon as this closure returns.
                try commit.reach()
                return value
            }
        }
    }

    /// Runs `body` against the database from a synchronous worker thread and waits for it, at
    /// most `wait` (or `timeout`). A `body` that writes calls `commit.reach()` right before it
    /// sends its COMMIT (or the statement that commits itself): see `CommitPoint`.
    /// - Throws: `StoreError` thrown by `body` as it is; `.unavailable` when the database is known
    ///   to be down, cannot be reached, or does not answer in time before the commit point (the
    ///   work then never commits); `.outcomeUnknown` when the commit point was passed and no
    ///   answer came in time, or the connection failed after it; `.database` for other failures
    ///   (a query error: a defect, logged by the caller).
    @discardableResult
    @available(*, noasync, message: "blocks its thread: call it from worker threads only")
    package func blocking<T: Sendable>(
        timeout: Duration? = nil,
        _ body: @escaping @Sendable (PostgresClient, CommitPoint) async throws -> T
    ) throws(StoreError) -> T {
        guard isReachable else {
            throw .unavailable("the database at \(location) is unreachable (waiting for it to come back)")
        }
        let done = DispatchSemaphore(value: 0)
        let box = ResultBox<T>()
        let commit = CommitPoint()
        let client = client
        let logger = logger
        let location = location
        let task = Task {
            let result: Result<T, any Error>
            do {
                result = .success(try await body(client, commit))
            } catch {
                result = .failure(error)
            }
            box.set(result)
            Self.ended(commit, failure: result.error, location: location, logger: logger)
            done.signal()
        }
        let limit = timeout ?? wait
        try waitOrGiveUp(done, until: Self.deadline(after: limit), limit: limit, commit: commit, task: task)
        switch box.take() {
        case .success(let value): return value
        case .failure(let error): throw Self.storeError(error, after: commit)
        case nil: throw .database("the database call ended without a result")
        }
    }

    /// The moment `limit` from now, for a semaphore's wait.
    static func deadline(after limit: Duration) -> DispatchTime {
        .now()
            + .nanoseconds(Int(limit.components.seconds * 1_000_000_000 + limit.components.attoseconds / 1_000_000_000))
    }

    /// Waits for work that signals `done` when it ends, until `deadline`; then decides with the
    /// work's commit point what its caller is told.
    /// - Throws: `.unavailable` when the work had not reached its commit point (the task is
    ///   cancelled: that ends a wait for a pooled connection, and postgres-nio ends the row
    ///   sequences the work reads from then on; a statement already sent runs on, and the work
    ///   throws by its commit point at the latest, and rolls back); `.outcomeUnknown` when it had.
    func waitOrGiveUp(
        _ done: DispatchSemaphore,
        until deadline: DispatchTime,
        limit: Duration,
        commit: CommitPoint,
        task: Task<Void, Never>
    ) throws(StoreError) {
        guard done.wait(timeout: deadline) == .timedOut else { return }
        switch commit.giveUp() {
        case .abandoned:
            task.cancel()
            throw Self.abandoned(location: location, limit: limit)
        case .outcomeUnknown:
            throw .outcomeUnknown(
                "the database at \(location) did not confirm the commit within \(limit); it may or may not have taken effect"
            )
        case .finished:
            done.wait()  // it finished just now: its result is set (before `finish()`)
        }
    }

    /// What the caller of work abandoned before its commit point is told.
    static func abandoned(location: String, limit: Duration) -> StoreError {
        .unavailable(
            "the database at \(location) did not answer within \(limit); the call was abandoned before any commit"
        )
    }

    /// Called by work that ended (`failure`: how, `nil` when it succeeded): when its waiter had
    /// given up after the commit point, telling its caller the outcome is unknown, the log says
    /// what the outcome was.
    static func ended(_ commit: CommitPoint, failure: (any Error)?, location: String, logger: Logger) {
        guard commit.finish() else { return }
        var metadata: Logger.Metadata = ["store.url": "\(location)", "store.outcome": "committed"]
        if let failure {
            metadata["store.outcome"] = "not committed"
            metadata["error"] = "\(String(reflecting: failure))"
        }
        logger.warning("a write whose caller was told its outcome is unknown has ended", metadata: metadata)
    }

    /// The store error for work that failed: as `storeError(_:)`, but a connection that failed
    /// after the COMMIT (or self-committing statement) was sent leaves the outcome unknown.
    static func storeError(_ error: any Error, after commit: CommitPoint) -> StoreError {
        let mapped = storeError(error)
        if case .unavailable(let reason) = mapped, commit.isReached {
            return .outcomeUnknown("the connection failed after the commit was sent: \(reason)")
        }
        return mapped
    }

    /// The store error for a failure of postgres-nio: `.unavailable` when the database could not
    /// be reached or went away, `.database` (with the whole, unredacted error) otherwise.
    package static func storeError(_ error: any Error) -> StoreError {
        if let store = error as? StoreError { return store }
        if let transaction = error as? PostgresTransactionError {
            // A failure inside the transaction is the caller's (a precondition); otherwise the
            // failure of BEGIN, COMMIT or ROLLBACK.
            if let inner = transaction.closureError ?? transaction.beginError ?? transaction.commitError {
                return storeError(inner)
            }
        }
        if error is CommitPoint.Abandoned {
            // Its waiter gave up (and answered) first; kept for completeness.
            return .unavailable("the call was abandoned before its commit")
        }
        if error is ConnectionPoolError || error is CancellationError {
            return .unavailable(String(reflecting: error))
        }
        if let psql = error as? PSQLError {
            switch psql.code {
            case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown,
                .queryCancelled, .poolClosed:
                return .unavailable(String(reflecting: error))
            default:
                // 57P01 (admin shutdown), 57P02, 57P03 (cannot connect now), 08xxx (connection).
                if let state = psql.serverInfo?[.sqlState], state.hasPrefix("57P") || state.hasPrefix("08") {
                    return .unavailable(String(reflecting: error))
                }
            }
        }
        return .database(String(reflecting: error))
    }

    /// The SQLSTATE of a server error, when `error` is one.
    package static func sqlState(_ error: any Error) -> String? {
        (error as? PSQLError)?.serverInfo?[.sqlState]
    }
}

/// The result a bridged task leaves for the waiting thread.
final class ResultBox<T: Sendable>: Sendable {
    private let value = Mutex<Result<T, any Error>?>(nil)

    func set(_ result: Result<T, any Error>) { value.withLock { $0 = result } }

    func take() -> Result<T, any Error>? { value.withLock { $0 } }
}

extension PostgresConnection {
    /// Runs `query` and reads all its rows: errors of row-returning statements only surface when
    /// the rows are read, so a result is never dropped unread.
    @discardableResult
    package func all(_ query: PostgresQuery, logger: Logger) async throws -> [PostgresRow] {
        try await self.query(query, logger: logger).collect()
    }
}

extension PostgresClient {
    /// `PostgresConnection.all(_:logger:)` on a pooled connection.
    @discardableResult
    package func all(_ query: PostgresQuery, logger: Logger) async throws -> [PostgresRow] {
        try await self.query(query, logger: logger).collect()
    }
}

extension Result {
    /// The failure, `nil` for a success.
    var error: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
