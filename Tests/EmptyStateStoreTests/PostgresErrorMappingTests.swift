import Dispatch
import EmptyStatePostgres
import EmptyStateStore
import Foundation
import Logging
import NIOCore
import Synchronization
import Testing
import _ConnectionPoolModule

// postgres-nio has no public initializers for its errors: the unit tests build them with its
// own internal factories, as its connection and pool code does.
@testable import PostgresNIO

private let logger = Logger(label: "test")

/// A server error as postgres-nio makes one from PostgreSQL's ErrorResponse.
private func serverError(_ sqlState: String, _ message: String = "boom") -> PSQLError {
    PSQLError.server(.init(fields: [.sqlState: sqlState, .message: message, .severity: "ERROR"]))
}

/// A failed transaction as `withTransaction` reports it.
private func transactionError(
    begin: (any Error)? = nil,
    closure: (any Error)? = nil,
    rollback: (any Error)? = nil,
    commit: (any Error)? = nil
) -> PostgresTransactionError {
    var error = PostgresTransactionError(file: #fileID, line: #line)
    error.beginError = begin
    error.closureError = closure
    error.rollbackError = rollback
    error.commitError = commit
    return error
}

/// The case of a store error, without its message.
private enum Kind: Equatable {
    case unavailable, database, other(StoreError)

    init(_ error: StoreError) {
        switch error {
        case .unavailable: self = .unavailable
        case .database: self = .database
        default: self = .other(error)
        }
    }
}

private func kind(_ error: any Error) -> Kind { Kind(PostgresBackend.storeError(error)) }

/// `PostgresBackend.storeError`: every class of postgres-nio failure to the store error the
/// admin API and ingestion answer with (`.unavailable`: 503, send it again later; `.database`:
/// 500, a defect, logged).
@Suite("PostgresBackend.storeError: postgres-nio's failures as store errors")
struct PostgresErrorMappingTests {
    @Test("losing or not reaching the connection is unavailable")
    func connectionErrors() {
        let refused = PSQLError.connectionError(underlying: ChannelError.connectTimeout(.seconds(3)))
        #expect(kind(refused) == .unavailable)
        #expect(kind(PSQLError.serverClosedConnection(underlying: nil)) == .unavailable)
        #expect(kind(PSQLError.serverClosedConnection(underlying: ChannelError.eof)) == .unavailable)
        #expect(kind(PSQLError.clientClosedConnection(underlying: nil)) == .unavailable)
        #expect(kind(PSQLError.uncleanShutdown) == .unavailable)
    }

    @Test("the server shutting down (57P01, 57P02, 57P03) or a connection exception (08xxx) is unavailable")
    func serverGoingAway() {
        for state in ["57P01", "57P02", "57P03", "57P04", "08000", "08001", "08003", "08004", "08006", "08P01"] {
            #expect(kind(serverError(state)) == .unavailable, "SQLSTATE \(state)")
        }
    }

    @Test("a query error is a database error, with the whole unredacted error for the log")
    func queryErrors() {
        // 57014 is a statement cancelled by statement_timeout or pg_cancel_backend: not an outage.
        for state in ["42601", "42P01", "23505", "23503", "40001", "40P01", "55P03", "53300", "57014", "XX000"] {
            #expect(kind(serverError(state)) == .database, "SQLSTATE \(state)")
        }
        guard case .database(let message) = PostgresBackend.storeError(serverError("23505", "duplicate key value"))
        else {
            Issue.record("not a database error")
            return
        }
        #expect(message.contains("23505") && message.contains("duplicate key value"))
        #expect(kind(PSQLError(code: .tooManyParameters)) == .database)
        #expect(kind(PSQLError.invalidCommandTag("SELEKT 1")) == .database)
        struct SomethingElse: Error {}
        #expect(kind(SomethingElse()) == .database)
    }

    @Test("the pool's errors and a cancelled task are unavailable, as the pool hands them out")
    func poolAndCancellation() {
        #expect(kind(ConnectionPoolError.connectionCreationCircuitBreakerTripped) == .unavailable)
        #expect(kind(ConnectionPoolError.requestCancelled) == .unavailable)
        #expect(kind(ConnectionPoolError.poolShutdown) == .unavailable)
        // PostgresClient turns these two into PSQLErrors before they reach a caller.
        #expect(kind(ConnectionPoolError.requestCancelled.mapToPSQLError(lastConnectError: nil)) == .unavailable)
        #expect(kind(ConnectionPoolError.poolShutdown.mapToPSQLError(lastConnectError: nil)) == .unavailable)
        #expect(kind(PSQLError.queryCancelled) == .unavailable)
        #expect(kind(PSQLError.poolClosed) == .unavailable)
        #expect(kind(CancellationError()) == .unavailable)
        #expect(kind(CommitPoint.Abandoned()) == .unavailable)
    }

    @Test("a store error is kept as it is, also from inside a transaction")
    func storeErrors() {
        #expect(PostgresBackend.storeError(StoreError.stale(id: "a", current: 3)) == .stale(id: "a", current: 3))
        #expect(
            PostgresBackend.storeError(transactionError(closure: StoreError.notFound(id: "a"), rollback: nil))
                == .notFound(id: "a")
        )
        #expect(
            PostgresBackend.storeError(transactionError(closure: StoreError.conflicts([("/id", "taken")])))
                == .conflicts([("/id", "taken")])
        )
    }

    @Test("a failed transaction is its failing step's error: the closure's, BEGIN's or COMMIT's")
    func transactions() {
        #expect(kind(transactionError(closure: serverError("23505"))) == .database)
        #expect(kind(transactionError(closure: PSQLError.serverClosedConnection(underlying: nil))) == .unavailable)
        // The closure's failure counts, not the failure of the ROLLBACK that followed it.
        #expect(
            kind(transactionError(closure: serverError("42601"), rollback: PSQLError.uncleanShutdown)) == .database
        )
        #expect(kind(transactionError(begin: PSQLError.serverClosedConnection(underlying: nil))) == .unavailable)
        #expect(kind(transactionError(commit: serverError("57P01"))) == .unavailable)
        // A COMMIT the server refused (a serialization failure, a deferred constraint) rolled back.
        #expect(kind(transactionError(commit: serverError("40001"))) == .database)
        #expect(kind(transactionError(commit: serverError("23505"))) == .database)
        // Only the ROLLBACK failed: nothing says what went wrong before it.
        #expect(kind(transactionError(rollback: PSQLError.uncleanShutdown)) == .database)
    }
}

