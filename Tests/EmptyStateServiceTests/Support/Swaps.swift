import HTTPServer
import Synchronization

@testable import EmptyStateService

/// What each publication of a `CatalogueState` told the memo to forget (its `onSwap`), in order.
final class Swaps: Sendable {
    private let list = Mutex<[CatalogueState.Invalidation]>([])

    func append(_ invalidation: CatalogueState.Invalidation) { list.withLock { $0.append(invalidation) } }
    func reset() { list.withLock { $0 = [] } }
    var all: [CatalogueState.Invalidation] { list.withLock { $0 } }

    /// The tags the swap at `index` named; `nil` when there is none, or it forgot everything.
    func tags(at index: Int) -> Set<CatalogueMemoTag>? {
        let all = all
        guard all.indices.contains(index), case .tags(let tags) = all[index] else { return nil }
        return tags
    }

    /// The tags the last swap named (see `tags(at:)`).
    var lastTags: Set<CatalogueMemoTag>? { tags(at: all.count - 1) }
}

extension HTTPResponse {
    /// The catalogue's tag the memo would remember this answer under; `nil` when it has none.
    var catalogueTag: CatalogueMemoTag? { memoTag as? CatalogueMemoTag }
}
