import EmptyStateStore
import Logging
import Synchronization

/// Counts the events an earlier release stored into the rollups, a batch at a time, in the
/// background (a `PeriodicWork` of the application) while the service serves: each batch is one
/// short transaction with the progress, so ingestion waits at most for one batch and a restart
/// goes on where it stopped. After a batch it rests as long as the batch took, so ingestion
/// (which shares SQLite's one writer) has the store at least half the time. Until it is done,
/// summaries say they are partial.
final class RollupBackfillWorker: Sendable {
    /// Events per batch: about 25 ms of work on SQLite on the development machine.
    static let batch = 5_000

    let store: any EventStoring
    let progress: BackfillProgress
    /// When the next batch may start.
    private let resting = Mutex(ContinuousClock.now)
    let metrics: ServiceMetrics
    let logger: Logger

    init(store: any EventStoring, progress: BackfillProgress, metrics: ServiceMetrics, logger: Logger) {
        self.store = store
        self.progress = progress
        self.metrics = metrics
        self.logger = logger
    }

    /// One batch, unless the backfill is done; failures are logged and the next run tries again.
    func step() {
        guard progress.current.map({ !$0.isComplete }) ?? true else { return }
        let started = ContinuousClock.now
        guard started >= resting.withLock({ $0 }) else { return }
        do {
            let before = progress.current
            let now = try before == nil ? store.backfillProgress() : store.backfillRollups(limit: Self.batch)
            let finished = ContinuousClock.now
            resting.withLock { $0 = finished + (finished - started) }
            progress.current = now
            metrics.recordBackfill(now)
            guard let before else {
                if !now.isComplete {
                    logger.notice(
                        "counting stored events into the rollups in the background; summaries are partial until done",
                        metadata: ["backfill.counted": "\(now.counted)", "backfill.total": "\(now.total)"]
                    )
                }
                return
            }
            let tenth = { (value: Int) in now.total == 0 ? 10 : value * 10 / now.total }
            if now.isComplete {
                logger.notice("rollup backfill complete", metadata: ["backfill.total": "\(now.total)"])
            } else if tenth(now.counted) > tenth(before.counted) {
                logger.info(
                    "rollup backfill progress",
                    metadata: ["backfill.counted": "\(now.counted)", "backfill.total": "\(now.total)"]
                )
            }
        } catch {
            logger.error("rollup backfill failed; trying again", metadata: ["error": "\(error)"])
        }
    }
}

/// How far the rollup backfill is, as its worker last saw it (`nil` before its first look).
final class BackfillProgress: Sendable {
    private let state = Mutex<RollupBackfill?>(nil)

    var current: RollupBackfill? {
        get { state.withLock { $0 } }
        set { state.withLock { $0 = newValue } }
    }
}
