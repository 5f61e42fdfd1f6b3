import EmptyStateStore
import GRDB

/// The endpoint rows of webhook subscriptions on SQLite (`WebhookTransaction`), written in the
/// transaction of the subscription's revision.
extension SQLiteCatalogueTransaction {
    func writeEndpoint(
        _ endpoint: WebhookOutbox.Endpoint,
        secret: WebhookOutbox.SecretChange
    ) throws(StoreError)
        -> Int64?
    {
        try sql {
            let columns: StatementArguments = [
                endpoint.webhookID, endpoint.url, endpoint.eventsText, endpoint.enabled ? 1 : 0,
            ]
            switch secret {
            case .set(let value):
                try db.execute(
                    sql: """
                        INSERT INTO webhook_endpoint (webhook_id, url, events, enabled, secret) VALUES (?, ?, ?, ?, ?)
                        """,
                    arguments: columns + [value]
                )
            case .keep:
                try db.execute(
                    sql: "UPDATE webhook_endpoint SET url = ?, events = ?, enabled = ? WHERE webhook_id = ?",
                    arguments: [endpoint.url, endpoint.eventsText, endpoint.enabled ? 1 : 0, endpoint.webhookID]
                )
                guard db.changesCount == 1 else {
                    throw StoreError.database("webhook \(endpoint.webhookID) has no endpoint")
                }
            case .rotate(let value, let previousUntil):
                try db.execute(
                    sql: """
                        UPDATE webhook_endpoint SET url = ?, events = ?, enabled = ?,
                            previous_secret = CASE WHEN ? IS NULL THEN NULL ELSE secret END,
                            previous_expires_at = ?, secret = ?
                        WHERE webhook_id = ?
                        """,
                    arguments: [
                        endpoint.url, endpoint.eventsText, endpoint.enabled ? 1 : 0, previousUntil, previousUntil,
                        value,
                        endpoint.webhookID,
                    ]
                )
                guard db.changesCount == 1 else {
                    throw StoreError.database("webhook \(endpoint.webhookID) has no endpoint")
                }
            }
            return try Int64?.fetchOne(
                db,
                sql: "SELECT previous_expires_at FROM webhook_endpoint WHERE webhook_id = ?",
                arguments: [endpoint.webhookID]
            ) ?? nil
        }
    }

    func removeEndpoint(webhookID: String) throws(StoreError) {
        try sql {
            // The attempts go with their deliveries (ON DELETE CASCADE).
            try db.execute(sql: "DELETE FROM webhook_delivery WHERE webhook_id = ?", arguments: [webhookID])
            try db.execute(sql: "DELETE FROM webhook_endpoint WHERE webhook_id = ?", arguments: [webhookID])
        }
    }
}
