import Synchronization

/// Rung by a store each time deliveries were queued and committed (`WebhookStoring.ringOnQueued`):
/// the dispatcher, told at once, attempts them within milliseconds of the commit instead of at
/// its next poll. Ringing before the commit would wake it to rows it cannot see yet, so the
/// backends ring from their commit hooks (GRDB's `afterNextTransaction`, a `PostgresSession`'s
/// `afterCommit`).
package final class OutboxBell: Sendable {
    private let listener = Mutex<(@Sendable () -> Void)?>(nil)

    package init() {}

    /// Who is told; set once.
    package func set(_ listener: @escaping @Sendable () -> Void) { self.listener.withLock { $0 = listener } }

    package func ring() { listener.withLock { $0 }?() }
}
