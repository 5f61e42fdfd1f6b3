import Synchronization

/// A clock that moves only when a test moves it: `sleep` returns once `advance(by:)` reaches its
/// deadline (or throws when its task is cancelled). A test that waits on time uses it to know
/// what happens, instead of sleeping through real time and hoping.
final class ManualClock: Clock, Sendable {
    struct Instant: InstantProtocol {
        /// Time since the clock was made.
        var offset: Duration

        func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
        func duration(to other: Instant) -> Duration { other.offset - offset }
        static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
    }

    private struct Sleeper {
        let deadline: Instant
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now = Instant(offset: .zero)
        var nextID = 0
        var sleepers: [Int: Sleeper] = [:]
        /// Sleeps cancelled before they were registered.
        var cancelled: Set<Int> = []
        /// Who waits for at least this many sleepers.
        var waiters: [(count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    }

    private let state = Mutex(State())

    var now: Instant { state.withLock { $0.now } }
    var minimumResolution: Duration { .zero }

    /// How many sleeps wait for the clock to move.
    var sleepers: Int { state.withLock { $0.sleepers.count } }

    func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        let id = state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let ready = state.withLock { state -> [CheckedContinuation<Void, Never>]? in
                    if state.cancelled.remove(id) != nil {
                        continuation.resume(throwing: CancellationError())
                        return nil
                    }
                    if deadline <= state.now {
                        continuation.resume()
                        return nil
                    }
                    state.sleepers[id] = Sleeper(deadline: deadline, continuation: continuation)
                    return Self.satisfiedWaiters(&state)
                }
                for waiter in ready ?? [] { waiter.resume() }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let sleeper = state.sleepers.removeValue(forKey: id) else {
                    state.cancelled.insert(id)
                    return nil
                }
                return sleeper
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves the clock on; every sleep whose deadline it reaches returns.
    func advance(by duration: Duration) {
        let due = state.withLock { state -> [Sleeper] in
            state.now = state.now.advanced(by: duration)
            let due = state.sleepers.filter { $0.value.deadline <= state.now }
            for id in due.keys { state.sleepers[id] = nil }
            return Array(due.values)
        }
        for sleeper in due { sleeper.continuation.resume() }
    }

    /// Returns once at least `count` sleeps wait for the clock: what is sleeping then is parked
    /// until the clock moves.
    func waitForSleepers(_ count: Int) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.sleepers.count >= count { return true }
                state.waiters.append((count, continuation))
                return false
            }
            if now { continuation.resume() }
        }
    }

    private static func satisfiedWaiters(_ state: inout State) -> [CheckedContinuation<Void, Never>] {
        let count = state.sleepers.count
        let ready = state.waiters.filter { $0.count <= count }.map(\.continuation)
        state.waiters.removeAll { $0.count <= count }
        return ready
    }
}

/// A clock in nanoseconds that moves only when a test moves it, for what reads the time as a
/// number (`DuplicateWatch`).
final class ManualNanoseconds: Sendable {
    private let value: Atomic<UInt64>

    /// - Parameter start: the first time read; above 0 (0 means "never" to `DuplicateWatch`).
    init(start: UInt64 = 1_000_000_000) { value = Atomic(start) }

    var now: UInt64 { value.load(ordering: .relaxed) }

    func advance(by nanoseconds: UInt64) { value.add(nanoseconds, ordering: .relaxed) }
}
