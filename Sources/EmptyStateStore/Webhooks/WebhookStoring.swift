/// The webhooks' side of the store: the subscriptions as read, and the outbox, which is also the
/// delivery log. Both backends implement it on the templates database, because the outbox rows
/// must be written in the transaction of the change they tell of (`CatalogueTransaction.record`):
/// committed with it (none lost on `kill -9`), or not at all (none sent for a change that rolled
/// back).
///
/// Subscriptions are versioned documents of the catalogue (kind `webhook`): created, changed,
/// rotated and deleted through `TemplateStoring.write` (`CatalogueWrite+Webhooks`), so they get
/// revisions, `If-Match` and the audit trail like app policies. Their secrets are kept beside
/// them (`webhook_endpoint`), never in a revision.
///
/// Deliveries are claimed with a lease (`claimDeliveries`): a claim marks rows as being
/// attempted by one dispatcher until `lease` ms from now, so with several replicas on one
/// PostgreSQL (`FOR UPDATE SKIP LOCKED`), or several processes on one SQLite file (the writer
/// lock), each attempt is made by one of them. A dispatcher that dies mid-attempt leaves its
/// lease to run out; the delivery is then claimed again (receivers deduplicate by
/// `webhook-id`). Every method is synchronous, for worker threads.
package protocol WebhookStoring: Sendable {
    /// Every webhook, by id, with how its deliveries are doing.
    func webhooks() throws(StoreError) -> [(webhook: StoredWebhook, health: WebhookHealth)]

    /// The webhook `id`.
    /// - Throws: `.notFound(id:)` when there is none (or it was deleted).
    func webhook(id: String) throws(StoreError) -> StoredWebhook

    /// A webhook's deliveries, newest first, each with its attempts (without the body).
    /// - Parameter status: only those with this status, when given.
    /// - Throws: `.notFound(id:)` when there is no such webhook.
    func deliveries(
        webhookID: String,
        status: WebhookDelivery.Status?,
        page: Int,
        pageSize: Int
    ) throws(StoreError) -> Page<WebhookDelivery>

    /// One delivery of webhook `webhookID`, with its attempts and its body.
    /// - Throws: `.notFound(id:)` naming the webhook or the delivery.
    func delivery(webhookID: String, id: String) throws(StoreError) -> WebhookDelivery

    /// Sends delivery `id` again: a finished one as a new delivery (the same `webhook-id` and
    /// body, attempted at once, noting `redeliveryOf` and who asked); a pending one is attempted
    /// now instead of at its scheduled time, an attempt that does not use up its retry schedule
    /// (`ClaimedDelivery.scheduled`).
    /// - Returns: the delivery that will be attempted.
    /// - Throws: `.notFound(id:)` naming the webhook or the delivery.
    func redeliver(webhookID: String, id: String, actor: String, now: Int64) throws(StoreError) -> WebhookDelivery

    /// Queues a `webhook.test` delivery to webhook `webhookID` (a ping), attempted at once.
    /// - Throws: `.notFound(id:)` when there is no such webhook.
    func queuePing(webhookID: String, actor: String, now: Int64) throws(StoreError) -> WebhookDelivery

    /// Claims up to `limit` deliveries due at `now`, of enabled webhooks, oldest due first, at
    /// most `perWebhook - inFlight[webhook]` of each webhook, and leases them until `now + lease`.
    /// Each claimed delivery's attempt count is raised: the attempt counts even if its dispatcher
    /// dies.
    func claimDeliveries(
        now: Int64,
        limit: Int,
        perWebhook: Int,
        inFlight: [String: Int],
        lease: Int64
    ) throws(StoreError) -> [ClaimedDelivery]

    /// Records an attempt in the log and moves its delivery on (succeeded, retry at, failed). A
    /// claim that is no longer the row's (its lease ran out and another dispatcher claimed it)
    /// records the attempt but leaves the delivery as the newer claim has it.
    func recordAttempt(_ outcome: AttemptOutcome) throws(StoreError)

    /// Gives back claims not attempted (a dispatcher shutting down with work it had not started,
    /// or cut short): due again at `now`, their attempt count lowered back.
    func releaseClaims(_ claims: [(deliveryID: String, claim: String)], now: Int64) throws(StoreError)

    /// How many deliveries are pending, and when the oldest of them was created (ms); for
    /// `/metrics`.
    func outboxBacklog() throws(StoreError) -> (pending: Int, oldestCreatedAt: Int64?)

    /// Deletes finished deliveries (and their attempts) finished before `before` (ms).
    /// - Returns: how many deliveries were deleted.
    @discardableResult
    func pruneDeliveries(finishedBefore before: Int64) throws(StoreError) -> Int

    /// Tells `bell` each time a catalogue transaction that queued deliveries has committed (and
    /// when a redelivery or ping was queued), so the dispatcher attempts them at once instead of
    /// at its next poll. Set once, by the application.
    func ringOnQueued(_ bell: @escaping @Sendable () -> Void)
}
