import EmptyStateStore
import GRDB

/// The SQLite schema of `SQLiteTemplateStore`, versioned: each migration runs once, in order, when the
/// store is opened (GRDB records which ran in `grdb_migrations`).
extension SQLiteTemplateStore {
    /// Every migration of the templates database, oldest first.
    package static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: templates, strings, revisions") { db in
            try db.execute(
                sql: """
                    CREATE TABLE template (
                        id TEXT PRIMARY KEY NOT NULL,
                        revision INTEGER NOT NULL,
                        deleted INTEGER NOT NULL DEFAULT 0,
                        document TEXT NOT NULL,          -- the current document (JSON)
                        edited INTEGER NOT NULL DEFAULT 0, -- 1 once ops changed it: releases no longer overwrite it
                        updated_at TEXT NOT NULL,
                        updated_by TEXT NOT NULL
                    );
                    CREATE TABLE template_string (
                        template_id TEXT NOT NULL REFERENCES template(id) ON DELETE CASCADE,
                        locale TEXT NOT NULL,
                        key TEXT NOT NULL,
                        value TEXT NOT NULL,
                        updated_at TEXT NOT NULL,
                        updated_by TEXT NOT NULL,
                        PRIMARY KEY (template_id, locale, key)
                    );
                    CREATE TABLE template_alias (
                        alias TEXT PRIMARY KEY NOT NULL,
                        template_id TEXT NOT NULL REFERENCES template(id) ON DELETE CASCADE
                    );
                    CREATE TABLE revision (
                        template_id TEXT NOT NULL REFERENCES template(id) ON DELETE CASCADE,
                        revision INTEGER NOT NULL,
                        action TEXT NOT NULL,
                        document TEXT,                    -- NULL for a deletion
                        changed_fields TEXT NOT NULL,     -- JSON array of JSON pointers
                        created_at TEXT NOT NULL,
                        created_by TEXT NOT NULL,
                        PRIMARY KEY (template_id, revision)
                    );
                    CREATE INDEX revision_by_time ON revision(created_at);
                    """
            )
        }
        // Other kinds of versioned documents (app policies) share the current-state and revision
        // tables, so they get revisions, rollback and the audit trail as templates do. Existing
        // rows are templates; template queries filter on the kind.
        migrator.registerMigration("v2: document kinds") { db in
            try db.execute(sql: "ALTER TABLE template ADD COLUMN kind TEXT NOT NULL DEFAULT 'template'")
        }
        // Timestamps are whole seconds from this version on (Swift's ISO 8601 date decoding refuses
        // fractions). Earlier releases wrote milliseconds: normalized once here, so every value has
        // one form; each was `Timestamp.now()`'s `YYYY-MM-DDTHH:MM:SS.mmmZ`, and the fraction is
        // dropped as `now()` drops it. Whole seconds tie often (an import and the edit after it),
        // and text order would put "…:00.123Z" before "…:00Z" had both forms stayed, so the audit
        // trail no longer orders by `created_at`: `seq` numbers revisions in the order they were
        // committed (the rowid order of the rows already there), unique, and is what it sorts by.
        migrator.registerMigration("v3: whole-second timestamps, revision sequence") { db in
            for (table, column) in [
                ("template", "updated_at"), ("template_string", "updated_at"), ("revision", "created_at"),
            ] {
                try db.execute(
                    sql: """
                        UPDATE \(table) SET \(column) = substr(\(column), 1, 19) || 'Z'
                        WHERE length(\(column)) > 20 AND substr(\(column), 20, 1) = '.'
                        """
                )
            }
            try db.execute(
                sql: """
                    ALTER TABLE revision ADD COLUMN seq INTEGER NOT NULL DEFAULT 0;
                    UPDATE revision SET seq = rowid;
                    CREATE UNIQUE INDEX revision_by_seq ON revision(seq);
                    DROP INDEX revision_by_time;
                    """
            )
        }
        // Translation bookkeeping (one step, on its own): a revision may say why it was made
        // (`imported from fr.xlf`), and each string records the template revision that last
        // changed it, so "written before its source changed" (stale) is exact where whole-second
        // times tie. Rows already there get the latest revision committed at their `updated_at`
        // (every write stamps its strings and its revision with the same time): exact unless
        // several revisions of the template share that second, 0 when none does.
        migrator.registerMigration("v4: revision notes, string revisions") { db in
            try db.execute(
                sql: """
                    ALTER TABLE revision ADD COLUMN note TEXT;
                    ALTER TABLE template_string ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
                    UPDATE template_string SET revision = COALESCE((
                        SELECT MAX(r.revision) FROM revision r
                        WHERE r.template_id = template_string.template_id AND r.created_at = template_string.updated_at
                    ), 0);
                    """
            )
        }
        // The admin console's sessions (`SessionStoring`): only the SHA-256 of each session id is
        // kept. A table of its own, touched by no template query: a step that can be renumbered
        // beside other migrations without changing what it does.
        migrator.registerMigration("v5: console sessions") { db in
            try db.execute(
                sql: """
                    CREATE TABLE console_session (
                        id_hash TEXT PRIMARY KEY NOT NULL,  -- hex SHA-256 of the cookie's session id
                        token_name TEXT NOT NULL,
                        role TEXT NOT NULL,
                        created_at INTEGER NOT NULL,        -- ms since the epoch
                        last_seen_at INTEGER NOT NULL,
                        expires_at INTEGER NOT NULL
                    );
                    CREATE INDEX console_session_by_expiry ON console_session(expires_at);
                    """
            )
        }
        // Change requests (`ChangeRequest`): each request is a document of the catalogue's tables
        // (`kind = 'change-request'`, with its revisions as the audit trail); these hold what the
        // list filters and the scheduler query (`change_request`, one line per request, written
        // with each of its revisions), its comments and approvals, and its preview tokens (only
        // the SHA-256 of each secret). The review rules are a document of the catalogue's tables
        // too (`settings:review-rules`): no table of their own.
        migrator.registerMigration("v6: change requests, reviews, preview tokens") { db in
            try db.execute(
                sql: """
                    CREATE TABLE change_request (
                        id INTEGER PRIMARY KEY NOT NULL,
                        state TEXT NOT NULL,              -- open, rejected, withdrawn, published
                        title TEXT NOT NULL,
                        author TEXT NOT NULL,
                        created_at TEXT NOT NULL,
                        updated_at TEXT NOT NULL,
                        scheduled_at INTEGER,             -- ms since the epoch, while scheduled
                        targets TEXT NOT NULL,            -- a label a line, between newlines
                        revision INTEGER NOT NULL
                    );
                    CREATE INDEX change_request_by_state ON change_request(state, id);
                    CREATE INDEX change_request_by_schedule ON change_request(scheduled_at)
                        WHERE scheduled_at IS NOT NULL;
                    CREATE TABLE change_request_review (
                        seq INTEGER PRIMARY KEY NOT NULL,
                        change_request_id INTEGER NOT NULL REFERENCES change_request(id),
                        kind TEXT NOT NULL,               -- comment, approval, rejection
                        author TEXT NOT NULL,
                        at TEXT NOT NULL,
                        version INTEGER NOT NULL,         -- the version of the request it was given at
                        text TEXT NOT NULL
                    );
                    CREATE INDEX change_request_review_by_request ON change_request_review(change_request_id, seq);
                    CREATE TABLE preview_token (
                        id INTEGER PRIMARY KEY NOT NULL,
                        change_request_id INTEGER NOT NULL REFERENCES change_request(id),
                        name TEXT NOT NULL,
                        secret_sha256 TEXT NOT NULL UNIQUE,
                        created_by TEXT NOT NULL,
                        created_at TEXT NOT NULL,
                        expires_at INTEGER NOT NULL,      -- ms since the epoch
                        revoked_at TEXT,
                        revoked_by TEXT
                    );
                    CREATE INDEX preview_token_by_request ON preview_token(change_request_id);
                    """
            )
        }
        // Signed webhooks (`WebhookStoring`): tables of their own, touched by no other query, so
        // the step can be renumbered beside others as it is. The subscriptions themselves are
        // documents of kind `webhook` in `template` and `revision`; `webhook_endpoint` keeps, per
        // subscription, what deliveries read (URL, event types, state) and its secrets, which no
        // revision holds. `webhook_delivery` is the outbox (rows written in the transaction of
        // the change they tell of) and the delivery log at once; times are ms since the epoch.
        migrator.registerMigration("v7: webhooks") { db in
            try db.execute(
                sql: """
                    CREATE TABLE webhook_endpoint (
                        webhook_id TEXT PRIMARY KEY NOT NULL,   -- wh_…; its document is template 'webhook:wh_…'
                        url TEXT NOT NULL,
                        events TEXT NOT NULL,                   -- JSON array of event types
                        enabled INTEGER NOT NULL,
                        secret TEXT NOT NULL,                   -- whsec_…: signs every delivery
                        previous_secret TEXT,                   -- the one before the last rotation, signing beside it
                        previous_expires_at INTEGER             -- until then
                    );
                    CREATE TABLE webhook_delivery (
                        id TEXT PRIMARY KEY NOT NULL,           -- dlv_…
                        webhook_id TEXT NOT NULL,
                        message_id TEXT NOT NULL,               -- msg_…: the webhook-id header, one per event
                        event_type TEXT NOT NULL,
                        body TEXT NOT NULL,                     -- the JSON sent, signed as it is
                        status TEXT NOT NULL DEFAULT 'pending', -- pending, succeeded, failed
                        attempts INTEGER NOT NULL DEFAULT 0,
                        expedite INTEGER NOT NULL DEFAULT 0,    -- 1: an operator asked for an attempt now
                        manual_attempts INTEGER NOT NULL DEFAULT 0, -- attempts asked for: outside the retry schedule
                        created_at INTEGER NOT NULL,
                        next_attempt_at INTEGER,                -- NULL once finished
                        lease_until INTEGER,                    -- a dispatcher's claim, until then
                        claim TEXT,
                        finished_at INTEGER,
                        redelivery_of TEXT,
                        requested_by TEXT
                    );
                    CREATE INDEX webhook_delivery_due ON webhook_delivery(next_attempt_at) WHERE status = 'pending';
                    CREATE INDEX webhook_delivery_by_webhook ON webhook_delivery(webhook_id, created_at);
                    CREATE INDEX webhook_delivery_finished ON webhook_delivery(finished_at) WHERE status <> 'pending';
                    CREATE TABLE webhook_attempt (
                        delivery_id TEXT NOT NULL REFERENCES webhook_delivery(id) ON DELETE CASCADE,
                        number INTEGER NOT NULL,
                        started_at INTEGER NOT NULL,
                        latency_ms INTEGER NOT NULL,
                        status_code INTEGER,                    -- NULL when no answer came
                        error TEXT,                             -- NULL on success
                        response_excerpt TEXT,
                        address TEXT,
                        PRIMARY KEY (delivery_id, number)
                    );
                    """
            )
        }
        // Review states (issue 36): how far each translation was confirmed (`ReviewState`:
        // translated, reviewed, final), so a reviewer's `final` comes back out of the next export
        // and XLIFF 1.2 says `approved="yes"` for it. Every row there is `translated`, which is
        // all an earlier release knew. One column on its own: a step that can be renumbered
        // beside other migrations (it is v8 so that v6 and v7, written beside it, keep theirs).
        migrator.registerMigration("v8: string review states") { db in
            try db.execute(
                sql: """
                    ALTER TABLE template_string ADD COLUMN review TEXT NOT NULL DEFAULT 'translated'
                        CHECK (review IN ('translated', 'reviewed', 'final'))
                    """
            )
        }
        // Admin tokens made through the admin API (issue 37, `AdminTokenStoring`): only the
        // SHA-256 of each secret is kept. Their documents (kind `admin-token`) are in `template`
        // and `revision`, for the audit trail. A table no other statement touches: the step can
        // be renumbered beside others as it is. Times are ms since the epoch.
        migrator.registerMigration("v9: admin tokens") { db in
            try db.execute(
                sql: """
                    CREATE TABLE admin_token (
                        id TEXT PRIMARY KEY NOT NULL,          -- tok_…; its document is template 'admin-token:tok_…'
                        name TEXT NOT NULL UNIQUE,             -- never reused: it is the author of changes
                        role TEXT NOT NULL,
                        secret_sha256 TEXT NOT NULL UNIQUE,
                        created_by TEXT NOT NULL,
                        created_at INTEGER NOT NULL,
                        expires_at INTEGER,
                        revoked_at INTEGER,
                        revoked_by TEXT,
                        last_used_at INTEGER                   -- written at most once a minute per token
                    );
                    """
            )
        }
        return migrator
    }
}
