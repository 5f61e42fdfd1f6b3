import EmptyStateStore
import Logging
import Synchronization

/// Folds the rollup deltas that group commits append (`RollupDelta`) into the cubes, every
/// second (a `PeriodicWork` of the application). Answers do not wait for it (reads add the deltas
/// not folded yet); it keeps what a read adds small: a second's worth of groups' rows.
///
/// On PostgreSQL every replica folds, one at a time (an advisory lock): a fold takes the deltas
/// committed before it began, whichever replica wrote them.
final class RollupFolder: Sendable {
    let store: any EventStoring
    let logger: Logger
    /// Whether the last fold failed: a failure is logged once, and the recovery once.
    private let failing = Atomic<Bool>(false)

    init(store: any EventStoring, logger: Logger) {
        self.store = store
        self.logger = logger
    }

    func fold() {
        do {
            let folded = try store.foldRollups()
            if failing.exchange(false, ordering: .relaxed) {
                logger.notice("rollup fold works again", metadata: ["rollup.folded_rows": "\(folded)"])
            }
        } catch {
            if !failing.exchange(true, ordering: .relaxed) {
                logger.error(
                    "rollup fold failed; answers stay right (they read the deltas), trying again every second",
                    metadata: ["error": "\(error)"]
                )
            }
        }
    }
}
