import EmptyStateStore
import Logging
import Synchronization

/// Publishes on this replica the catalogue changes other replicas committed: reads the change
/// feed after the last change applied, loads each changed document and publishes it (templates,
/// app policies and experiments; a deleted template is removed). `CatalogueChangeListener` calls
/// `catchUp()` on each notification, on reconnecting, and periodically.
///
/// This replica's own writes come back through the feed too; `CatalogueState` skips a change
/// whose revision it already serves.
final class CatalogueFollower: Sendable {
    private let state: CatalogueState
    private let shared: any SharedStore
    private var store: any TemplateStoring { shared.templates }
    private let logger: Logger
    /// The feed number of the last change applied.
    private let applied: Mutex<Int64>

    /// - Parameter after: the feed number read before the snapshot was loaded: everything after
    ///   it may be missing from the snapshot.
    init(state: CatalogueState, shared: any SharedStore, after: Int64, logger: Logger) {
        self.state = state
        self.shared = shared
        self.logger = logger
        applied = Mutex(after)
    }

    /// The feed number of the last change applied (for `/readyz` and tests).
    var lastApplied: Int64 { applied.withLock { $0 } }

    /// Applies every change after the last one applied, in feed order; stops at the first that
    /// cannot be loaded (the next call starts from there).
    func catchUp() {
        let after = lastApplied
        let changes: [(seq: Int64, documentID: String)]
        do {
            changes = try shared.changes(after: after)
        } catch {
            logger.warning("reading the catalogue change feed failed", metadata: ["error": "\(error)"])
            return
        }
        for change in changes {
            do {
                try apply(documentID: change.documentID)
                applied.withLock { $0 = max($0, change.seq) }
            } catch {
                logger.warning(
                    "publishing a change from another replica failed; will retry",
                    metadata: ["document.id": "\(change.documentID)", "error": "\(error)"]
                )
                return
            }
        }
    }

    private func apply(documentID id: String) throws {
        // Webhook subscriptions are documents too, but nothing served: the dispatcher reads them.
        if StoredDocuments.webhookName(documentID: id) != nil { return }
        if let name = StoredDocuments.experimentName(documentID: id) {
            let stored: StoredExperiment
            do {
                stored = try store.experiment(id: name)
            } catch .notFound {
                return
            }
            guard state.publish(experiment: stored) else { return }
            logger.info(
                "experiment published from another replica",
                metadata: [
                    "experiment.id": "\(name)", "experiment.revision": "\(stored.revision)",
                    "experiment.status": "\(stored.experiment.status.rawValue)",
                ]
            )
            return
        }
        if let platform = StoredDocuments.appPolicyPlatform(documentID: id) {
            do {
                let stored = try store.policy(platform: platform)
                guard state.publish(policy: stored) else { return }
                logger.info(
                    "app policy published from another replica",
                    metadata: [
                        "app_policy.platform": "\(platform.rawValue)", "app_policy.revision": "\(stored.revision)",
                    ]
                )
            } catch .notFound {
                return
            }
            return
        }
        let change: CatalogueState.Change
        do {
            change = .upsert(try store.template(id: id))
        } catch .deleted(_, let revision) {
            change = .remove(id: id, revision: revision)
        } catch .notFound {
            return
        }
        guard try state.publish(change, store: store) else { return }
        logger.info(
            "catalogue change published from another replica",
            metadata: ["template.id": "\(id)", "template.revision": "\(change.revision)"]
        )
    }
}
