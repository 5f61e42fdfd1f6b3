import Dispatch
import EmptyStateStore
import Logging
import Synchronization

/// Publishes approved change requests at the time they were scheduled for, on every process.
///
/// Once a second (`look`, a `PeriodicWork` of the application, and at once when a schedule is
/// set on this process) it reads the scheduled requests' lines (one indexed query) and arms a
/// one-shot timer for each one due within the next `horizon`: the timer fires at the scheduled
/// instant, not at the next look, so a request is published within milliseconds of its time. A
/// schedule set on another replica is seen at this replica's next look, well before it is due
/// unless it was set for less than a second ahead.
///
/// Exactly once across replicas: every replica's timer fires, and each asks the store to publish
/// (`CatalogueWrite.publishScheduled`): the transaction claims the request under the catalogue
/// write lock (still open, still scheduled, due), so the first one publishes it and the others
/// find it published and do nothing. A schedule that fell due while every process was down is
/// found overdue at the first look after start and published at once; the publication records
/// how late it ran, and the log says so. A due request that can no longer be published (its
/// approvals no longer suffice, live moved under it) loses its schedule, with the reason in its
/// audit trail and the log.
final class ChangeRequestScheduler: Sendable {
    /// How often the scheduled requests are read.
    static let interval = DispatchTimeInterval.seconds(1)
    /// Requests due within this many milliseconds of a look are armed by it.
    static let horizon: Int64 = 2000
    /// A publication later than this (milliseconds) is logged as late.
    static let lateAfter: Int64 = 1000
    /// The actor the scheduler's publications are recorded under.
    static let actor = "scheduler"

    private let state: CatalogueState
    private let store: any TemplateStoring
    private let logger: Logger
    /// Milliseconds since the epoch, now (injected by tests).
    private let clock: @Sendable () -> Int64
    private let queue = DispatchQueue(label: "change-request-scheduler", qos: .userInitiated)
    /// The instant each armed request's timer fires at, by request id.
    private let armed = Mutex<[Int: Int64]>([:])

    init(
        state: CatalogueState,
        store: any TemplateStoring,
        logger: Logger,
        clock: @escaping @Sendable () -> Int64 = Timestamp.nowMilliseconds
    ) {
        self.state = state
        self.store = store
        self.logger = logger
        self.clock = clock
    }

    /// Reads the scheduled requests and arms a timer for each one due within the horizon (at
    /// once for one overdue). Failures are logged; the next look tries again.
    func look() {
        let due: [(id: Int, at: Int64)]
        do {
            let lines = try store.changeRequests(
                ChangeRequestFilter(states: [.open], scheduled: true),
                page: 1,
                pageSize: 200
            )
            due = lines.items.compactMap { line in line.scheduledAt.map { (line.id, $0) } }
        } catch {
            logger.error("reading the scheduled change requests failed", metadata: ["error": "\(error)"])
            return
        }
        let now = clock()
        for (id, at) in due where at <= now + Self.horizon {
            arm(id, at: at, now: now)
        }
    }

    /// Arms request `id`'s timer for `at` (unless one is armed for that instant already).
    private func arm(_ id: Int, at: Int64, now: Int64) {
        let fresh = armed.withLock { armed in
            guard armed[id] != at else { return false }
            armed[id] = at
            return true
        }
        guard fresh else { return }
        let delay = max(0, at - now)
        queue.asyncAfter(deadline: .now() + .milliseconds(Int(delay))) { [self] in
            fire(id, armedFor: at)
        }
    }

    /// Publishes request `id` if it is (still) due: the store's claim decides.
    func fire(_ id: Int, armedFor at: Int64) {
        defer { armed.withLock { if $0[id] == at { $0[id] = nil } } }
        let now = max(clock(), at)
        let outcome: ScheduledOutcome
        do {
            outcome = try store.write { edits in try edits.publishScheduled(id, now: now, actor: Self.actor) }
        } catch {
            logger.error(
                "publishing a scheduled change request failed; the next look tries again",
                metadata: ["change_request.id": "\(id)", "error": "\(error)"]
            )
            return
        }
        switch outcome {
        case .notDue:
            return
        case .dropped(let request, let reason):
            logger.warning(
                "a scheduled change request was not published; its schedule was dropped",
                metadata: [
                    "change_request.id": "\(id)", "change_request.revision": "\(request.revision)",
                    "reason": "\(reason)",
                ]
            )
        case .published(let publication):
            let batch = CatalogueState.Batch(
                changes: publication.templates.map { .upsert($0) }
                    + publication.removedTemplates.map { .remove(id: $0.id, revision: $0.revision) },
                policies: publication.policies,
                experiments: publication.experiments
            )
            do {
                try state.publish(batch, store: store)
            } catch {
                logger.error(
                    "serving a scheduled publication failed; the catalogue is rebuilt at the next change",
                    metadata: ["change_request.id": "\(id)", "error": "\(error)"]
                )
            }
            let late = publication.request.request.publication?.lateMilliseconds ?? 0
            let metadata: Logger.Metadata = [
                "change_request.id": "\(id)", "change_request.scheduled_at": "\(Timestamp.format(milliseconds: at))",
                "change_request.late_ms": "\(late)",
                "change_request.documents": "\(batch.changes.count + batch.policies.count + batch.experiments.count)",
            ]
            if late > Self.lateAfter {
                logger.warning(
                    "scheduled change request published late (no process was running at its time)",
                    metadata: metadata
                )
            } else {
                logger.notice("scheduled change request published", metadata: metadata)
            }
        }
    }
}
