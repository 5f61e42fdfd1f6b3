import EmptyStateStore
import Logging
import PostgresNIO

/// The endpoint rows of webhook subscriptions on PostgreSQL (`WebhookTransaction`), written in the
/// transaction of the subscription's revision, under the catalogue write lock.
extension PostgresCatalogueTransaction {
    func writeEndpoint(
        _ endpoint: WebhookOutbox.Endpoint,
        secret: WebhookOutbox.SecretChange
    ) throws(StoreError)
        -> Int64?
    {
        let logger = session.logger
        return try session.run { connection in
            let (id, url, events, enabled) = (endpoint.webhookID, endpoint.url, endpoint.eventsText, endpoint.enabled)
            let changed: [PostgresRow]
            switch secret {
            case .set(let value):
                changed = try await connection.all(
                    """
                    INSERT INTO webhook_endpoint (webhook_id, url, events, enabled, secret)
                    VALUES (\(id), \(url), \(events), \(enabled), \(value)) RETURNING previous_expires_at
                    """,
                    logger: logger
                )
            case .keep:
                changed = try await connection.all(
                    """
                    UPDATE webhook_endpoint SET url = \(url), events = \(events), enabled = \(enabled)
                    WHERE webhook_id = \(id) RETURNING previous_expires_at
                    """,
                    logger: logger
                )
            case .rotate(let value, let previousUntil):
                let keepsPrevious = previousUntil != nil
                changed = try await connection.all(
                    """
                    UPDATE webhook_endpoint SET url = \(url), events = \(events), enabled = \(enabled),
                        previous_secret = CASE WHEN \(keepsPrevious) THEN secret END,
                        previous_expires_at = \(previousUntil), secret = \(value)
                    WHERE webhook_id = \(id) RETURNING previous_expires_at
                    """,
                    logger: logger
                )
            }
            guard let row = changed.first else { throw StoreError.database("webhook \(id) has no endpoint") }
            return try row.decode(Int64?.self)
        }
    }

    func removeEndpoint(webhookID: String) throws(StoreError) {
        let logger = session.logger
        try session.run { connection in
            // The attempts go with their deliveries (ON DELETE CASCADE).
            try await connection.all("DELETE FROM webhook_delivery WHERE webhook_id = \(webhookID)", logger: logger)
            try await connection.all("DELETE FROM webhook_endpoint WHERE webhook_id = \(webhookID)", logger: logger)
        }
    }
}
