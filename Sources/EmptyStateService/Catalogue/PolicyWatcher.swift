import Dispatch
import EmptyStateStore
import Logging

/// Serves app policies and experiments that another process sharing the SQLite store committed:
/// every second (a `PeriodicWork` of the application), it reads each platform's policy revision
/// (one small indexed query) and the live experiments (a handful of rows) and publishes the ones
/// newer than what is served. This process's own writes
/// are published before they are acknowledged and are skipped here. (On PostgreSQL the change
/// feed does this: `CatalogueFollower`.)
struct PolicyWatcher: Sendable {
    /// How often the store is asked.
    static let interval = DispatchTimeInterval.seconds(1)

    let state: CatalogueState
    let store: any TemplateStoring
    let logger: Logger

    /// One look at the store; failures are logged and the next look tries again.
    func refresh() {
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
        do {
            for id in try state.refreshExperiments(from: store) {
                logger.notice("experiment published from the store", metadata: ["experiment.id": "\(id)"])
            }
        } catch {
            logger.error("reading experiments from the store failed", metadata: ["error": "\(error)"])
        }
    }
}
