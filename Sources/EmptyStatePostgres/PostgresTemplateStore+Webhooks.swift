import EmptyStateStore
import Logging
import PostgresNIO

/// Webhooks on PostgreSQL (`WebhookStoring`): the subscriptions as read (documents of kind
/// `webhook` and their `webhook_endpoint`), and the outbox, `webhook_delivery` with
/// `webhook_attempt`, shared by every replica.
///
/// A claim is one transaction that locks the due rows it reads with `FOR UPDATE SKIP LOCKED`,
/// takes what `WebhookOutbox.select` allows and leases them under a token of its own: replicas
/// claiming at the same moment skip each other's rows, so each attempt is made by one of them.
/// None of these take the catalogue write lock: the dispatcher never waits behind a publication.
extension PostgresTemplateStore: WebhookStoring {
    package func webhooks() throws(StoreError) -> [(webhook: StoredWebhook, health: WebhookHealth)] {
        let logger = logger
        return try readConnection { client in
            let hooks = try await Self.webhookRows(client, id: nil, logger: logger)
            var health: [String: WebhookHealth] = [:]
            for try await (id, pending, failed) in try await client.query(
                """
                SELECT webhook_id, COUNT(*) FILTER (WHERE status = 'pending'), COUNT(*) FILTER (WHERE status = 'failed')
                FROM webhook_delivery GROUP BY webhook_id
                """,
                logger: logger
            ).decode((String, Int, Int).self) {
                health[id] = WebhookHealth(pending: pending, failed: failed)
            }
            for try await (id, at, status, ok) in try await client.query(
                """
                SELECT DISTINCT ON (d.webhook_id) d.webhook_id, a.started_at, a.status_code, a.error IS NULL
                FROM webhook_attempt a JOIN webhook_delivery d ON d.id = a.delivery_id
                ORDER BY d.webhook_id, a.started_at DESC
                """,
                logger: logger
            ).decode((String, Int64, Int?, Bool).self) {
                var summary = health[id] ?? WebhookHealth()
                summary.lastAttemptAt = at
                summary.lastAttemptStatus = status
                summary.lastAttemptSucceeded = ok
                health[id] = summary
            }
            return hooks.map { ($0, health[$0.id] ?? WebhookHealth()) }
        }
    }

    package func webhook(id: String) throws(StoreError) -> StoredWebhook {
        let logger = logger
        return try readConnection { client in try await Self.liveWebhook(client, id: id, logger: logger) }
    }

    package func deliveries(
        webhookID: String,
        status: WebhookDelivery.Status?,
        page: Int,
        pageSize: Int
    ) throws(StoreError) -> Page<WebhookDelivery> {
        let logger = logger
        let statusName = status?.rawValue
        return try readConnection { client in
            _ = try await Self.liveWebhook(client, id: webhookID, logger: logger)
            var total = 0
            for try await count in try await client.query(
                """
                SELECT COUNT(*) FROM webhook_delivery
                WHERE webhook_id = \(webhookID) AND (\(statusName)::text IS NULL OR status = \(statusName))
                """,
                logger: logger
            ).decode(Int.self) {
                total = count
            }
            var deliveries: [WebhookDelivery] = []
            let rows = try await client.all(
                """
                SELECT \(unescaped: Self.deliveryColumns), NULL::text FROM webhook_delivery
                WHERE webhook_id = \(webhookID) AND (\(statusName)::text IS NULL OR status = \(statusName))
                ORDER BY created_at DESC, seq DESC LIMIT \(pageSize) OFFSET \((page - 1) * pageSize)
                """,
                logger: logger
            )
            for row in rows { deliveries.append(try Self.delivery(row)) }
            let attempts = try await Self.attempts(client, of: deliveries.map(\.id), logger: logger)
            for index in deliveries.indices { deliveries[index].attempts = attempts[deliveries[index].id] ?? [] }
            return Page(items: deliveries, page: page, pageSize: pageSize, total: total)
        }
    }

    package func delivery(webhookID: String, id: String) throws(StoreError) -> WebhookDelivery {
        let logger = logger
        return try readConnection { client in
            _ = try await Self.liveWebhook(client, id: webhookID, logger: logger)
            return try await Self.delivery(client, id: id, webhookID: webhookID, logger: logger)
        }
    }

