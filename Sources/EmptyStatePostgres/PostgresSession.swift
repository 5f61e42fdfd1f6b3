import Dispatch
import EmptyStateStore
import Logging
import PostgresNIO

/// A transaction on one pooled connection, driven from a synchronous worker thread one step at a
/// time: the thread decides (the catalogue's writes are synchronous code, `CatalogueWrite`), a
/// task holding the connection runs each step's statements, and the thread waits for each
/// result. `PostgresBackend.session(timeout:_:)` opens one, and commits it once the caller's work
/// returns.
///
/// Every wait ends at the transaction's deadline (its wait bound from the start), with the
/// guarantees of `PostgresBackend.transaction(timeout:_:)`: a transaction abandoned before its
/// COMMIT never commits (the task is cancelled and rolls back at its `CommitPoint` at the latest)
/// and its caller is told `.unavailable`; one whose COMMIT was sent but not confirmed in time is
/// `.outcomeUnknown`.
///
/// Not `Sendable`: it belongs to the thread that drives it.
package final class PostgresSession {
    /// One unit of work for the connection's task.
    private enum Command: Sendable {
        /// Runs on the connection; hands its result to the waiting thread itself.
        case step(@Sendable (PostgresConnection) async -> Void)
        /// Ends the work: the transaction commits.
        case commit
    }

    package let logger: Logger
    private let commands: AsyncStream<Command>.Continuation
    private let commitPoint = CommitPoint()
    /// Signalled when the task has ended (committed, rolled back or failed).
    private let ended = DispatchSemaphore(value: 0)
    /// How the task ended.
    private let outcome = ResultBox<Void>()
    private let task: Task<Void, Never>
    private let backend: PostgresBackend
    private let limit: Duration
    private let deadline: DispatchTime
    /// Set once this thread gave up: the transaction is over, whatever the task still does.
    private var abandoned = false

    /// Starts the task: it leases a connection of `backend`, sends BEGIN and waits for steps.
    init(_ backend: PostgresBackend, limit: Duration) {
        let (stream, commands) = AsyncStream<Command>.makeStream()
        self.backend = backend
        self.limit = limit
        self.commands = commands
        deadline = PostgresBackend.deadline(after: limit)
        logger = backend.logger
        let (client, location, logger) = (backend.client, backend.location, backend.logger)
        let (commit, outcome, ended) = (commitPoint, outcome, ended)
        task = Task {
            let result: Result<Void, any Error>
            do {
                try await client.withTransaction(logger: logger) { connection in
                    for await command in stream {
                        switch command {
                        case .step(let run):
                            await run(connection)
                        case .commit:
                            // postgres-nio sends COMMIT as soon as this closure returns.
                            try commit.reach()
                            return
                        }
                    }
                    // The steps ended without a commit (the caller threw, or gave up): roll back.
                    throw CancellationError()
                }
                result = .success(())
            } catch {
                result = .failure(error)
            }
            outcome.set(result)
            PostgresBackend.ended(commit, failure: result.error, location: location, logger: logger)
            ended.signal()
        }
    }

    /// Runs `step` on the transaction's connection and waits for its result.
    /// - Throws: `.unavailable` when the deadline passed first (the transaction is then rolled
    ///   back); the step's failure mapped by `PostgresBackend.storeError(_:)` otherwise (a failed
    ///   statement leaves the transaction to be rolled back: throw it on).
    @discardableResult
    package func run<T: Sendable>(
        _ step: @escaping @Sendable (PostgresConnection) async throws -> T
    ) throws(StoreError) -> T {
        if abandoned { throw abandonedError }
        let done = DispatchSemaphore(value: 0)
        let result = ResultBox<T>()
        commands.yield(
            .step { connection in
                do {
                    result.set(.success(try await step(connection)))
                } catch {
                    result.set(.failure(error))
                }
                done.signal()
            }
        )
        if done.wait(timeout: deadline) == .timedOut {
            abandon()
            throw abandonedError
        }
        switch result.take() {
        case .success(let value): return value
        case .failure(let error): throw PostgresBackend.storeError(error)
        case nil: throw .database("a transaction step ended without a result")
        }
    }

    /// Sends COMMIT and waits for its answer.
    /// - Throws: `.unavailable` when the transaction was abandoned before it; `.outcomeUnknown`
    ///   when the COMMIT was sent and no answer came in time, or the connection failed after it;
    ///   the failure of COMMIT otherwise.
    func commit() throws(StoreError) {
        if abandoned { throw abandonedError }
        commands.yield(.commit)
        commands.finish()
        try backend.waitOrGiveUp(ended, until: deadline, limit: limit, commit: commitPoint, task: task)
        if let error = outcome.take()?.error { throw PostgresBackend.storeError(error, after: commitPoint) }
    }

    /// Ends the work without a commit, and waits (as far as the deadline) for the rollback, so the
    /// next transaction finds the locks free.
    func rollBack() {
        commands.finish()
        if !abandoned, ended.wait(timeout: deadline) == .timedOut { abandon() }
    }

    /// Gives up on the transaction before its COMMIT: the task is cancelled, throws at its commit
    /// point at the latest, and rolls back.
    private func abandon() {
        guard !abandoned else { return }
        abandoned = true
        commands.finish()
        if commitPoint.giveUp() == .abandoned { task.cancel() }
    }

    private var abandonedError: StoreError { PostgresBackend.abandoned(location: backend.location, limit: limit) }
}

extension PostgresBackend {
    /// Runs `work` on this thread as one transaction on one pooled connection, whose statements it
    /// sends step by step through the `PostgresSession` it is given; commits when `work` returns,
    /// rolls back when it throws. The whole transaction, COMMIT included, is bounded by `wait` (or
    /// `timeout`).
    /// - Throws: what `work` throws, as it is; `StoreError` for the transaction's own failures.
    @available(*, noasync, message: "blocks its thread: call it from worker threads only")
    package func session<T>(timeout: Duration? = nil, _ work: (PostgresSession) throws -> T) throws -> T {
        guard isReachable else {
            throw StoreError.unavailable("the database at \(location) is unreachable (waiting for it to come back)")
        }
        let session = PostgresSession(self, limit: timeout ?? wait)
        let value: T
        do {
            value = try work(session)
        } catch {
            session.rollBack()
            throw error
        }
        try session.commit()
        return value
    }
}
