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
    private let onSwap: @Sendable () -> Void

    /// - Parameter onSwap: told after a new snapshot is swapped in (and before `publish` or
    ///   `republish` returns): what remembers answers made from the old one forgets them there.
    package init(_ snapshot: CatalogueSnapshot, onSwap: @escaping @Sendable () -> Void = {}) {
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
    }

    /// Applies a committed change to the served catalogue (re-rendering only that template and
    /// the bundles) and swaps it in. A change older than what is served for that template is
    /// skipped, so concurrent editors' publications cannot go back in time. When the change does
    /// not fit the catalogue in memory (an alias moved between templates by writes published out
    /// of order), the catalogue is rebuilt from the store.
    package func publish(_ change: Change, store: TemplateStore) throws {
        try publishing.withLock { _ in
            let base = snapshot
            let (id, revision): (String, Int)
            switch change {
            case .upsert(let stored): (id, revision) = (stored.template.id, stored.revision)
            case .remove(let removed, let at): (id, revision) = (removed, at)
            }
            if let served = base.revisions[id], served >= revision { return }
            var templates = base.catalogue.templates.filter { $0.id != id }
            if case .upsert(let stored) = change { templates.append(stored.template) }
            var revisions = base.revisions
            revisions[id] = revision
            let next: CatalogueSnapshot
            if let catalogue = try? Catalogue(templates: templates) {
                next = CatalogueSnapshot(catalogue: catalogue, revisions: revisions, reusing: base)
            } else {
                next = try rebuild(from: store, reusing: base)
            }
            current.withLock { $0 = next }
            onSwap()
        }
    }

    /// Rebuilds the snapshot from the store's live templates (reusing what did not change) and
    /// swaps it in: at start, and when an in-memory change cannot apply. On failure the served
    /// catalogue stays as it was.
    package func republish(from store: TemplateStore) throws {
        try publishing.withLock { _ in
            let next = try rebuild(from: store, reusing: snapshot)
            current.withLock { $0 = next }
            onSwap()
        }
    }

    private func rebuild(from store: TemplateStore, reusing base: CatalogueSnapshot) throws -> CatalogueSnapshot {
        let stored = try store.liveTemplates()
        let catalogue = try Catalogue(templates: stored.map(\.template))
        let revisions = Dictionary(uniqueKeysWithValues: stored.map { ($0.template.id, $0.revision) })
        return CatalogueSnapshot(catalogue: catalogue, revisions: revisions, reusing: base)
    }
}