    package func redeliver(
        webhookID: String,
        id: String,
        actor: String,
        now: Int64
    ) throws(StoreError) -> WebhookDelivery {
        let logger = logger
        let delivery = try transaction { connection in
            _ = try await Self.liveWebhook(connection, id: webhookID, logger: logger)
            let original = try await Self.delivery(connection, id: id, webhookID: webhookID, logger: logger)
            if original.status == .pending {
                try await connection.all(
                    "UPDATE webhook_delivery SET next_attempt_at = LEAST(next_attempt_at, \(now)), expedite = 1 WHERE id = \(id)",
                    logger: logger
                )
                return try await Self.delivery(connection, id: id, webhookID: webhookID, logger: logger)
            }
            let copy = WebhookOutbox.redelivery(
                of: (original.id, original.webhookID, original.messageID, original.eventType, original.body ?? ""),
                actor: actor,
                now: now
            )
            try await Self.insertDeliveries([copy], connection, logger: logger)
            return try await Self.delivery(connection, id: copy.id, webhookID: webhookID, logger: logger)
        }
        outboxBell.ring()
        return delivery
    }

    package func queuePing(webhookID: String, actor: String, now: Int64) throws(StoreError) -> WebhookDelivery {
        let logger = logger
        let delivery = try transaction { connection in
            _ = try await Self.liveWebhook(connection, id: webhookID, logger: logger)
            let ping = WebhookOutbox.ping(webhookID: webhookID, actor: actor, now: now)
            try await Self.insertDeliveries([ping], connection, logger: logger)
            return try await Self.delivery(connection, id: ping.id, webhookID: webhookID, logger: logger)
        }
        outboxBell.ring()
        return delivery
    }

    package func claimDeliveries(
        now: Int64,
        limit: Int,
        perWebhook: Int,
        inFlight: [String: Int],
        lease: Int64
    ) throws(StoreError) -> [ClaimedDelivery] {
        guard limit > 0 else { return [] }
        let logger = logger
        // The dispatcher polls every second: with nothing due, one read answers it, so an idle
        // outbox opens no transaction (and counts no commit in `store_commit_duration_seconds`).
        let anythingDue = try readConnection { connection in
            // Read the one row to the end: the connection goes back to the pool with no query
            // left open on it.
            var found = false
            for try await _ in try await connection.query(
                """
                SELECT 1 FROM webhook_delivery d
                JOIN webhook_endpoint e ON e.webhook_id = d.webhook_id AND e.enabled
                WHERE d.status = 'pending' AND d.next_attempt_at <= \(now)
                    AND (d.lease_until IS NULL OR d.lease_until <= \(now))
                LIMIT 1
                """,
                logger: logger
            ).decode(Int32.self) { found = true }
            return found
        }
        guard anythingDue else { return [] }
        let claim = WebhookOutbox.newID("clm_")
        return try transaction { connection in
            var due: [(id: String, webhookID: String)] = []
            for try await (id, webhookID) in try await connection.query(
                """
                SELECT d.id, d.webhook_id FROM webhook_delivery d
                JOIN webhook_endpoint e ON e.webhook_id = d.webhook_id AND e.enabled
                WHERE d.status = 'pending' AND d.next_attempt_at <= \(now)
                    AND (d.lease_until IS NULL OR d.lease_until <= \(now))
                ORDER BY d.next_attempt_at, d.created_at LIMIT \(limit * 4)
                FOR UPDATE OF d SKIP LOCKED
                """,
                logger: logger
            ).decode((String, String).self) {
                due.append((id, webhookID))
            }
            let chosen = WebhookOutbox.select(due, limit: limit, perWebhook: perWebhook, inFlight: inFlight)
            guard !chosen.isEmpty else { return [] }
            var claimed: [ClaimedDelivery] = []
            for try await (id, webhookID, messageID, eventType, body, attempts, scheduled, url, secret, previous)
                in try await connection
                .query(
                    """
                    WITH taken AS (
                        UPDATE webhook_delivery SET attempts = attempts + 1, manual_attempts = manual_attempts + expedite,
                            expedite = 0, lease_until = \(now + lease), claim = \(claim)
                        WHERE id = ANY(\(chosen)) RETURNING *)
                    SELECT t.id, t.webhook_id, t.message_id, t.event_type, t.body, t.attempts,
                        t.attempts - t.manual_attempts, e.url, e.secret,
                        CASE WHEN e.previous_expires_at > \(now) THEN e.previous_secret END
                    FROM taken t JOIN webhook_endpoint e ON e.webhook_id = t.webhook_id
                    ORDER BY t.next_attempt_at, t.created_at
                    """,
                    logger: logger
                ).decode((String, String, String, String, String, Int, Int, String, String, String?).self)
            {
                claimed.append(
                    ClaimedDelivery(
                        id: id,
                        webhookID: webhookID,
                        messageID: messageID,
                        eventType: eventType,
                        body: body,
                        attempt: attempts,
                        scheduled: scheduled,
                        url: url,
                        secrets: [secret] + (previous.map { [$0] } ?? []),
                        claim: claim
                    )
                )
            }
            return claimed
        }
    }

