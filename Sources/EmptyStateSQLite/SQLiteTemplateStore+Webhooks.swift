import EmptyStateStore
import GRDB

/// Webhooks on SQLite (`WebhookStoring`): the subscriptions as read (documents of kind `webhook`
/// and their `webhook_endpoint`), and the outbox, `webhook_delivery` with `webhook_attempt`.
///
/// A claim is one write transaction (the writer lock serializes every process that shares the
/// file): it reads the due deliveries, takes what `WebhookOutbox.select` allows, and leases them
/// under a token of its own, so no two dispatchers attempt one delivery at once.
extension SQLiteTemplateStore: WebhookStoring {
    package func webhooks() throws(StoreError) -> [(webhook: StoredWebhook, health: WebhookHealth)] {
        try read { db in
            let hooks = try Row.fetchAll(
                db,
                sql: """
                    SELECT t.id, t.revision, t.document, t.updated_at, t.updated_by, e.previous_expires_at
                    FROM template t LEFT JOIN webhook_endpoint e ON e.webhook_id = substr(t.id, 9)
                    WHERE t.kind = 'webhook' AND t.deleted = 0 ORDER BY t.id
                    """
            ).map(Self.webhook)
            var health: [String: WebhookHealth] = [:]
            for row in try Row.fetchAll(
                db,
                sql: """
                    SELECT webhook_id, SUM(status = 'pending') AS pending, SUM(status = 'failed') AS failed
                    FROM webhook_delivery GROUP BY webhook_id
                    """
            ) {
                health[row["webhook_id"]] = WebhookHealth(pending: row["pending"], failed: row["failed"])
            }
            let last = try db.cachedStatement(
                sql: """
                    SELECT a.started_at, a.status_code, a.error IS NULL AS ok FROM webhook_attempt a
                    JOIN webhook_delivery d ON d.id = a.delivery_id
                    WHERE d.webhook_id = ? ORDER BY a.started_at DESC LIMIT 1
                    """
            )
            return try hooks.map { hook in
                var summary = health[hook.id] ?? WebhookHealth()
                if let row = try Row.fetchOne(last, arguments: [hook.id]) {
                    summary.lastAttemptAt = row["started_at"]
                    summary.lastAttemptStatus = row["status_code"]
                    summary.lastAttemptSucceeded = row["ok"]
                }
                return (hook, summary)
            }
        }
    }

    package func webhook(id: String) throws(StoreError) -> StoredWebhook {
        try read { db in try Self.liveWebhook(db, id: id) }
    }

