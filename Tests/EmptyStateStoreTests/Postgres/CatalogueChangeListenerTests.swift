import EmptyStatePostgres
import Foundation
import Logging
import PostgresNIO
import ServiceLifecycle
import Synchronization
import Testing

/// Counts the listener's catch-up calls, and how many ran at once; and the payloads of the
/// notifications that reached it, in order.
private final class CatchUps: Sendable {
    private let counts = Mutex<(calls: Int, running: Int, mostAtOnce: Int)>((0, 0, 0))
    private let notified = Mutex<[String]>([])
    /// How long each call takes, in seconds: slow work, so that calls asked for meanwhile would
    /// overlap if the listener let them.
    private let seconds: Double

    init(seconds: Double = 0) { self.seconds = seconds }

    var calls: Int { counts.withLock { $0.calls } }
    var mostAtOnce: Int { counts.withLock { $0.mostAtOnce } }
    var payloads: [String] { notified.withLock { $0 } }

    /// The listener's `onNotification`.
    func notification(_ payload: String) { notified.withLock { $0.append(payload) } }

    /// The listener's `catchUp`: synchronous, called on its queue.
    func callAsFunction() {
        counts.withLock {
            $0.calls += 1
            $0.running += 1
            $0.mostAtOnce = max($0.mostAtOnce, $0.running)
        }
        if seconds > 0 { Thread.sleep(forTimeInterval: seconds) }
        counts.withLock { $0.running -= 1 }
    }
}

/// A listener on a channel of its own in the test database, its backend, and a second pool for
/// what the test does to it (notify, terminate its connection).
private struct Listening {
    let channel = "test_catalogue_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
    let database: PostgresBackend
    let control: PostgresBackend
    let catchUps: CatchUps
    let listener: CatalogueChangeListener

    init<WaitClock: Clock<Duration>>(
        backstop: Duration = .seconds(3600),
        clock: WaitClock = ContinuousClock(),
        catchUpSeconds: Double = 0
    ) throws {
        let url = try #require(TestDatabase.url)
        var quiet = Logger(label: "test")
        quiet.logLevel = .critical  // the outage test's "database unreachable" is expected
        database = PostgresBackend(url: url, maximumConnections: 2, logger: quiet)
        control = PostgresBackend(url: url, maximumConnections: 1, logger: quiet)
        let catchUps = CatchUps(seconds: catchUpSeconds)
        self.catchUps = catchUps
        listener = CatalogueChangeListener(
            database: database,
            channel: channel,
            backstop: backstop,
            clock: clock,
            logger: quiet,
            onNotification: { catchUps.notification($0) },
            catchUp: { catchUps() }
        )
        database.startPool()
        control.startPool()
    }

    func stop() {
        database.stopPool()
        control.stopPool()
    }

    /// Sends a notification on `channel` (the listener's, by default) from another connection,
    /// committed before it returns. The control pool has one connection, so notifications sent
    /// one after the other reach a listener in that order (PostgreSQL delivers them in commit order).
    func notify(_ channel: String? = nil, payload: String = "test") async throws {
        try await control.client.all(
            "SELECT pg_notify(\(channel ?? self.channel), \(payload))",
            logger: control.logger
        )
    }

    /// Ends the listener's connection from the server side, as a restart or a network cut does.
    /// - Returns: how many connections were ended (the listener's only).
    func terminateListenerConnection() async throws -> Int {
        let rows = try await control.client.all(
            """
            SELECT pg_terminate_backend(pid) FROM pg_stat_activity
            WHERE pid <> pg_backend_pid() AND query LIKE '%' || \(channel) || '%'
            """,
            logger: control.logger
        )
        return rows.count
    }
}

/// Waits until `condition` holds, at most `timeout`. The bound is generous: at the start of
/// `make test` dozens of store suites migrate fresh schemas on the same PostgreSQL at once, and the
/// listener's first connection can wait behind them for more than ten seconds on two cores.
/// - Returns: whether it held.
private func eventually(
    within timeout: Duration = .seconds(30),
    _ condition: () -> Bool
) async throws -> Bool {
    let deadline = ContinuousClock.now + timeout
    while !condition() {
        if ContinuousClock.now >= deadline { return false }
        try await Task.sleep(for: .milliseconds(10))
    }
    return true
}

