import Dispatch
import Foundation
import ServiceLifecycle
import Synchronization

/// How the application's long-lived parts start and stop: each is a `Service` of one
/// `ServiceGroup`, listed once in start order (`EmptyStateApplication.services`); the group
/// shuts them down in the reverse order, each after the one started after it has finished.
///
/// Two shapes cover every worker:
/// - `WorkerService`: something with a synchronous `start` and a blocking `stop` (the event
///   writer, the access log, the HTTP server);
/// - `PeriodicWork`: a job run on a background queue of its own at a fixed interval (retention,
///   the app-policy watcher).
///
/// The group runs its services' `run()` concurrently, so each service here waits for the one
/// before it to have started (`StartSequence`): the HTTP server, last, accepts no request before
/// the event writer can take it.
enum Lifecycle {
    /// Runs `body` on a thread of its own and waits for it without blocking a thread of Swift
    /// concurrency's pool: stopping drains and flushes, which blocks for up to seconds (and
    /// PostgreSQL calls must never run on the pool).
    static func offPool(_ name: String, _ body: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let thread = Thread {
                body()
                continuation.resume()
            }
            thread.name = name
            thread.start()
        }
    }
}

/// Makes the services of one group start one after the other, in the order of their `step`.
final class StartSequence: Sendable {
    private struct State {
        /// How many steps have started.
        var started = 0
        var waiters: [(step: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Mutex(State())

    /// Returns once every step before `step` has started.
    func waitForTurn(_ step: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.started >= step { return true }
                state.waiters.append((step, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Records that `step` has started (or failed to: the steps after it go on, and the group,
    /// told of the failure, shuts them down).
    func finished(_ step: Int) {
        let ready = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.started = max(state.started, step + 1)
            let ready = state.waiters.filter { $0.step <= state.started }.map(\.continuation)
            state.waiters.removeAll { $0.step <= state.started }
            return ready
        }
        for continuation in ready { continuation.resume() }
    }
}

/// A worker with a synchronous start and a blocking stop, as a service: started in its turn,
/// stopped (on a thread of its own) when the group shuts down.
struct WorkerService: Service {
    /// Names the stopping thread and the service in the group's logs.
    let name: String
    let step: Int
    let sequence: StartSequence
    let start: @Sendable () throws -> Void
    let stop: @Sendable () -> Void

    func run() async throws {
        await sequence.waitForTurn(step)
        do {
            try start()
        } catch {
            sequence.finished(step)
            throw error
        }
        sequence.finished(step)
        try? await gracefulShutdown()
        await Lifecycle.offPool("stop-\(name)", stop)
    }
}

/// Runs `work` on a background queue of its own, first after `firstAfter`, then every `every`,
/// never on a request's thread (the retention pruner, the app-policy watcher). On shutdown it
/// waits for a run in progress to end.
struct PeriodicWork: Service {
    let name: String
    let step: Int
    let sequence: StartSequence
    let firstAfter: DispatchTimeInterval
    let every: DispatchTimeInterval
    let leeway: DispatchTimeInterval
    let work: @Sendable () -> Void

    func run() async throws {
        await sequence.waitForTurn(step)
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: name, qos: .utility))
        let cancelled = DispatchSemaphore(value: 0)
        timer.setEventHandler(handler: work)
        // Runs on the timer's queue after any run in progress: stopping waits for it.
        timer.setCancelHandler { cancelled.signal() }
        timer.schedule(deadline: .now() + firstAfter, repeating: every, leeway: leeway)
        timer.resume()
        sequence.finished(step)
        try? await gracefulShutdown()
        let stopping = UncheckedTimer(timer)
        await Lifecycle.offPool("stop-\(name)") {
            stopping.timer.cancel()
            cancelled.wait()
        }
    }
}

/// A dispatch source crossing to the stopping thread; dispatch sources are thread-safe.
private struct UncheckedTimer: @unchecked Sendable {
    let timer: any DispatchSourceTimer
    init(_ timer: any DispatchSourceTimer) { self.timer = timer }
}
