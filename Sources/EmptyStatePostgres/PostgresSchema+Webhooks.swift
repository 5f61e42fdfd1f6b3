extension PostgresSchema {
    /// Version 9: signed webhooks (`WebhookStoring`). Tables of their own, touched by no other
    /// statement, so the step can be renumbered beside others as it is (version 8 is the change
    /// requests'; the versions between are skipped by a database that never had them). The
    /// subscriptions themselves are documents of kind `webhook` in `template` and `revision`;
    /// `webhook_endpoint` keeps, per subscription, what deliveries read (URL, event types, state)
    /// and its secrets, which no revision holds. `webhook_delivery` is the outbox (rows written in
    /// the transaction of the change they tell of) and the delivery log at once. Times are ms
    /// since the epoch.
    static let webhooks = Migration(
        version: 9,
        description: "webhooks",
        statements: [
            """
            CREATE TABLE webhook_endpoint (
                webhook_id TEXT PRIMARY KEY,            -- wh_…; its document is template 'webhook:wh_…'
                url TEXT NOT NULL,
                events TEXT NOT NULL,                   -- JSON array of event types
                enabled BOOLEAN NOT NULL,
                secret TEXT NOT NULL,                   -- whsec_…: signs every delivery
                previous_secret TEXT,                   -- the one before the last rotation, signing beside it
                previous_expires_at BIGINT              -- until then
            )
            """,
            """
            CREATE TABLE webhook_delivery (
                id TEXT PRIMARY KEY,                    -- dlv_…
                webhook_id TEXT NOT NULL,
                message_id TEXT NOT NULL,               -- msg_…: the webhook-id header, one per event
                event_type TEXT NOT NULL,
                body TEXT NOT NULL,                     -- the JSON sent, signed as it is
                status TEXT NOT NULL DEFAULT 'pending', -- pending, succeeded, failed
                attempts INTEGER NOT NULL DEFAULT 0,
                expedite INTEGER NOT NULL DEFAULT 0,    -- 1: an operator asked for an attempt now
                manual_attempts INTEGER NOT NULL DEFAULT 0, -- attempts asked for: outside the retry schedule
                created_at BIGINT NOT NULL,
                next_attempt_at BIGINT,                 -- NULL once finished
                lease_until BIGINT,                     -- a dispatcher's claim, until then
                claim TEXT,
                finished_at BIGINT,
                redelivery_of TEXT,
                requested_by TEXT,
                seq BIGSERIAL                           -- insertion order, for the log's ties
            )
            """,
            "CREATE INDEX webhook_delivery_due ON webhook_delivery(next_attempt_at) WHERE status = 'pending'",
            "CREATE INDEX webhook_delivery_by_webhook ON webhook_delivery(webhook_id, created_at)",
            "CREATE INDEX webhook_delivery_finished ON webhook_delivery(finished_at) WHERE status <> 'pending'",
            """
            CREATE TABLE webhook_attempt (
                delivery_id TEXT NOT NULL REFERENCES webhook_delivery(id) ON DELETE CASCADE,
                number INTEGER NOT NULL,
                started_at BIGINT NOT NULL,
                latency_ms BIGINT NOT NULL,
                status_code INTEGER,                    -- NULL when no answer came
                error TEXT,                             -- NULL on success
                response_excerpt TEXT,
                address TEXT,
                PRIMARY KEY (delivery_id, number)
            )
            """,
        ]
    )
}
