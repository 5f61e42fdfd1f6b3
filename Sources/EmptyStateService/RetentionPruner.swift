import Dispatch
import EmptyStateStore
import Logging

/// Deletes analytics events older than the retention period: once at start, then hourly, on a
/// background queue (never on a request). Unchecked: a dispatch source is thread-safe, and
/// every other field is immutable.
final class RetentionPruner: @unchecked Sendable {
    private let store: EventStore
    private let days: Int
    private let logger: Logger
    private let timer: any DispatchSourceTimer

    init(store: EventStore, days: Int, logger: Logger) {
        self.store = store
        self.days = days
        self.logger = logger
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "event-retention", qos: .utility))
    }

    func start() {
        timer.setEventHandler { [self] in prune() }
        timer.schedule(deadline: .now() + .seconds(1), repeating: .seconds(3600), leeway: .seconds(60))
        timer.resume()
    }

    func stop() {
        timer.cancel()
    }

    private func prune() {
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
