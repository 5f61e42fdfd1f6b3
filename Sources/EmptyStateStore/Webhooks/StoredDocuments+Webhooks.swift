import JSONCoding

/// Webhook subscriptions as documents of the catalogue's tables: their row ids and their text.
extension StoredDocuments {
    package static let webhookKind = DocumentKind.webhook.rawValue
    package static let webhookPrefix = "webhook:"

    /// The store id of webhook `id`: `webhook:wh_…`, which no template id can be (a template id
    /// has no colon).
    package static func webhookID(_ id: String) -> String { webhookPrefix + id }

    /// The webhook id a store id names; `nil` for any other kind of document.
    package static func webhookName(documentID: String) -> String? {
        documentID.hasPrefix(webhookPrefix) ? String(documentID.dropFirst(webhookPrefix.count)) : nil
    }

    /// Parses a stored subscription; it was valid when written (event types are only ever
    /// added), so a failure means the store was damaged.
    /// - Throws: `StoreError.database` when the text is not JSON or no longer a subscription.
    package static func webhook(fromText text: String) throws(StoreError) -> WebhookSubscription {
        switch WebhookSubscription.parse(try json(text), eventTypes: WebhookOutbox.eventTypes) {
        case .success(let subscription): return subscription
        case .failure(let invalid):
            throw .database("a stored webhook no longer validates: \(invalid.issues.map(\.description))")
        }
    }
}