@Suite(
    "CatalogueChangeListener",
    .enabled(if: TestDatabase.url != nil, "needs PostgreSQL (EMPTY_STATE_TEST_DATABASE_URL)")
)
struct CatalogueChangeListenerTests {
    @Test("catches up once listening, then once per notification on its channel, and on no other")
    func notifications() async throws {
        let listening = try Listening()
        defer { listening.stop() }
        let run = Task { try await listening.listener.run() }
        defer { run.cancel() }

        // The first catch-up runs once LISTEN is in place: what was committed before is loaded.
        #expect(try await eventually { listening.catchUps.calls == 1 })
        try await listening.notify()
        #expect(try await eventually { listening.catchUps.calls == 2 })
        for _ in 0..<3 { try await listening.notify() }
        #expect(try await eventually { listening.catchUps.calls == 5 })

        #expect(listening.catchUps.payloads == ["test", "test", "test", "test"])

        // Another channel's notification is not for it. Known without waiting: a notification on
        // its own channel sent afterwards arrives after the other would have.
        try await listening.notify("test_other_" + listening.channel, payload: "other")
        try await listening.notify(payload: "after the other")
        #expect(try await eventually { listening.catchUps.calls == 6 })
        #expect(listening.catchUps.payloads == ["test", "test", "test", "test", "after the other"])
        #expect(listening.catchUps.calls == 6)
        #expect(listening.database.isReachable)
    }

    @Test("without notifications, the backstop catches up every interval")
    func backstop() async throws {
        let clock = ManualClock()
        let listening = try Listening(backstop: .milliseconds(100), clock: clock)
        defer { listening.stop() }
        let run = Task { try await listening.listener.run() }
        defer { run.cancel() }

        #expect(try await eventually { listening.catchUps.calls == 1 })
        for interval in 1...4 {
            // The backstop sleeps: nothing but the clock moves it.
            await clock.waitForSleepers(1)
            #expect(listening.catchUps.calls == interval)
            clock.advance(by: .milliseconds(100))
            #expect(try await eventually { listening.catchUps.calls == interval + 1 }, "interval \(interval)")
        }
        #expect(listening.catchUps.calls == 5)
        #expect(listening.catchUps.payloads.isEmpty)
    }

    @Test("a lost connection marks the database unreachable; reconnected, it is reachable and catches up")
    func lostConnection() async throws {
        let clock = ManualClock()
        let listening = try Listening(clock: clock)
        defer { listening.stop() }
        let run = Task { try await listening.listener.run() }
        defer { run.cancel() }
        #expect(try await eventually { listening.catchUps.calls == 1 })
        #expect(listening.database.isReachable)

        #expect(try await listening.terminateListenerConnection() == 1)
        // Store calls now fail at once instead of waiting for a database that is gone.
        #expect(try await eventually { !listening.database.isReachable })
        // It retries every second: the backstop and the retry sleep on the clock, and nothing
        // reconnects until the second has passed.
        await clock.waitForSleepers(2)
        #expect(!listening.database.isReachable && listening.catchUps.calls == 1)
        // Each second that passes, it tries again (a try may fail while the server settles).
        #expect(
            try await eventually {
                if clock.sleepers >= 2 { clock.advance(by: .seconds(1)) }
                return listening.database.isReachable
            }
        )
        // Listening again, it catches up on what it may have missed.
        #expect(try await eventually { listening.catchUps.calls == 2 })

        // And it listens again.
        try await listening.notify()
        #expect(try await eventually { listening.catchUps.calls == 3 })
    }

    @Test("catch-ups run one at a time, however many are asked for")
    func oneAtATime() async throws {
        let listening = try Listening(backstop: .milliseconds(20), catchUpSeconds: 0.05)
        defer { listening.stop() }
        let run = Task { try await listening.listener.run() }
        defer { run.cancel() }
        #expect(try await eventually { listening.catchUps.calls >= 1 })
        for _ in 0..<5 { try await listening.notify() }

        #expect(try await eventually { listening.catchUps.calls >= 8 })
        #expect(listening.catchUps.mostAtOnce == 1)
    }

    @Test("a graceful shutdown of its service group ends it at once, leaving the database reachable")
    func gracefulShutdown() async throws {
        let clock = ManualClock()
        let listening = try Listening(backstop: .milliseconds(50), clock: clock)
        defer { listening.stop() }
        let group = ServiceGroup(
            configuration: .init(services: [listening.listener], logger: Logger(label: "test"))
        )
        let run = Task { try await group.run() }
        #expect(try await eventually { listening.catchUps.calls == 1 })
        await clock.waitForSleepers(1)
        clock.advance(by: .milliseconds(50))
        #expect(try await eventually { listening.catchUps.calls == 2 })

        let asked = ContinuousClock.now
        await group.triggerGracefulShutdown()
        try await run.value
        #expect(ContinuousClock.now - asked < .seconds(2))
        #expect(listening.database.isReachable, "shutting down is not an outage")
        // No catch-up after it ended: its backstop no longer sleeps (the only thing that could
        // start one without a connection), and moving the clock past many intervals starts none.
        let calls = listening.catchUps.calls
        #expect(clock.sleepers == 0, "the backstop ended with it")
        clock.advance(by: .seconds(1))
        #expect(listening.catchUps.calls == calls, "no catch-up after it ended")
    }
}
