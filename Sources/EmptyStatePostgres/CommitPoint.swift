import Synchronization

/// The one decision between the thread waiting for a bridged database call and the task running
/// it: whether the call's COMMIT may still be sent.
///
/// The waiter gives up after its wait bound, but the task goes on (postgres-nio does not stop a
/// query when its task is cancelled): without this, a write abandoned while it waited for a lock
/// or a stalled server would still commit later, after its caller was told it did not. So the
/// work calls `reach()` right before it sends its COMMIT (or the one statement that commits
/// itself), and the waiter's `giveUp()` and that call race for one atomic phase:
/// - the waiter wins: the work throws at `reach()` and rolls back; the caller is told
///   `unavailable`, which is then true;
/// - the work wins: the COMMIT is on its way, and a waiter giving up afterwards can only say
///   `outcomeUnknown`.
package final class CommitPoint: Sendable {
    /// Thrown by `reach()` when the waiter gave up first: the work must not commit.
    package struct Abandoned: Error {
        package init() {}
    }

    /// How the waiter's giving up was decided.
    package enum Verdict: Sendable, Equatable {
        /// Before the commit point: the work will not commit.
        case abandoned
        /// After it: the work may commit or not; nobody waits for it any more.
        case outcomeUnknown
        /// The work had already finished: its result is there to be read.
        case finished
    }

    private enum Phase: UInt8 {
        case working, committing, finished, abandoned, outcomeUnknown
    }

    private let phase = Atomic<UInt8>(Phase.working.rawValue)
    /// Set once the work passed `reach()`; stays set when the work finishes.
    private let reached = Atomic<Bool>(false)

    package init() {}

    /// Called by the work right before it sends its COMMIT.
    /// - Throws: `Abandoned` when the waiter already gave up (thrown out of a transaction, it
    ///   rolls the transaction back).
    package func reach() throws(Abandoned) {
        let (exchanged, _) = phase.compareExchange(
            expected: Phase.working.rawValue,
            desired: Phase.committing.rawValue,
            ordering: .acquiringAndReleasing
        )
        if !exchanged { throw Abandoned() }
        reached.store(true, ordering: .releasing)
    }

    /// Whether the work passed its commit point (a failure after it leaves the outcome unknown).
    package var isReached: Bool { reached.load(ordering: .acquiring) }

    /// Called by the waiter when its wait bound passed.
    package func giveUp() -> Verdict {
        if phase.compareExchange(
            expected: Phase.working.rawValue,
            desired: Phase.abandoned.rawValue,
            ordering: .acquiringAndReleasing
        ).exchanged {
            return .abandoned
        }
        if phase.compareExchange(
            expected: Phase.committing.rawValue,
            desired: Phase.outcomeUnknown.rawValue,
            ordering: .acquiringAndReleasing
        ).exchanged {
            return .outcomeUnknown
        }
        return .finished
    }

    /// Called by the work once its result is set for the waiter.
    /// - Returns: whether the waiter had given up after the commit point, having told its caller
    ///   the outcome is unknown (the work then logs what the outcome was).
    package func finish() -> Bool {
        phase.exchange(Phase.finished.rawValue, ordering: .acquiringAndReleasing) == Phase.outcomeUnknown.rawValue
    }
}
