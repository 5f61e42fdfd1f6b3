import Dispatch
import EmptyStateStore
import Logging

/// Deletes analytics events older than the retention period: once at start, then hourly (a
/// `PeriodicWork` of the application, never on a request).
struct RetentionPruner: Sendable {
    static let firstAfter = DispatchTimeInterval.seconds(1)
    static let interval = DispatchTimeInterval.seconds(3600)

    let store: any EventStoring
    let days: Int
    let logger: Logger

    /// One pass; failures are logged and the next pass tries again.
    func prune() {
        let cutoff = Timestamp.nowMilliseconds() - Int64(days) * 86_400_000
        let started = ContinuousClock.now
        do {
            let deleted = try store.prune(before: cutoff)
            if deleted > 0 {
                logger.info(
                    "pruned analytics events past retention",
                    metadata: [
                        "events.deleted": "\(deleted)", "events.retention_days": "\(days)",
                        "events.prune_ms": "\((ContinuousClock.now - started).milliseconds)",
                    ]
                )
            }
        } catch {
            logger.error("pruning analytics events failed", metadata: ["error": "\(error)"])
        }
    }
}
