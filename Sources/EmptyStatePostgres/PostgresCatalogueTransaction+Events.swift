import EmptyStateStore
import Logging
import PostgresNIO

/// The events of a catalogue transaction on PostgreSQL (`CatalogueTransaction.record`): the
/// webhooks' outbox. Each event becomes a delivery row per enabled webhook subscribed to its type,
/// inserted in this transaction (under the catalogue write lock), so it commits with the change it
/// tells of or not at all. The store rings its bell once the write has committed
/// (`PostgresTemplateStore.catalogueWrite`); other replicas' dispatchers find the rows at their
/// next poll.
extension PostgresCatalogueTransaction {
    func record(_ events: [CatalogueEvent]) throws(StoreError) {
        let logger = session.logger
        let endpoints = try session.run { connection in
            try await PostgresTemplateStore.enabledEndpoints(connection, logger: logger)
        }
        guard !endpoints.isEmpty else { return }
        let rows = WebhookOutbox.rows(for: events, endpoints: endpoints, now: Timestamp.nowMilliseconds())
        guard !rows.isEmpty else { return }
        try session.run { connection in
            try await PostgresTemplateStore.insertDeliveries(rows, connection, logger: logger)
        }
    }
}
