import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Group commit of analytics events, shared by both event stores: `append` queues one request's
/// events and blocks; writer threads take everything queued since their last commit and commit
/// it at once, so durability costs one commit per group rather than per request.
///
/// What a commit does is the store's (`commit`); the queue, the writer threads, the hand-back of
/// each submission's outcome, the metrics callback and the final drain on `stop()` are here.
package final class GroupCommitQueue: Sendable {
    /// One request's events waiting for the next group commit.
    package final class Submission: @unchecked Sendable {
        // Written by a writer thread before `done` is signalled, read by the submitter after.
        package let events: [AnalyticsEvent]
        package let quarantined: [QuarantinedEvent]
        fileprivate var result: Result<[Bool], StoreError> = .failure(.database("not committed"))
        fileprivate let done = DispatchSemaphore(value: 0)

        init(events: [AnalyticsEvent], quarantined: [QuarantinedEvent]) {
            self.events = events
            self.quarantined = quarantined
        }
    }

    /// Commits a group durably, on the writer thread numbered `writer` (0 ..< writers: a store
    /// may give each writer rows of its own). - Returns: for each submission, in order, whether
    /// each of its events was new; or why nothing of the group was committed.
    package typealias Commit = @Sendable (_ group: [Submission], _ writer: Int) -> Result<[[Bool]], StoreError>

    /// Submissions waiting for a writer, and whether more are accepted: one lock for both, so a
    /// submission can never slip in after the writers' final drain.
    private let queue = Mutex<(submissions: [Submission], open: Bool)>(([], false))
    private let wake = DispatchSemaphore(value: 0)
    private let running = Atomic<Bool>(false)
    /// Submissions accepted whose outcome has not been handed back (`Progress.unanswered`).
    private let unanswered = Atomic<Int>(0)
    private let stopped = DispatchSemaphore(value: 0)
    private let writers: Int
    private let commit: Commit
    /// Told the duration of each group commit, in seconds, whatever its outcome (for metrics).
    private let onCommit: (@Sendable (Double) -> Void)?

    /// - Parameter writers: threads committing groups in parallel (1: groups in order).
    package init(writers: Int = 1, onCommit: (@Sendable (Double) -> Void)?, commit: @escaping Commit) {
        precondition(writers >= 1)
        self.writers = writers
        self.onCommit = onCommit
        self.commit = commit
    }

    /// Starts the writer threads. Call once; `stop()` ends them.
    package func start() {
        guard !running.exchange(true, ordering: .acquiringAndReleasing) else { return }
        queue.withLock { $0.open = true }
        for index in 0..<writers {
            let thread = Thread { [self] in writerLoop(index) }
            thread.name = writers == 1 ? "event-writer" : "event-writer-\(index)"
            thread.start()
        }
    }

    /// Commits what is queued, then ends the writer threads.
    package func stop() {
        guard running.exchange(false, ordering: .acquiringAndReleasing) else { return }
        queue.withLock { $0.open = false }
        for _ in 0..<writers { wake.signal() }
        for _ in 0..<writers { stopped.wait() }
    }

    /// Queues the events for the next group commit and waits for it.
    /// - Returns: for each event, whether it was new (`false`: a duplicate of a stored id).
    /// - Throws: the commit's error, or `.database` when the writers are not running.
    package func append(_ events: [AnalyticsEvent], quarantined: [QuarantinedEvent]) throws(StoreError) -> [Bool] {
        guard !events.isEmpty || !quarantined.isEmpty else { return [] }
        let submission = Submission(events: events, quarantined: quarantined)
        let accepted = queue.withLock { state -> Bool in
            guard state.open else { return false }
            state.submissions.append(submission)
            unanswered.add(1, ordering: .relaxed)
            return true
        }
        guard accepted else { throw .database("the event writer is not running") }
        wake.signal()
        submission.done.wait()
        return try submission.result.get()
    }

    private func writerLoop(_ index: Int) {
        // Storing events is work that serving templates to users should come before: on Linux
        // the nice value is per thread, and who = 0 is the calling one.
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 19)
        while true {
            wake.wait()
            let group = queue.withLock { state -> [Submission] in
                defer { state.submissions.removeAll(keepingCapacity: true) }
                return state.submissions
            }
            run(group, writer: index)
            if !running.load(ordering: .acquiring) {
                // `open` is false by now: nothing can be added after this drain.
                let rest = queue.withLock { state -> [Submission] in
                    defer { state.submissions.removeAll() }
                    return state.submissions
                }
                run(rest, writer: index)
                stopped.signal()
                return
            }
        }
    }

    private func run(_ group: [Submission], writer: Int) {
        guard !group.isEmpty else { return }
        CommitTimer.timed(onCommit) {
            switch commit(group, writer) {
            case .success(let outcomes):
                for (submission, inserted) in zip(group, outcomes) { submission.result = .success(inserted) }
            case .failure(let error):
                for submission in group { submission.result = .failure(error) }
            }
        }
        unanswered.subtract(group.count, ordering: .relaxed)
        for submission in group { submission.done.signal() }
    }

    /// Where the queue's submissions are now: what a test waits on to know that they are queued,
    /// or that `stop()` has begun, instead of sleeping.
    package struct Progress: Sendable, Equatable {
        /// Whether `append` accepts submissions (from `start()` until `stop()` begins).
        package var accepting: Bool
        /// Submissions accepted whose outcome was not handed back yet: queued, or in a commit.
        package var unanswered: Int
    }

    package var progress: Progress {
        Progress(accepting: queue.withLock { $0.open }, unanswered: unanswered.load(ordering: .relaxed))
    }
}

/// A store whose events go through a `GroupCommitQueue`, and which tells where that queue is.
package protocol GroupCommitting {
    var commitProgress: GroupCommitQueue.Progress { get }
}
