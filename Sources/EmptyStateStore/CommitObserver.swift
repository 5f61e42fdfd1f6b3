import Synchronization

/// Who is told each commit's duration: the application's metrics, set once the application
/// exists (after the stores were opened). Stores call `tell` from their `onCommit`.
package final class CommitObserver: Sendable {
    private let observer = Mutex<(@Sendable (String, Double) -> Void)?>(nil)

    package init() {}

    package func set(_ observer: @escaping @Sendable (String, Double) -> Void) {
        self.observer.withLock { $0 = observer }
    }

    /// Reports one commit of `store` that took `seconds`.
    package func tell(_ store: String, _ seconds: Double) { observer.withLock { $0 }?(store, seconds) }
}
