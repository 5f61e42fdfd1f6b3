import EmptyStateStore
import GRDB

/// The events of a catalogue transaction on SQLite (`CatalogueTransaction.record`): the webhooks'
/// outbox. Each event becomes a delivery row per enabled webhook subscribed to its type, inserted
/// in this transaction, so it commits with the change it tells of or not at all. Once the
/// transaction has committed, the store's bell wakes the dispatcher.
extension SQLiteCatalogueTransaction {
    func record(_ events: [CatalogueEvent]) throws(StoreError) {
        let bell = bell
        try sql {
            let endpoints = try SQLiteTemplateStore.enabledEndpoints(db)
            guard !endpoints.isEmpty else { return }
            let rows = WebhookOutbox.rows(for: events, endpoints: endpoints, now: Timestamp.nowMilliseconds())
            guard !rows.isEmpty else { return }
            try SQLiteTemplateStore.insertDeliveries(rows, db)
            if let bell { db.afterNextTransaction(onCommit: { _ in bell.ring() }) }
        }
    }
}
