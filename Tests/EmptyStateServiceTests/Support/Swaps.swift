import Synchronization

/// What each publication of a `CatalogueState` told the memo to forget (its `onSwap`), in order.
final class Swaps: Sendable {
    private let list = Mutex<[Set<String>?]>([])

    func append(_ names: Set<String>?) { list.withLock { $0.append(names) } }
    func reset() { list.withLock { $0 = [] } }
    var all: [Set<String>?] { list.withLock { $0 } }
}
