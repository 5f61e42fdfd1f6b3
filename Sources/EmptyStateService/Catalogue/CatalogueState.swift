import EmptyStateCore
import EmptyStateStore
import Synchronization

/// The catalogue snapshot clients are served from, and how a published change replaces it.
///
/// Readers take the current snapshot (a reference under a briefly held lock) and never wait for
/// a writer: a writer builds the next snapshot without the lock and swaps it in. Publications are
/// serialized among themselves so two editors cannot swap in each other's older state.
package final class CatalogueState: Sendable {
    private let current: Mutex<CatalogueSnapshot>
    private let publishing = Mutex<Void>(())
    /// Called after each swap, before the publication returns.
    private let onSwap: @Sendable (Invalidation) -> Void

    /// - Parameter onSwap: told after a new snapshot is swapped in (and before `publish` or
    ///   `republish` returns) which answers may differ now (`Invalidation`, decided by
    ///   `CatalogueSnapshot.applying`: a template's names and the bundles, a platform's app
    ///   status, or everything after a rebuild): what remembers answers made from the old
    ///   snapshot forgets those.
    package init(_ snapshot: CatalogueSnapshot, onSwap: @escaping @Sendable (Invalidation) -> Void = { _ in }) {
        current = Mutex(snapshot)
        self.onSwap = onSwap
    }

    /// The snapshot to answer one request from.
    package var snapshot: CatalogueSnapshot {
        current.withLock { $0 }
    }

    /// A committed change to publish.
    package enum Change: Sendable {
        case upsert(StoredTemplate)
        case remove(id: String, revision: Int)

        var id: String {
            switch self {
            case .upsert(let stored): return stored.template.id
            case .remove(let id, _): return id
            }
        }

        var revision: Int {
            switch self {
            case .upsert(let stored): return stored.revision
            case .remove(_, let revision): return revision
            }
        }
    }

    /// Applies a committed change to the served catalogue and swaps it in; costs the changed
    /// template, not the catalogue (see `CatalogueSnapshot.applying`). A change older than what
    /// is served for that template is skipped, so concurrent editors' publications cannot go
    /// back in time. When the change does not fit the catalogue in memory (an alias moved
    /// between templates by writes published out of order), the catalogue is rebuilt from the
    /// store.
    /// - Returns: whether the change was published (`false`: what is served is as new).
    @discardableResult
    package func publish(_ change: Change, store: any TemplateStoring) throws -> Bool {
        try publishing.withLock { _ in
            let base = snapshot
            if let served = base.revision(of: change.id), served >= change.revision { return false }
            if let (next, tags) = base.applying(change) {
                current.withLock { $0 = next }
                onSwap(.tags(tags))
            } else {
                let next = try rebuild(from: store, reusing: base)
                current.withLock { $0 = next }
                onSwap(.everything)
            }
            return true
        }
    }

    /// The documents one committed transaction changed, to be served together.
    package struct Batch: Sendable {
        package var changes: [Change] = []
        package var policies: [StoredAppPolicy] = []
        package var experiments: [StoredExperiment] = []

        package init(changes: [Change] = [], policies: [StoredAppPolicy] = [], experiments: [StoredExperiment] = []) {
            self.changes = changes
            self.policies = policies
            self.experiments = experiments
        }

        package var isEmpty: Bool { changes.isEmpty && policies.isEmpty && experiments.isEmpty }
    }

    /// Applies every document of `batch` (a change request's publication, or what a follower
    /// read of other replicas' transactions) and swaps the result in **once**: a reader sees all
    /// of it or none of it. Each document older than what is served is skipped, as by the
    /// single-document `publish`s; when a template change does not fit the catalogue in memory,
    /// the catalogue is rebuilt from the store (which holds the whole committed transaction).
    /// - Returns: the number of documents published (0: what is served is as new).
    @discardableResult
    package func publish(_ batch: Batch, store: any TemplateStoring) throws -> Int {
        try publishing.withLock { _ in
            var next = snapshot
            var tags: Set<CatalogueMemoTag> = []
            var published = 0
            var rebuild = false
            for change in batch.changes {
                if let served = next.revision(of: change.id), served >= change.revision { continue }
                guard let (applied, changed) = next.applying(change) else {
                    rebuild = true
                    break
                }
                next = applied
                tags.formUnion(changed)
                published += 1
            }
            if rebuild {
                next = try self.rebuild(from: store, reusing: snapshot)
                published = batch.changes.count + batch.policies.count + batch.experiments.count
                current.withLock { $0 = next }
                onSwap(.everything)
                return published
            }
            for policy in batch.policies {
                if let served = next.appStatus.policy(for: policy.policy.platform), served.revision >= policy.revision {
                    continue
                }
                let (applied, changed) = next.applying(policy: policy)
                next = applied
                tags.formUnion(changed)
                published += 1
            }
            for experiment in batch.experiments {
                guard let (applied, changed) = next.applying(experiment: experiment) else { continue }
                next = applied
                tags.formUnion(changed)
                published += 1
            }
            guard published > 0 else { return 0 }
            current.withLock { $0 = next }
            onSwap(.tags(tags))
            return published
        }
    }

    /// Rebuilds the snapshot from the store's live templates (reusing what did not change) and
    /// swaps it in: at start, and when an in-memory change cannot apply. On failure the served
    /// catalogue stays as it was.
    package func republish(from store: any TemplateStoring) throws {
        try publishing.withLock { _ in
            let next = try rebuild(from: store, reusing: snapshot)
            current.withLock { $0 = next }
            onSwap(.everything)
        }
    }

    /// Serves a committed app policy from the next request on; costs that platform's answers.
    /// A policy older than the one served is skipped, as for templates.
    /// - Returns: whether the policy was published (`false`: what is served is as new).
    @discardableResult
    package func publish(policy stored: StoredAppPolicy) -> Bool {
        publishing.withLock { _ in
            let base = snapshot
            if let served = base.appStatus.policy(for: stored.policy.platform), served.revision >= stored.revision {
                return false
            }
            let (next, tags) = base.applying(policy: stored)
            current.withLock { $0 = next }
            onSwap(.tags(tags))
            return true
        }
    }

    /// Publishes the policies other processes sharing the store committed since they were last
    /// read: one small read of each platform's revision, then the changed policies only.
    /// - Returns: the platforms whose policy was published.
    @discardableResult
    package func refreshPolicies(from store: any TemplateStoring) throws -> [Platform] {
        let book = snapshot.appStatus
        var published: [Platform] = []
        for (platform, revision) in try store.policyRevisions().sorted(by: { $0.key.rawValue < $1.key.rawValue })
        where revision > (book.policy(for: platform)?.revision ?? 0) {
            publish(policy: try store.policy(platform: platform))
            published.append(platform)
        }
        return published
    }

    /// Serves a committed experiment change (started, edited, stopped, shipped) from the next
    /// request on; costs the experiment's template. An experiment revision older than the one
    /// served is skipped, as for templates.
    /// - Returns: whether the change was published (`false`: what is served is as new).
    @discardableResult
    package func publish(experiment stored: StoredExperiment) -> Bool {
        publishing.withLock { _ in
            guard let (next, tags) = snapshot.applying(experiment: stored) else { return false }
            current.withLock { $0 = next }
            onSwap(.tags(tags))
            return true
        }
    }

    /// Publishes the experiment changes other processes sharing the store committed since they
    /// were last read (the SQLite path; on PostgreSQL the change feed names each one).
    /// - Returns: the ids of the experiments published.
    @discardableResult
    package func refreshExperiments(from store: any TemplateStoring) throws -> [String] {
        let served = snapshot
        var published: [String] = []
        for stored in try store.liveExperiments()
        where stored.revision > (served.experimentRevision(of: stored.experiment.id) ?? 0) {
            if publish(experiment: stored) { published.append(stored.experiment.id) }
        }
        return published
    }

    private func rebuild(from store: any TemplateStoring, reusing base: CatalogueSnapshot) throws -> CatalogueSnapshot {
        let stored = try store.liveTemplates()
        let catalogue = try Catalogue(templates: stored.map(\.template))
        let revisions = Dictionary(uniqueKeysWithValues: stored.map { ($0.template.id, $0.revision) })
        let stamps = Dictionary(
            uniqueKeysWithValues: stored.map { ($0.template.id, (at: $0.updatedAt, by: $0.updatedBy)) }
        )
        return CatalogueSnapshot(
            catalogue: catalogue,
            revisions: revisions,
            stamps: stamps,
            reusing: base,
            policies: try store.livePolicies(),
            experiments: try store.liveExperiments()
        )
    }
}