    package func recordAttempt(_ outcome: AttemptOutcome) throws(StoreError) {
        let logger = logger
        let attempt = outcome.attempt
        let (status, next, finished) = Self.columns(
            of: outcome.next,
            at: attempt.startedAt + attempt.latencyMilliseconds
        )
        try transaction { connection in
            try await connection.all(
                """
                INSERT INTO webhook_attempt (delivery_id, number, started_at, latency_ms, status_code, error,
                    response_excerpt, address)
                SELECT \(outcome.deliveryID), \(attempt.number), \(attempt.startedAt), \(attempt.latencyMilliseconds),
                    \(attempt.statusCode), \(attempt.error), \(attempt.responseExcerpt), \(attempt.address)
                WHERE EXISTS (SELECT 1 FROM webhook_delivery WHERE id = \(outcome.deliveryID))
                ON CONFLICT DO NOTHING
                """,
                logger: logger
            )
            try await connection.all(
                """
                UPDATE webhook_delivery SET status = \(status), next_attempt_at = \(next), finished_at = \(finished),
                    lease_until = NULL, claim = NULL
                WHERE id = \(outcome.deliveryID) AND claim = \(outcome.claim)
                """,
                logger: logger
            )
        }
    }

    package func releaseClaims(_ claims: [(deliveryID: String, claim: String)], now: Int64) throws(StoreError) {
        guard !claims.isEmpty else { return }
        let logger = logger
        let (ids, tokens) = (claims.map(\.deliveryID), claims.map(\.claim))
        try transaction { connection in
            try await connection.all(
                """
                UPDATE webhook_delivery d SET attempts = GREATEST(d.attempts - 1, 0), lease_until = NULL, claim = NULL,
                    next_attempt_at = LEAST(d.next_attempt_at, \(now))
                FROM unnest(\(ids)::text[], \(tokens)::text[]) AS c(id, claim)
                WHERE d.id = c.id AND d.claim = c.claim AND d.status = 'pending'
                """,
                logger: logger
            )
        }
        outboxBell.ring()
    }

    package func outboxBacklog() throws(StoreError) -> (pending: Int, oldestCreatedAt: Int64?) {
        let logger = logger
        return try read { client in
            for try await (count, oldest) in try await client.query(
                "SELECT COUNT(*), MIN(created_at) FROM webhook_delivery WHERE status = 'pending'",
                logger: logger
            ).decode((Int, Int64?).self) {
                return (count, oldest)
            }
            return (0, nil)
        }
    }

    @discardableResult
    package func pruneDeliveries(finishedBefore before: Int64) throws(StoreError) -> Int {
        let logger = logger
        return try transaction { connection in
            try await connection.all(
                "DELETE FROM webhook_delivery WHERE status <> 'pending' AND finished_at < \(before) RETURNING id",
                logger: logger
            ).count
        }
    }

    package func ringOnQueued(_ bell: @escaping @Sendable () -> Void) { outboxBell.set(bell) }

