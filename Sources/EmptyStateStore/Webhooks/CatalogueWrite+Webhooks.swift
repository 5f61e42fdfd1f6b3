import EmptyStateCore
import JSONCoding

/// The writes of webhook subscriptions, as edits of a catalogue transaction: each is a revision of
/// the subscription's document (so `If-Match`, revisions and the audit trail work as for app
/// policies and experiments), and its endpoint row (URL, event types, state, secrets) is written
/// in the same transaction (`WebhookTransaction`). No secret is ever part of a revision: a
/// rotation is a revision whose changed field is `/secret`, its document unchanged.
extension CatalogueWrite {
    /// Creates webhook `id` (a new id, `WebhookOutbox.newWebhookID()`) with its first secret.
    /// - Throws: `.alreadyExists` when the id is taken.
    package func createWebhook(
        id: String,
        _ subscription: WebhookSubscription,
        secret: String,
        actor: String
    ) throws(StoreError) -> StoredWebhook {
        let rowID = StoredDocuments.webhookID(id)
        let plan = try CatalogueRules.put(name: id, current: try current(rowID, kind: .webhook), precondition: .absent)
        let write = RevisionWrite.webhook(subscription, rowID: rowID, plan: plan, actor: actor)
        queue(write, edited: true)
        let previous = try transaction.writeEndpoint(Self.endpoint(id, subscription), secret: .set(secret))
        return StoredWebhook(id: id, subscription: subscription, written: write, previousSecretExpiresAt: previous)
    }

    /// Replaces the document of webhook `id` at revision `expectedRevision`; its secrets stay.
    /// - Throws: `.notFound`, `.deleted` (a deleted webhook is gone: `notFound` to callers), or
    ///   `.stale`.
    package func putWebhook(
        id: String,
        _ subscription: WebhookSubscription,
        expectedRevision: Int,
        actor: String
    ) throws(StoreError) -> StoredWebhook {
        let rowID = StoredDocuments.webhookID(id)
        let plan = try CatalogueRules.put(
            name: id,
            current: try current(rowID, kind: .webhook),
            precondition: .revision(expectedRevision)
        )
        let write = RevisionWrite.webhook(subscription, rowID: rowID, plan: plan, actor: actor)
        queue(write, edited: true)
        let previous = try transaction.writeEndpoint(Self.endpoint(id, subscription), secret: .keep)
        return StoredWebhook(id: id, subscription: subscription, written: write, previousSecretExpiresAt: previous)
    }

    /// Gives webhook `id` a new secret. The current one keeps signing beside it until
    /// `previousUntil` (ms), so receivers can switch without losing a delivery, or stops at once
    /// when `previousUntil` is `nil`.
    /// - Throws: as `putWebhook`.
    package func rotateWebhookSecret(
        id: String,
        expectedRevision: Int,
        secret: String,
        previousUntil: Int64?,
        actor: String
    ) throws(StoreError) -> StoredWebhook {
        let rowID = StoredDocuments.webhookID(id)
        let live = try CatalogueRules.change(
            name: id,
            current: try current(rowID, kind: .webhook),
            expectedRevision: expectedRevision
        )
        let subscription = try StoredDocuments.webhook(fromText: live.document)
        let write = RevisionWrite(
            documentID: rowID,
            kind: StoredDocuments.webhookKind,
            revision: live.revision + 1,
            action: .replace,
            document: live.document,
            changedFields: StoredDocuments.changedFieldsText(["/secret"]),
            at: Timestamp.now(),
            by: actor,
            note: previousUntil == nil
                ? "secret rotated; the previous secret no longer signs"
                : "secret rotated; the previous secret signs beside it until \(Timestamp.format(milliseconds: previousUntil!))"
        )
        queue(write, edited: true)
        let previous = try transaction.writeEndpoint(
            Self.endpoint(id, subscription),
            secret: .rotate(secret, previousUntil: previousUntil)
        )
        return StoredWebhook(id: id, subscription: subscription, written: write, previousSecretExpiresAt: previous)
    }

    /// Deletes webhook `id` at revision `expectedRevision`: its endpoint, secrets and deliveries
    /// go (nothing more is sent to it); the revisions of its document stay in the audit trail.
    /// - Returns: the revision that records the deletion.
    package func deleteWebhook(id: String, expectedRevision: Int, actor: String) throws(StoreError) -> Int {
        let rowID = StoredDocuments.webhookID(id)
        let live = try CatalogueRules.change(
            name: id,
            current: try current(rowID, kind: .webhook),
            expectedRevision: expectedRevision
        )
        let deletion = RevisionWrite.deletion(id: rowID, revision: live.revision + 1, actor: actor)
        queueDeletion(deletion)
        try transaction.removeEndpoint(webhookID: id)
        return deletion.revision
    }

    private static func endpoint(_ id: String, _ subscription: WebhookSubscription) -> WebhookOutbox.Endpoint {
        WebhookOutbox.Endpoint(
            webhookID: id,
            url: subscription.url,
            events: subscription.events,
            enabled: subscription.enabled
        )
    }
}

extension RevisionWrite {
    /// A webhook subscription written as `plan` decided; its changed fields are the members that
    /// differ from the subscription it replaces.
    static func webhook(
        _ subscription: WebhookSubscription,
        rowID: String,
        plan: CatalogueRules.Plan,
        actor: String
    ) -> RevisionWrite {
        let document = subscription.document
        let previous: JSONValue? = plan.replaced.flatMap { try? JSONParser.parse(Array($0.document.utf8)) }
        var changed: [String] = []
        if case .object(let members) = document {
            for member in members where previous?[member.key] != member.value { changed.append("/" + member.key) }
        }
        return RevisionWrite(
            documentID: rowID,
            kind: StoredDocuments.webhookKind,
            revision: plan.revision,
            action: plan.action,
            document: StoredDocuments.text(of: document),
            changedFields: StoredDocuments.changedFieldsText(changed),
            at: Timestamp.now(),
            by: actor
        )
    }
}

extension StoredWebhook {
    /// `subscription` as `write` stored it.
    init(id: String, subscription: WebhookSubscription, written write: RevisionWrite, previousSecretExpiresAt: Int64?) {
        self.init(
            id: id,
            subscription: subscription,
            revision: write.revision,
            updatedAt: write.at,
            updatedBy: write.by,
            previousSecretExpiresAt: previousSecretExpiresAt
        )
    }
}