    package func deliveries(
        webhookID: String,
        status: WebhookDelivery.Status?,
        page: Int,
        pageSize: Int
    ) throws(StoreError) -> Page<WebhookDelivery> {
        try read { db in
            _ = try Self.liveWebhook(db, id: webhookID)
            var condition = "webhook_id = ?"
            var arguments: StatementArguments = [webhookID]
            if let status {
                condition += " AND status = ?"
                arguments += [status.rawValue]
            }
            let total =
                try Int.fetchOne(
                    db,
                    sql: "SELECT COUNT(*) FROM webhook_delivery WHERE \(condition)",
                    arguments: arguments
                ) ?? 0
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT \(Self.deliveryColumns) FROM webhook_delivery WHERE \(condition)
                    ORDER BY created_at DESC, rowid DESC LIMIT ? OFFSET ?
                    """,
                arguments: arguments + [pageSize, (page - 1) * pageSize]
            )
            var deliveries = rows.map { Self.delivery($0, body: false) }
            let attempts = try Self.attempts(db, of: deliveries.map(\.id))
            for index in deliveries.indices { deliveries[index].attempts = attempts[deliveries[index].id] ?? [] }
            return Page(items: deliveries, page: page, pageSize: pageSize, total: total)
        }
    }

    package func delivery(webhookID: String, id: String) throws(StoreError) -> WebhookDelivery {
        try read { db in
            _ = try Self.liveWebhook(db, id: webhookID)
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: "SELECT \(Self.deliveryColumns), body FROM webhook_delivery WHERE id = ? AND webhook_id = ?",
                    arguments: [id, webhookID]
                )
            else { throw StoreError.notFound(id: id) }
            var delivery = Self.delivery(row, body: true)
            delivery.attempts = try Self.attempts(db, of: [id])[id] ?? []
            return delivery
        }
    }

    package func redeliver(
        webhookID: String,
        id: String,
        actor: String,
        now: Int64
    ) throws(StoreError) -> WebhookDelivery {
        let delivery = try transaction { db -> WebhookDelivery in
            _ = try Self.liveWebhook(db, id: webhookID)
            guard
                let row = try Row.fetchOne(
                    db,
                    sql: "SELECT \(Self.deliveryColumns), body FROM webhook_delivery WHERE id = ? AND webhook_id = ?",
                    arguments: [id, webhookID]
                )
            else { throw StoreError.notFound(id: id) }
            let original = Self.delivery(row, body: true)
            if original.status == .pending {
                try db.execute(
                    sql:
                        "UPDATE webhook_delivery SET next_attempt_at = MIN(next_attempt_at, ?), expedite = 1 WHERE id = ?",
                    arguments: [now, id]
                )
                return try Self.delivery(db, id: id)
            }
            let copy = WebhookOutbox.redelivery(
                of: (original.id, original.webhookID, original.messageID, original.eventType, original.body ?? ""),
                actor: actor,
                now: now
            )
            try Self.insertDeliveries([copy], db)
            return try Self.delivery(db, id: copy.id)
        }
        outboxBell.ring()
        return delivery
    }

    package func queuePing(webhookID: String, actor: String, now: Int64) throws(StoreError) -> WebhookDelivery {
        let delivery = try transaction { db -> WebhookDelivery in
            _ = try Self.liveWebhook(db, id: webhookID)
            let ping = WebhookOutbox.ping(webhookID: webhookID, actor: actor, now: now)
            try Self.insertDeliveries([ping], db)
            return try Self.delivery(db, id: ping.id)
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
        // The dispatcher polls every second: with nothing due, a read answers it, so an idle
        // outbox costs no write transaction (and no commit in `store_commit_duration_seconds`).
        let anythingDue = try read { db in
            try !Self.dueDeliveries(db, now: now, limit: limit).isEmpty
        }
        guard anythingDue else { return [] }
        let claim = WebhookOutbox.newID("clm_")
        return try transaction { db in
            let due = try Self.dueDeliveries(db, now: now, limit: limit)
            let chosen = WebhookOutbox.select(due, limit: limit, perWebhook: perWebhook, inFlight: inFlight)
            guard !chosen.isEmpty else { return [] }
            let update = try db.cachedStatement(
                sql: """
                    UPDATE webhook_delivery SET attempts = attempts + 1, manual_attempts = manual_attempts + expedite,
                        expedite = 0, lease_until = ?, claim = ?
                    WHERE id = ?
                    """
            )
            for id in chosen { try update.execute(arguments: [now + lease, claim, id]) }
            return try Row.fetchAll(
                db,
                sql: """
                    SELECT d.id, d.webhook_id, d.message_id, d.event_type, d.body, d.attempts,
                        d.attempts - d.manual_attempts AS scheduled, e.url, e.secret,
                        CASE WHEN e.previous_expires_at > ? THEN e.previous_secret END AS previous_secret
                    FROM webhook_delivery d JOIN webhook_endpoint e ON e.webhook_id = d.webhook_id
                    WHERE d.claim = ? ORDER BY d.next_attempt_at, d.created_at
                    """,
                arguments: [now, claim]
            ).map { row in
                ClaimedDelivery(
                    id: row["id"],
                    webhookID: row["webhook_id"],
                    messageID: row["message_id"],
                    eventType: row["event_type"],
                    body: row["body"],
                    attempt: row["attempts"],
                    scheduled: row["scheduled"],
                    url: row["url"],
                    secrets: [row["secret"] as String] + ((row["previous_secret"] as String?).map { [$0] } ?? []),
                    claim: claim
                )
            }
        }
    }

    /// Pending deliveries of enabled endpoints that are due and not leased, oldest first (a few
    /// times `limit`, so `WebhookOutbox.select` can spread them over webhooks).
    private static func dueDeliveries(
        _ db: Database,
        now: Int64,
        limit: Int
    ) throws -> [(id: String, webhookID: String)] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT d.id, d.webhook_id FROM webhook_delivery d
                JOIN webhook_endpoint e ON e.webhook_id = d.webhook_id AND e.enabled = 1
                WHERE d.status = 'pending' AND d.next_attempt_at <= ? AND (d.lease_until IS NULL OR d.lease_until <= ?)
                ORDER BY d.next_attempt_at, d.created_at LIMIT ?
                """,
            arguments: [now, now, limit * 4]
        ).map { (id: $0["id"] as String, webhookID: $0["webhook_id"] as String) }
    }

