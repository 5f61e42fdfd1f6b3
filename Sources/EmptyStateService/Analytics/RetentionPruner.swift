import Dispatch
import EmptyStateStore
import Logging

/// Deletes analytics events older than the retention period: once at start, then hourly, on a
/// background queue (never on a request).
final class RetentionPruner: Sendable {
    private let task: PeriodicTask

    init(store: any EventStoring, days: Int, logger: Logger) {
        task = PeriodicTask(
            label: "event-retention",
            firstAfter: .seconds(1),
            every: .seconds(3600),
            leeway: .seconds(60)
        ) {
            Self.prune(store: store, days: days, logger: logger)
        }
    }

    func start() { task.start() }

    func stop() { task.stop() }

    private static func prune(store: any EventStoring, days: Int, logger: Logger) {
        let cutoff = Timestamp.nowMilliseconds() - Int64(days) * 86_400_000
        do {
            let deleted = try store.prune(before: cutoff)
            if deleted > 0 {
                logger.info(
                    "pruned analytics events past retention",
                    metadata: ["events.deleted": "\(deleted)", "events.retention_days": "\(days)"]
                )
            }
        } catch {
            logger.error("pruning analytics events failed", metadata: ["error": "\(error)"])
        }
    }
}