    /// A read on one pooled connection.
    private func readConnection<T: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) throws(StoreError) -> T {
        try read { client in try await client.withConnection { connection in try await body(connection) } }
    }

    /// One transaction of the outbox (not under the catalogue write lock), its failures logged.
    @discardableResult
    private func transaction<T: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) throws(StoreError) -> T {
        do {
            return try database.transaction(body)
        } catch {
            throw logged(error, "webhook store write failed")
        }
    }

    // MARK: - Rows

    /// The endpoints deliveries are queued for.
    static func enabledEndpoints(
        _ connection: PostgresConnection,
        logger: Logger
    ) async throws
        -> [WebhookOutbox.Endpoint]
    {
        var endpoints: [WebhookOutbox.Endpoint] = []
        for try await (id, url, events) in try await connection.query(
            "SELECT webhook_id, url, events FROM webhook_endpoint WHERE enabled",
            logger: logger
        ).decode((String, String, String).self) {
            endpoints.append(
                WebhookOutbox.Endpoint(
                    webhookID: id,
                    url: url,
                    events: WebhookOutbox.Endpoint.events(fromText: events),
                    enabled: true
                )
            )
        }
        return endpoints
    }

    /// Inserts outbox rows, each due at its creation.
    static func insertDeliveries(
        _ rows: [WebhookOutbox.Row],
        _ connection: PostgresConnection,
        logger: Logger
    )
        async throws
    {
        // One statement a row: an event has a few subscribers, and the optional columns do not
        // travel as arrays.
        for row in rows {
            try await connection.all(
                """
                INSERT INTO webhook_delivery (id, webhook_id, message_id, event_type, body, created_at, next_attempt_at,
                    redelivery_of, requested_by)
                VALUES (\(row.id), \(row.webhookID), \(row.messageID), \(row.eventType), \(row.body), \(row.createdAt),
                    \(row.createdAt), \(row.redeliveryOf), \(row.requestedBy))
                """,
                logger: logger
            )
        }
    }

    /// The live webhooks (`id` alone when given), by id.
    private static func webhookRows(
        _ client: PostgresConnection,
        id: String?,
        logger: Logger
    ) async throws
        -> [StoredWebhook]
    {
        let rowID = id.map(StoredDocuments.webhookID)
        var hooks: [StoredWebhook] = []
        for try await (documentID, revision, document, at, by, expires) in try await client.query(
            """
            SELECT t.id, t.revision, t.document, t.updated_at, t.updated_by, e.previous_expires_at
            FROM template t LEFT JOIN webhook_endpoint e ON e.webhook_id = substr(t.id, 9)
            WHERE t.kind = 'webhook' AND t.deleted = false AND (\(rowID)::text IS NULL OR t.id = \(rowID))
            ORDER BY t.id
            """,
            logger: logger
        ).decode((String, Int, String, String, String, Int64?).self) {
            hooks.append(
                StoredWebhook(
                    id: StoredDocuments.webhookName(documentID: documentID) ?? documentID,
                    subscription: try StoredDocuments.webhook(fromText: document),
                    revision: revision,
                    updatedAt: at,
                    updatedBy: by,
                    previousSecretExpiresAt: expires
                )
            )
        }
        return hooks
    }

    /// The live webhook `id`.
    /// - Throws: `.notFound(id:)` when there is none, or it was deleted.
    private static func liveWebhook(
        _ client: PostgresConnection,
        id: String,
        logger: Logger
    ) async throws
        -> StoredWebhook
    {
        guard let hook = try await webhookRows(client, id: id, logger: logger).first else {
            throw StoreError.notFound(id: id)
        }
        return hook
    }

    private static let deliveryColumns = """
        id, webhook_id, message_id, event_type, status, attempts, created_at, next_attempt_at, finished_at,
        redelivery_of, requested_by
        """

    /// A delivery of `deliveryColumns` and its body (`NULL` in listings).
    private static func delivery(_ row: PostgresRow) throws -> WebhookDelivery {
        let (id, webhookID, messageID, eventType, status, attempts, created, next, finished, of, by, body) =
            try row.decode(
                (String, String, String, String, String, Int, Int64, Int64?, Int64?, String?, String?, String?).self
            )
        return WebhookDelivery(
            id: id,
            webhookID: webhookID,
            messageID: messageID,
            eventType: eventType,
            status: WebhookDelivery.Status(rawValue: status) ?? .pending,
            attemptCount: attempts,
            createdAt: created,
            nextAttemptAt: next,
            finishedAt: finished,
            redeliveryOf: of,
            requestedBy: by,
            body: body
        )
    }

    /// Delivery `id` of webhook `webhookID` as it is now, with its body and attempts.
    private static func delivery(
        _ client: PostgresConnection,
        id: String,
        webhookID: String,
        logger: Logger
    )
        async throws -> WebhookDelivery
    {
        let rows = try await client.all(
            """
            SELECT \(unescaped: deliveryColumns), body FROM webhook_delivery
            WHERE id = \(id) AND webhook_id = \(webhookID)
            """,
            logger: logger
        )
        guard let row = rows.first else { throw StoreError.notFound(id: id) }
        var delivery = try delivery(row)
        delivery.attempts = try await attempts(client, of: [id], logger: logger)[id] ?? []
        return delivery
    }

    /// The attempts of these deliveries, oldest first, by delivery.
    private static func attempts(
        _ client: PostgresConnection,
        of ids: [String],
        logger: Logger
    ) async throws
        -> [String: [WebhookAttempt]]
    {
        guard !ids.isEmpty else { return [:] }
        var result: [String: [WebhookAttempt]] = [:]
        for try await (id, number, started, latency, status, error, excerpt, address) in try await client.query(
            """
            SELECT delivery_id, number, started_at, latency_ms, status_code, error, response_excerpt, address
            FROM webhook_attempt WHERE delivery_id = ANY(\(ids)) ORDER BY delivery_id, number
            """,
            logger: logger
        ).decode((String, Int, Int64, Int64, Int?, String?, String?, String?).self) {
            result[id, default: []].append(
                WebhookAttempt(
                    number: number,
                    startedAt: started,
                    latencyMilliseconds: latency,
                    statusCode: status,
                    error: error,
                    responseExcerpt: excerpt,
                    address: address
                )
            )
        }
        return result
    }

    /// The status, next attempt and finish time an outcome leaves a delivery with.
    static func columns(of next: AttemptOutcome.Next, at ended: Int64) -> (String, Int64?, Int64?) {
        switch next {
        case .succeeded: ("succeeded", nil, ended)
        case .failed: ("failed", nil, ended)
        case .retry(let at): ("pending", at, nil)
        }
    }
}