    package func recordAttempt(_ outcome: AttemptOutcome) throws(StoreError) {
        try transaction { db in
            let attempt = outcome.attempt
            try db.execute(
                sql: """
                    INSERT OR IGNORE INTO webhook_attempt (delivery_id, number, started_at, latency_ms, status_code, error,
                        response_excerpt, address)
                    SELECT ?, ?, ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM webhook_delivery WHERE id = ?)
                    """,
                arguments: [
                    outcome.deliveryID, attempt.number, attempt.startedAt, attempt.latencyMilliseconds,
                    attempt.statusCode, attempt.error, attempt.responseExcerpt, attempt.address, outcome.deliveryID,
                ]
            )
            let (status, next, finished) = Self.columns(
                of: outcome.next,
                at: attempt.startedAt + attempt.latencyMilliseconds
            )
            try db.execute(
                sql: """
                    UPDATE webhook_delivery SET status = ?, next_attempt_at = ?, finished_at = ?, lease_until = NULL,
                        claim = NULL
                    WHERE id = ? AND claim = ?
                    """,
                arguments: [status, next, finished, outcome.deliveryID, outcome.claim]
            )
        }
    }

    package func releaseClaims(_ claims: [(deliveryID: String, claim: String)], now: Int64) throws(StoreError) {
        guard !claims.isEmpty else { return }
        try transaction { db in
            let release = try db.cachedStatement(
                sql: """
                    UPDATE webhook_delivery SET attempts = MAX(attempts - 1, 0), lease_until = NULL, claim = NULL,
                        next_attempt_at = MIN(next_attempt_at, ?)
                    WHERE id = ? AND claim = ? AND status = 'pending'
                    """
            )
            for (id, claim) in claims { try release.execute(arguments: [now, id, claim]) }
        }
        outboxBell.ring()
    }

    package func outboxBacklog() throws(StoreError) -> (pending: Int, oldestCreatedAt: Int64?) {
        try read { db in
            let row = try Row.fetchOne(
                db,
                sql: "SELECT COUNT(*) AS n, MIN(created_at) AS oldest FROM webhook_delivery WHERE status = 'pending'"
            )
            return (row?["n"] ?? 0, row?["oldest"])
        }
    }

    @discardableResult
    package func pruneDeliveries(finishedBefore before: Int64) throws(StoreError) -> Int {
        try transaction { db in
            try db.execute(
                sql: "DELETE FROM webhook_delivery WHERE status <> 'pending' AND finished_at < ?",
                arguments: [before]
            )
            return db.changesCount
        }
    }

    package func ringOnQueued(_ bell: @escaping @Sendable () -> Void) { outboxBell.set(bell) }

    // MARK: - Rows

    /// The endpoints deliveries are queued for.
    static func enabledEndpoints(_ db: Database) throws -> [WebhookOutbox.Endpoint] {
        try Row.fetchAll(db, sql: "SELECT webhook_id, url, events FROM webhook_endpoint WHERE enabled = 1").map { row in
            WebhookOutbox.Endpoint(
                webhookID: row["webhook_id"],
                url: row["url"],
                events: WebhookOutbox.Endpoint.events(fromText: row["events"]),
                enabled: true
            )
        }
    }

