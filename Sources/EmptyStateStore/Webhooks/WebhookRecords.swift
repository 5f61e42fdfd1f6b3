/// A webhook subscription as stored: the document ops wrote (`WebhookSubscription`), its
/// bookkeeping, and when the secret it replaced stops signing. The secret itself is never part of
/// it: the store hands it out only to the deliveries (`ClaimedDelivery`).
package struct StoredWebhook: Sendable, Equatable {
    /// `wh_` and 20 hex digits (`StoredDocuments.webhookID(_:)` is its row id).
    package var id: String
    package var subscription: WebhookSubscription
    package var revision: Int
    package var updatedAt: String
    package var updatedBy: String
    /// While a rotated secret still signs beside the new one: until then, ms since the epoch.
    package var previousSecretExpiresAt: Int64?

    package init(
        id: String,
        subscription: WebhookSubscription,
        revision: Int,
        updatedAt: String,
        updatedBy: String,
        previousSecretExpiresAt: Int64? = nil
    ) {
        self.id = id
        self.subscription = subscription
        self.revision = revision
        self.updatedAt = updatedAt
        self.updatedBy = updatedBy
        self.previousSecretExpiresAt = previousSecretExpiresAt
    }
}

/// How a subscription's deliveries are doing, for a list of subscriptions (a console's badge).
package struct WebhookHealth: Sendable, Equatable {
    /// Deliveries not finished (waiting for their first attempt or a retry).
    package var pending: Int
    /// Deliveries that gave up (`failed`) still in the log.
    package var failed: Int
    /// The newest attempt: when (ms) and its answer's status, `nil` when none came.
    package var lastAttemptAt: Int64?
    package var lastAttemptStatus: Int?
    /// Whether the newest attempt succeeded (a 2xx).
    package var lastAttemptSucceeded: Bool?

    package init(
        pending: Int = 0,
        failed: Int = 0,
        lastAttemptAt: Int64? = nil,
        lastAttemptStatus: Int? = nil,
        lastAttemptSucceeded: Bool? = nil
    ) {
        self.pending = pending
        self.failed = failed
        self.lastAttemptAt = lastAttemptAt
        self.lastAttemptStatus = lastAttemptStatus
        self.lastAttemptSucceeded = lastAttemptSucceeded
    }
}

/// One message to one subscription, and its fate: the outbox row and its entry in the delivery
/// log at once. Times are milliseconds since the epoch.
package struct WebhookDelivery: Sendable, Equatable {
    package enum Status: String, Sendable, CaseIterable {
        /// Not delivered yet: waiting for its first attempt or its next retry.
        case pending
        /// A receiver answered 2xx.
        case succeeded
        /// Given up: the retries ran out, or the receiver answered 410 Gone.
        case failed
    }

    /// `dlv_` and 24 hex digits.
    package var id: String
    package var webhookID: String
    /// The `webhook-id` header: one per event (`msg_…`), the same in every attempt and redelivery,
    /// so receivers use it to drop a message they already processed.
    package var messageID: String
    /// The event's type (`appPolicy.published`, `webhook.test`).
    package var eventType: String
    package var status: Status
    /// Attempts made (or started) so far.
    package var attemptCount: Int
    package var createdAt: Int64
    /// When it is next tried; `nil` once finished.
    package var nextAttemptAt: Int64?
    package var finishedAt: Int64?
    /// The delivery this one sends again (`redeliver`), and who asked; `nil` for an event's own.
    package var redeliveryOf: String?
    package var requestedBy: String?
    /// The attempts, oldest first (a listing includes them; there are at most
    /// `WebhookRetrySchedule.maximumAttempts`).
    package var attempts: [WebhookAttempt]
    /// The body sent (the JSON text signed); `nil` in listings.
    package var body: String?

    package init(
        id: String,
        webhookID: String,
        messageID: String,
        eventType: String,
        status: Status,
        attemptCount: Int,
        createdAt: Int64,
        nextAttemptAt: Int64?,
        finishedAt: Int64?,
        redeliveryOf: String? = nil,
        requestedBy: String? = nil,
        attempts: [WebhookAttempt] = [],
        body: String? = nil
    ) {
        self.id = id
        self.webhookID = webhookID
        self.messageID = messageID
        self.eventType = eventType
        self.status = status
        self.attemptCount = attemptCount
        self.createdAt = createdAt
        self.nextAttemptAt = nextAttemptAt
        self.finishedAt = finishedAt
        self.redeliveryOf = redeliveryOf
        self.requestedBy = requestedBy
        self.attempts = attempts
        self.body = body
    }
}