/// The same mapping, for errors the throwaway PostgreSQL really raises.
@Suite(
    "PostgresBackend.storeError against a real server",
    .enabled(if: StoreBackend.testDatabaseURL != nil, "needs EMPTY_STATE_TEST_DATABASE_URL")
)
struct PostgresLiveErrorTests {
    @Test("a bad query and a unique violation in a transaction are database errors")
    func queryErrors() async throws {
        try await offPool {
            let stage = try PostgresStage(fastWait: .seconds(10))
            defer { stage.stop() }
            let syntax = #expect(throws: StoreError.self) {
                try stage.fast.blocking { client in try await client.all("SELEKT 1", logger: logger) }
            }
            #expect(syntax.map { Kind($0) } == .database)
            if case .database(let message)? = syntax { #expect(message.contains("42601")) }

            try stage.sql("CREATE TABLE scratch (id int PRIMARY KEY)")
            let duplicate = #expect(throws: StoreError.self) {
                try stage.fast.transaction { connection in
                    try await connection.all("INSERT INTO scratch VALUES (1)", logger: logger)
                    try await connection.all("INSERT INTO scratch VALUES (1)", logger: logger)
                }
            }
            #expect(duplicate.map { Kind($0) } == .database)
            if case .database(let message)? = duplicate { #expect(message.contains("23505")) }
            // Rolled back: the first insert is gone too.
            let rows = try stage.slow.blocking { client in
                try await client.all("SELECT COUNT(*) FROM scratch", logger: logger).first?.decode(Int.self)
            }
            #expect(rows == 0)
        }
    }

    @Test("a connection terminated by the server (pg_terminate_backend) is unavailable")
    func terminated() async throws {
        try await offPool {
            let stage = try PostgresStage(fastWait: .seconds(10))
            defer { stage.stop() }
            let pid = Mutex<Int32?>(nil)
            let pidKnown = DispatchSemaphore(value: 0)
            let killed = DispatchSemaphore(value: 0)
            Thread {
                defer { killed.signal() }
                // Once the connection has said which backend it is, it is about to sleep in it.
                guard pidKnown.wait(timeout: .now() + 5) == .success, let target = pid.withLock({ $0 }) else { return }
                _ = try? stage.slow.blocking { client in
                    try await client.all("SELECT pg_terminate_backend(\(target))", logger: logger)
                }
            }.start()
            let started = ContinuousClock.now
            let answer = #expect(throws: StoreError.self) {
                try stage.fast.blocking { client in
                    try await client.withConnection { connection in
                        let own = try await connection.all("SELECT pg_backend_pid()", logger: logger)
                        pid.withLock { $0 = try? own.first?.decode(Int32.self) }
                        pidKnown.signal()
                        try await connection.all("SELECT pg_sleep(5)", logger: logger)
                    }
                }
            }
            try waitOrFail(killed, "killed")
            #expect(answer.map { Kind($0) } == .unavailable, "answered \(String(describing: answer))")
            // postgres-nio hands over the server's FATAL ErrorResponse: 57P01, admin shutdown.
            if case .unavailable(let message)? = answer { #expect(message.contains("57P01")) }
            // Told by the server, not by the wait bound running out.
            #expect(ContinuousClock.now - started < .seconds(5))
        }
    }

    @Test("a server that does not answer at all is unavailable once the wait bound passes")
    func noServer() async throws {
        try await offPool {
            // Nothing listens on port 1: every connection attempt is refused, and the pool retries.
            let database = PostgresBackend(
                url: try PostgresURL("postgres://empty_state:secret@127.0.0.1:1/empty_state?sslmode=disable"),
                maximumConnections: 1,
                wait: .milliseconds(800),
                logger: logger
            )
            database.startPool()
            defer { database.stopPool() }
            let answer = #expect(throws: StoreError.self) {
                try database.blocking { client in try await client.all("SELECT 1", logger: logger) }
            }
            #expect(answer.map { Kind($0) } == .unavailable, "answered \(String(describing: answer))")
        }
    }
}