    /// Inserts outbox rows, each due at its creation.
    static func insertDeliveries(_ rows: [WebhookOutbox.Row], _ db: Database) throws {
        let insert = try db.cachedStatement(
            sql: """
                INSERT INTO webhook_delivery (id, webhook_id, message_id, event_type, body, created_at, next_attempt_at,
                    redelivery_of, requested_by)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
        )
        for row in rows {
            try insert.execute(
                arguments: [
                    row.id, row.webhookID, row.messageID, row.eventType, row.body, row.createdAt, row.createdAt,
                    row.redeliveryOf, row.requestedBy,
                ]
            )
        }
    }

    /// The live webhook `id`.
    /// - Throws: `.notFound(id:)` when there is none, or it was deleted.
    static func liveWebhook(_ db: Database, id: String) throws -> StoredWebhook {
        guard
            let row = try Row.fetchOne(
                db,
                sql: """
                    SELECT t.id, t.revision, t.document, t.updated_at, t.updated_by, e.previous_expires_at
                    FROM template t LEFT JOIN webhook_endpoint e ON e.webhook_id = ?
                    WHERE t.id = ? AND t.kind = 'webhook' AND t.deleted = 0
                    """,
                arguments: [id, StoredDocuments.webhookID(id)]
            )
        else { throw StoreError.notFound(id: id) }
        return try webhook(row)
    }

    private static func webhook(_ row: Row) throws -> StoredWebhook {
        let rowID: String = row["id"]
        return StoredWebhook(
            id: StoredDocuments.webhookName(documentID: rowID) ?? rowID,
            subscription: try StoredDocuments.webhook(fromText: row["document"]),
            revision: row["revision"],
            updatedAt: row["updated_at"],
            updatedBy: row["updated_by"],
            previousSecretExpiresAt: row["previous_expires_at"]
        )
    }

    private static let deliveryColumns = """
        id, webhook_id, message_id, event_type, status, attempts, created_at, next_attempt_at, finished_at,
        redelivery_of, requested_by
        """

    private static func delivery(_ row: Row, body: Bool) -> WebhookDelivery {
        WebhookDelivery(
            id: row["id"],
            webhookID: row["webhook_id"],
            messageID: row["message_id"],
            eventType: row["event_type"],
            status: WebhookDelivery.Status(rawValue: row["status"]) ?? .pending,
            attemptCount: row["attempts"],
            createdAt: row["created_at"],
            nextAttemptAt: row["next_attempt_at"],
            finishedAt: row["finished_at"],
            redeliveryOf: row["redelivery_of"],
            requestedBy: row["requested_by"],
            body: body ? row["body"] : nil
        )
    }

    /// Delivery `id` as it is now, with its body and attempts.
    private static func delivery(_ db: Database, id: String) throws -> WebhookDelivery {
        guard
            let row = try Row.fetchOne(
                db,
                sql: "SELECT \(deliveryColumns), body FROM webhook_delivery WHERE id = ?",
                arguments: [id]
            )
        else { throw StoreError.notFound(id: id) }
        var delivery = delivery(row, body: true)
        delivery.attempts = try attempts(db, of: [id])[id] ?? []
        return delivery
    }

    /// The attempts of these deliveries, oldest first, by delivery.
    private static func attempts(_ db: Database, of ids: [String]) throws -> [String: [WebhookAttempt]] {
        guard !ids.isEmpty else { return [:] }
        var result: [String: [WebhookAttempt]] = [:]
        let rows = try Row.fetchAll(
            db,
            sql: """
                SELECT delivery_id, number, started_at, latency_ms, status_code, error, response_excerpt, address
                FROM webhook_attempt WHERE delivery_id IN (\(ids.map { _ in "?" }.joined(separator: ",")))
                ORDER BY delivery_id, number
                """,
            arguments: StatementArguments(ids)
        )
        for row in rows {
            result[row["delivery_id"], default: []].append(
                WebhookAttempt(
                    number: row["number"],
                    startedAt: row["started_at"],
                    latencyMilliseconds: row["latency_ms"],
                    statusCode: row["status_code"],
                    error: row["error"],
                    responseExcerpt: row["response_excerpt"],
                    address: row["address"]
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