/// One attempt at a delivery, as the delivery log shows it.
package struct WebhookAttempt: Sendable, Equatable {
    /// 1 for the first.
    package var number: Int
    package var startedAt: Int64
    /// Milliseconds from its start (name resolution included) to the end of the answer, or to
    /// the failure.
    package var latencyMilliseconds: Int64
    /// The answer's status; `nil` when none came.
    package var statusCode: Int?
    /// What went wrong: no answer (refused by the guard, DNS, connect, TLS, timeout), or an
    /// answer that is not a 2xx (`HTTP 500`, a redirect not followed). `nil` on success.
    package var error: String?
    /// The start of the answer's body (at most 1 KiB), as text.
    package var responseExcerpt: String?
    /// The address connected to (`203.0.113.7:443`).
    package var address: String?

    package init(
        number: Int,
        startedAt: Int64,
        latencyMilliseconds: Int64,
        statusCode: Int? = nil,
        error: String? = nil,
        responseExcerpt: String? = nil,
        address: String? = nil
    ) {
        self.number = number
        self.startedAt = startedAt
        self.latencyMilliseconds = latencyMilliseconds
        self.statusCode = statusCode
        self.error = error
        self.responseExcerpt = responseExcerpt
        self.address = address
    }
}

/// A delivery the dispatcher claimed: everything an attempt needs, and the claim that lets it
/// record the outcome (`WebhookStoring.recordAttempt`).
package struct ClaimedDelivery: Sendable, Equatable {
    package var id: String
    package var webhookID: String
    package var messageID: String
    package var eventType: String
    package var body: String
    /// This attempt's number (1 for the first).
    package var attempt: Int
    /// Where the retry schedule stands: the automatic attempts made so far, this one included
    /// unless an operator asked for it (`redeliver` of a pending delivery), which does not use
    /// up the schedule (`WebhookRetrySchedule.next(afterAttempt:)` takes this, not `attempt`).
    package var scheduled: Int
    package var url: String
    /// The secrets that sign it, the current one first (`whsec_…`).
    package var secrets: [String]
    /// The token of this claim: a later claim of the same row (after this one's lease ran out)
    /// has another, and this one's outcome no longer changes the row.
    package var claim: String

    package init(
        id: String,
        webhookID: String,
        messageID: String,
        eventType: String,
        body: String,
        attempt: Int,
        scheduled: Int? = nil,
        url: String,
        secrets: [String],
        claim: String
    ) {
        self.scheduled = scheduled ?? attempt
        self.id = id
        self.webhookID = webhookID
        self.messageID = messageID
        self.eventType = eventType
        self.body = body
        self.attempt = attempt
        self.url = url
        self.secrets = secrets
        self.claim = claim
    }
}

/// What an attempt did, and what the delivery becomes (`WebhookRetrySchedule.next`).
package struct AttemptOutcome: Sendable, Equatable {
    package enum Next: Sendable, Equatable {
        case succeeded
        /// Try again at this time (ms).
        case retry(at: Int64)
        case failed
    }

    package var deliveryID: String
    package var claim: String
    package var attempt: WebhookAttempt
    package var next: Next

    package init(deliveryID: String, claim: String, attempt: WebhookAttempt, next: Next) {
        self.deliveryID = deliveryID
        self.claim = claim
        self.attempt = attempt
        self.next = next
    }
}
