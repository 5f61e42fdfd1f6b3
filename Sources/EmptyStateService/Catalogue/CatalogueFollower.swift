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
    /// Called once per catch-up that saw an admin token created or revoked (the authorization
    /// reads the tokens again).
    private let onAdminTokens: (@Sendable () -> Void)?

    /// - Parameter after: the feed number read before the snapshot was loaded: everything after
    ///   it may be missing from the snapshot.
    init(
        state: CatalogueState,
        shared: any SharedStore,
        after: Int64,
        logger: Logger,
        onAdminTokens: (@Sendable () -> Void)? = nil
    ) {
        self.onAdminTokens = onAdminTokens
        self.state = state
        self.shared = shared
        self.logger = logger
        applied = Mutex(after)
    }

    /// The feed number of the last change applied (for `/readyz` and tests).
    var lastApplied: Int64 { applied.withLock { $0 } }

    /// Applies every change after the last one applied, in feed order, in **one** snapshot swap:
    /// the feed rows of a committed transaction are visible together, so every document of a
    /// transaction (a change request's publication) is served from the same swap, never half of
    /// it. Stops loading at the first document that cannot be loaded: what was loaded before it
    /// is published, and the next call starts from there.
    ///
    /// The documents are loaded after the feed is read, each as it is now: a transaction that
    /// commits in between may show some of its documents one catch-up early; its own
    /// notification brings the rest at once.
    func catchUp() {
        let after = lastApplied
        let changes: [(seq: Int64, documentID: String)]
        do {
            changes = try shared.changes(after: after)
        } catch {
            logger.warning("reading the catalogue change feed failed", metadata: ["error": "\(error)"])
            return
        }
        var batch = CatalogueState.Batch()
        var loaded: Int64?
        // Before the documents: a token revoked elsewhere is out of force here at once, whatever
        // happens to the rest of the batch.
        if let onAdminTokens, changes.contains(where: { DocumentKind(documentID: $0.documentID) == .adminToken }) {
            onAdminTokens()
        }
        for change in changes {
            do {
                try load(documentID: change.documentID, into: &batch)
                loaded = max(loaded ?? change.seq, change.seq)
            } catch {
                logger.warning(
                    "publishing a change from another replica failed; will retry",
                    metadata: ["document.id": "\(change.documentID)", "error": "\(error)"]
                )
                break
            }
        }
        guard let loaded else { return }
        do {
            let published = try state.publish(batch, store: store)
            applied.withLock { $0 = max($0, loaded) }
            if published > 0 {
                logger.info(
                    "catalogue changes published from another replica",
                    metadata: [
                        "catalogue.documents": "\(published)",
                        "template.ids": "\(batch.changes.map(\.id).joined(separator: ","))",
                        "app_policy.platforms":
                            "\(batch.policies.map(\.policy.platform.rawValue).joined(separator: ","))",
                        "experiment.ids": "\(batch.experiments.map(\.experiment.id).joined(separator: ","))",
                    ]
                )
            }
        } catch {
            logger.warning(
                "publishing changes from another replica failed; will retry",
                metadata: ["error": "\(error)"]
            )
        }
    }

    /// Adds document `id` as it is now to `batch`; change requests, the review rules, webhook
    /// subscriptions and admin tokens (`onAdminTokens`) are not served to clients (the dispatcher reads the last) and are skipped.
    private func load(documentID id: String, into batch: inout CatalogueState.Batch) throws {
        switch DocumentKind(documentID: id) {
        case .changeRequest, .reviewRules, .webhook, .adminToken:
            return
        case .experiment:
            guard let name = StoredDocuments.experimentName(documentID: id) else { return }
            do {
                batch.experiments.append(try store.experiment(id: name))
            } catch .notFound {
                return
            }
        case .appPolicy:
            guard let platform = StoredDocuments.appPolicyPlatform(documentID: id) else { return }
            do {
                batch.policies.append(try store.policy(platform: platform))
            } catch .notFound {
                return
            }
        case .template:
            do {
                batch.changes.append(.upsert(try store.template(id: id)))
            } catch .deleted(_, let revision) {
                batch.changes.append(.remove(id: id, revision: revision))
            } catch .notFound {
                return
            }
        }
    }
}
