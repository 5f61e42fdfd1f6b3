import Logging
import PostgresNIO

/// The PostgreSQL schema, as numbered migrations applied in order at start.
///
/// Every replica runs `migrate` when it starts. The migrations run under a session advisory lock,
/// so replicas started at the same moment against an empty database take turns: the first
/// creates the schema, the others find it current. A database whose schema is newer than this
/// binary knows is refused (an older binary must not write to tables it does not understand).
package enum PostgresSchema {
    /// One step of the schema; its statements run in one transaction with its version row.
    struct Migration {
        var version: Int
        var description: String
        var statements: [String]
    }

    /// The advisory lock key of migrations (any constant; "ESSM" in ASCII).
    static let migrationLock: Int64 = 0x4553_534D
    /// The transaction advisory lock every catalogue write takes: writes to templates, aliases
    /// and policies are serialized across replicas, so an `If-Match` race has exactly one winner,
    /// alias uniqueness holds across the catalogue, and change-feed numbers are in commit order.
    static let catalogueWriteLock: Int64 = 0x4553_5357

    /// The newest version this binary knows.
    package static var currentVersion: Int { migrations.last?.version ?? 0 }

    static let migrations: [Migration] = [
        Migration(
            version: 1,
            description: "templates, strings, aliases, revisions, change feed, events, quarantine, admin tokens",
            statements: [
                """
                CREATE TABLE template (
                    id TEXT PRIMARY KEY,
                    kind TEXT NOT NULL DEFAULT 'template',  -- 'template' or 'app-policy'
                    revision BIGINT NOT NULL,
                    deleted BOOLEAN NOT NULL DEFAULT false,
                    document TEXT NOT NULL,                 -- the current document (JSON)
                    edited BOOLEAN NOT NULL DEFAULT false,  -- true once ops changed it: releases no longer overwrite it
                    updated_at TEXT NOT NULL,
                    updated_by TEXT NOT NULL
                )
                """,
                """
                CREATE TABLE template_string (
                    template_id TEXT NOT NULL REFERENCES template(id) ON DELETE CASCADE,
                    locale TEXT NOT NULL,
                    key TEXT NOT NULL,
                    value TEXT NOT NULL,
                    updated_at TEXT NOT NULL,
                    updated_by TEXT NOT NULL,
                    PRIMARY KEY (template_id, locale, key)
                )
                """,
                """
                CREATE TABLE template_alias (
                    alias TEXT PRIMARY KEY,
                    template_id TEXT NOT NULL REFERENCES template(id) ON DELETE CASCADE
                )
                """,
                "CREATE INDEX template_alias_by_template ON template_alias(template_id)",
                """
                CREATE TABLE revision (
                    template_id TEXT NOT NULL REFERENCES template(id) ON DELETE CASCADE,
                    revision BIGINT NOT NULL,
                    action TEXT NOT NULL,
                    document TEXT,                          -- NULL for a deletion
                    changed_fields TEXT NOT NULL,           -- JSON array of JSON pointers
                    created_at TEXT NOT NULL,
                    created_by TEXT NOT NULL,
                    seq BIGSERIAL NOT NULL UNIQUE,          -- commit order (writes are serialized): the audit trail's
                    PRIMARY KEY (template_id, revision)
                )
                """,
                // The change feed: one row per committed catalogue change, numbered in commit
                // order. Replicas are told the number with NOTIFY and catch up from the last one
                // they applied, so a notification lost while a listener was away loses nothing.
                """
                CREATE TABLE catalogue_change (
                    seq BIGSERIAL PRIMARY KEY,
                    document_id TEXT NOT NULL,
                    revision BIGINT NOT NULL,
                    committed_at TIMESTAMPTZ NOT NULL DEFAULT now()
                )
                """,
                """
                CREATE TABLE event (
                    seq BIGINT PRIMARY KEY,                 -- export cursor: inserting transaction << 16 + row
                    id TEXT COLLATE "C" NOT NULL UNIQUE,    -- client UUID: duplicates are dropped (bytewise: no strcoll per comparison)
                    type TEXT NOT NULL,
                    template_id TEXT NOT NULL,
                    revision BIGINT,
                    etag TEXT,
                    locale TEXT NOT NULL,
                    platform TEXT NOT NULL,
                    app_version TEXT NOT NULL,
                    action_id TEXT,
                    session_id TEXT,
                    occurred_at BIGINT NOT NULL,            -- ms since the epoch, skew-corrected
                    received_at BIGINT NOT NULL,
                    clock_skew_ms BIGINT NOT NULL,
                    request_id TEXT NOT NULL
                )
                """,
                "CREATE INDEX event_by_time ON event(occurred_at)",
                """
                CREATE TABLE quarantine (
                    seq BIGSERIAL PRIMARY KEY,
                    received_at BIGINT NOT NULL,
                    reason TEXT NOT NULL,
                    payload TEXT NOT NULL,
                    request_id TEXT NOT NULL
                )
                """,
                "CREATE INDEX quarantine_by_time ON quarantine(received_at)",
                // Admin tokens valid on every replica; only the SHA-256 of each secret is kept.
                """
                CREATE TABLE admin_token (
                    name TEXT PRIMARY KEY,
                    role TEXT NOT NULL,
                    secret_sha256 TEXT NOT NULL,
                    created_at TIMESTAMPTZ NOT NULL DEFAULT now()
                )
                """,
            ]
        ),
        // Translation bookkeeping, one step on its own: a revision may say why it was made
        // (`imported from fr.xlf`), and each string records the template revision that last
        // changed it, so "written before its source changed" (stale) is exact where whole-second
        // times tie. Rows already there get the latest revision committed at their `updated_at`
        // (a write stamps its strings and its revision with the same time); 0 when none matches.
        Migration(
            version: 2,
            description: "revision notes, string revisions",
            statements: [
                "ALTER TABLE revision ADD COLUMN note TEXT",
                "ALTER TABLE template_string ADD COLUMN revision BIGINT NOT NULL DEFAULT 0",
                """
                UPDATE template_string s SET revision = COALESCE((
                    SELECT MAX(r.revision) FROM revision r
                    WHERE r.template_id = s.template_id AND r.created_at = s.updated_at
                ), 0)
                """,
            ]
        ),
        // The admin console's sessions (`SessionStoring`), shared by every replica so a sign-out
        // anywhere ends the session everywhere; only the SHA-256 of each session id is kept. A
        // table no other statement touches: the step can be renumbered beside others as it is.
        Migration(
            version: 3,
            description: "console sessions",
            statements: [
                """
                CREATE TABLE console_session (
                    id_hash TEXT PRIMARY KEY,           -- hex SHA-256 of the cookie's session id
                    token_name TEXT NOT NULL,
                    role TEXT NOT NULL,
                    created_at BIGINT NOT NULL,         -- ms since the epoch
                    last_seen_at BIGINT NOT NULL,
                    expires_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX console_session_by_expiry ON console_session(expires_at)",
            ]
        ),
        analytics,
        facetCubes,
        experiments,
        eventIDsByPartition,
        changeRequests,
        webhooks,
        stringReviews,
        adminTokens,
        experimentSegments,
    ]

    /// Why the schema cannot be used.
    package struct TooNew: Error, CustomStringConvertible {
        package var found: Int
        package var known: Int

        package init(found: Int, known: Int) {
            self.found = found
            self.known = known
        }
        package var description: String {
            "the database schema is at version \(found), newer than this binary knows (\(known)): run a release that knows it, or restore a database of this release"
        }
    }

    /// Brings the schema to `currentVersion` under the migration lock, then checks that the
    /// stored events were numbered on this cluster (`checkEventNumbering`).
    /// - Returns: the versions this call applied (empty when another replica already had).
    /// - Throws: `TooNew` when the database is ahead of this binary; `EventsAheadOfCluster` when
    ///   it was restored from a dump into another cluster; postgres-nio errors otherwise.
    @discardableResult
    /// - Parameter version: the version to stop at (tests of upgrades make an older schema).
    package static func migrate(
        _ client: PostgresClient,
        upTo version: Int = currentVersion,
        logger: Logger
    ) async throws -> [Int] {
        try await client.withConnection { connection in
            try await connection.all("SELECT pg_advisory_lock(\(migrationLock))", logger: logger)
            do {
                let applied = try await migrateLocked(connection, upTo: version, logger: logger)
                if version >= analytics.version { try await checkEventNumbering(connection, logger: logger) }
                try await connection.all("SELECT pg_advisory_unlock(\(migrationLock))", logger: logger)
                return applied
            } catch {
                // The session lock is released when the connection closes; unlock it now so the
                // pooled connection goes back clean. In a task of its own: when this one was
                // cancelled (its caller's wait ran out while the lock was awaited), a query sent
                // from it could fail before it is sent, and the pooled connection would keep the
                // lock, and every other migration wait for it, for as long as it lives. Sent
                // after the lock request on the same connection, the unlock runs once it is
                // granted.
                await Task.detached {
                    _ = try? await connection.all("SELECT pg_advisory_unlock(\(migrationLock))", logger: logger)
                }.value
                throw error
            }
        }
    }

    private static func migrateLocked(
        _ connection: PostgresConnection,
        upTo target: Int,
        logger: Logger
    ) async throws -> [Int] {
        try await connection.all(
            """
            CREATE TABLE IF NOT EXISTS schema_migration (
                version BIGINT PRIMARY KEY,
                description TEXT NOT NULL,
                applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
            )
            """,
            logger: logger
        )
        var found = 0
        for try await version in try await connection.query(
            "SELECT COALESCE(MAX(version), 0) FROM schema_migration",
            logger: logger
        ).decode(Int.self) {
            found = version
        }
        if found > currentVersion { throw TooNew(found: found, known: currentVersion) }
        var applied: [Int] = []
        for migration in migrations where migration.version > found && migration.version <= target {
            try await connection.withTransaction(logger: logger) { connection in
                for statement in migration.statements {
                    try await connection.all(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.all(
                    "INSERT INTO schema_migration (version, description) VALUES (\(migration.version), \(migration.description))",
                    logger: logger
                )
            }
            logger.notice(
                "database schema migrated",
                metadata: ["schema.version": "\(migration.version)", "schema.migration": "\(migration.description)"]
            )
            applied.append(migration.version)
        }
        return applied
    }
}
