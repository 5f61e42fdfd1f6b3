import Dispatch
import EmptyStateStore
import Logging

/// Serves app policies that another replica sharing the store committed: every second, on a
/// background queue, it reads each platform's policy revision (one small indexed query) and
/// publishes the ones newer than what is served. This process's own writes are published before
/// they are acknowledged and are skipped here. Unchecked: a dispatch source is thread-safe, and
/// every other field is immutable.
final class PolicyWatcher: @unchecked Sendable {
    /// How often the store is asked.
    static let interval = DispatchTimeInterval.seconds(1)

    private let state: CatalogueState
    private let store: TemplateStore
    private let logger: Logger
    private let timer: any DispatchSourceTimer

    init(state: CatalogueState, store: TemplateStore, logger: Logger) {
        self.state = state
        self.store = store
        self.logger = logger
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "app-policy-watcher", qos: .utility))
    }

    func start() {
        timer.setEventHandler { [self] in refresh() }
        timer.schedule(deadline: .now() + Self.interval, repeating: Self.interval, leeway: .milliseconds(100))
        timer.resume()
    }

    func stop() {
        timer.cancel()
    }

    private func refresh() {
        do {
            for platform in try state.refreshPolicies(from: store) {
                logger.notice(
                    "app policy published from the store",
                    metadata: ["app_policy.platform": "\(platform.rawValue)"]
                )
            }
        } catch {
            logger.error("reading app policies from the store failed", metadata: ["error": "\(error)"])
        }
    }
}
