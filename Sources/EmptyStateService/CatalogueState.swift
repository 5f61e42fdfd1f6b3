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

    package init(_ snapshot: CatalogueSnapshot) {
        current = Mutex(snapshot)
    }

    /// The snapshot to answer one request from.
    package var snapshot: CatalogueSnapshot {
        current.withLock { $0 }
    }

    /// Rebuilds the snapshot from the store's live templates (reusing what did not change) and
    /// swaps it in. On failure the served catalogue stays as it was.
    /// - Returns: the new snapshot.
    @discardableResult
    package func republish(from store: TemplateStore) throws -> CatalogueSnapshot {
        try publishing.withLock { _ in
            let stored = try store.liveTemplates()
            let catalogue = try Catalogue(templates: stored.map(\.template))
            let revisions = Dictionary(uniqueKeysWithValues: stored.map { ($0.template.id, $0.revision) })
            let next = CatalogueSnapshot(catalogue: catalogue, revisions: revisions, reusing: snapshot)
            current.withLock { $0 = next }
            return next
        }
    }
}
