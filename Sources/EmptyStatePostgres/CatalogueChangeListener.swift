import Dispatch
import Logging
import PostgresNIO
import ServiceLifecycle

/// Keeps a replica's served catalogue in step with the database: `LISTEN`s on the catalogue
/// channel and, for every notification, runs `catchUp`, which loads what changed after the last
/// change it applied (the change feed) and publishes it.
///
/// Notifications are hints, never the data: `catchUp` also runs each time the listening
/// connection is (re)established, because notifications sent while it was away are lost, and
/// every `backstop` interval in case one was missed for any other reason. So no committed change
/// is ever missed, only, at worst, delayed by the backstop.
///
/// The listening connection is also the replica's probe of the database: losing it marks the
/// database unreachable (writes answer 503 at once instead of waiting), and getting it back
/// marks it reachable.
package final class CatalogueChangeListener: Service, Sendable {
    private let database: PostgresBackend
    private let channel: String
    private let backstop: Duration
    /// Sleeps on the clock the backstop and the reconnection wait on; throws when cancelled.
    private let sleep: @Sendable (Duration) async throws -> Void
    private let logger: Logger
    /// Runs the synchronous catch-up on a thread of its own (it blocks on store reads, which must
    /// never happen on the cooperative pool), one at a time.
    private let queue = DispatchQueue(label: "catalogue-change-listener")
    private let catchUp: @Sendable () -> Void
    private let onNotification: (@Sendable (_ payload: String) -> Void)?

    /// - Parameters:
    ///   - clock: what the backstop's interval and the second between reconnections are measured
    ///     on (tests move a clock of their own instead of waiting).
    ///   - onNotification: told each notification's payload as it arrives, before its catch-up
    ///     (tests know from it which notifications reached the listener).
    ///   - catchUp: loads and publishes the changes committed since the last one it applied;
    ///     called on a serial queue; must keep what it could not apply for the next call.
    package init<WaitClock: Clock<Duration>>(
        database: PostgresBackend,
        channel: String = PostgresTemplateStore.catalogueChannel,
        backstop: Duration = .seconds(30),
        clock: WaitClock = ContinuousClock(),
        logger: Logger,
        onNotification: (@Sendable (_ payload: String) -> Void)? = nil,
        catchUp: @escaping @Sendable () -> Void
    ) {
        self.database = database
        self.channel = channel
        self.backstop = backstop
        sleep = { try await clock.sleep(for: $0) }
        self.logger = logger
        self.onNotification = onNotification
        self.catchUp = catchUp
    }

    /// Runs until the service group shuts down; never fails (losing the database is an outage
    /// it waits out, not an error of the group).
    package func run() async throws {
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await self.listen() }
                group.addTask {
                    while !Task.isCancelled {
                        do {
                            try await self.sleep(self.backstop)
                        } catch {
                            return  // cancelled: shutting down
                        }
                        await self.runCatchUp()
                    }
                }
                await group.next()
                group.cancelAll()
            }
        }
    }

    /// Listens until cancelled, reconnecting after a second whenever the connection is lost.
    private func listen() async {
        var failures = 0
        while !Task.isCancelled {
            do {
                try await database.client.withConnection { connection in
                    try await connection.listen(on: self.channel) { notifications in
                        self.database.markReachable(true)
                        if failures > 0 {
                            self.logger.notice("listening for catalogue changes again; catching up")
                        }
                        failures = 0
                        await self.runCatchUp()
                        for try await notification in notifications {
                            self.onNotification?(notification.payload)
                            await self.runCatchUp()
                        }
                    }
                }
            } catch {
                if Task.isCancelled { return }
                failures += 1
                database.markReachable(false, reason: String(reflecting: error))
                if failures == 1 {
                    logger.warning(
                        "lost the catalogue change listener's connection; retrying every second",
                        metadata: ["error": "\(String(reflecting: error))"]
                    )
                }
            }
            try? await sleep(.seconds(1))
        }
    }

    private func runCatchUp() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            queue.async {
                self.catchUp()
                continuation.resume()
            }
        }
    }
}
