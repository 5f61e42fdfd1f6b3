import Dispatch
import EmptyStateStore
import Logging

/// Serves app policies that another replica sharing the store committed: every second, on a
/// background queue, it reads each platform's policy revision (one small indexed query) and
/// publishes the ones newer than what is served. This process's own writes are published before
/// they are acknowledged and are skipped here.
final class PolicyWatcher: Sendable {
    /// How often the store is asked.
    static let interval = DispatchTimeInterval.seconds(1)

    private let state: CatalogueState
    private let store: any TemplateStoring
    private let logger: Logger
    private let task: PeriodicTask

    init(state: CatalogueState, store: any TemplateStoring, logger: Logger) {
        self.state = state
        self.store = store
        self.logger = logger
        task = PeriodicTask(
            label: "app-policy-watcher",
            firstAfter: Self.interval,
            every: Self.interval,
            leeway: .milliseconds(100)
        ) { [state, store, logger] in
            Self.refresh(state: state, store: store, logger: logger)
        }
    }

    func start() { task.start() }

    func stop() { task.stop() }

    private static func refresh(state: CatalogueState, store: any TemplateStoring, logger: Logger) {
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
