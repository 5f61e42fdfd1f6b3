/// What a catalogue transaction provides to the writes of webhook subscriptions beside their
/// documents (`CatalogueWrite+Webhooks`): the endpoint row each subscription has, with its
/// secrets. A requirement of every `CatalogueTransaction`; kept in a protocol of its own so the
/// catalogue's contract reads as it did.
///
/// The deliveries themselves are written by `CatalogueTransaction.record(_:)` (the events of the
/// transaction, one row per subscribed webhook) in the same transaction.
package protocol WebhookTransaction {
    /// Creates or updates the endpoint of `endpoint.webhookID`: its URL, event types and state,
    /// and its secrets as `secret` says (`.set` creates it; `.keep` requires it to exist).
    /// - Returns: until when (ms) the previous secret still signs, as the endpoint now has it.
    @discardableResult
    func writeEndpoint(
        _ endpoint: WebhookOutbox.Endpoint,
        secret: WebhookOutbox.SecretChange
    ) throws(StoreError)
        -> Int64?

    /// Removes webhook `webhookID`'s endpoint, its secrets and every delivery of it (pending ones
    /// are not sent; its log goes with it).
    func removeEndpoint(webhookID: String) throws(StoreError)
}

extension WebhookTransaction {
    /// A transaction that keeps no webhooks (a test's recording transaction) refuses to write
    /// them; both backends implement these.
    package func writeEndpoint(
        _ endpoint: WebhookOutbox.Endpoint,
        secret: WebhookOutbox.SecretChange
    ) throws(StoreError)
        -> Int64?
    {
        throw .database("this transaction keeps no webhooks")
    }

    package func removeEndpoint(webhookID: String) throws(StoreError) {
        throw .database("this transaction keeps no webhooks")
    }
}
