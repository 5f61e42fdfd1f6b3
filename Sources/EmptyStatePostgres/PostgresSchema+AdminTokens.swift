extension PostgresSchema {
    /// Version 11: admin tokens made through the admin API (issue 37, `AdminTokenStoring`), in
    /// the table that already held the first token a start generates, so that one is listed and
    /// revocable like the others. The rows there get an id, `first start` as their author and
    /// their creation time in ms; `id` has a default, so a replica of the previous release still
    /// creates its first token during a rolling upgrade. Times are ms since the epoch. Their
    /// documents (kind `admin-token`) are in `template` and `revision`, for the audit trail.
    static let adminTokens = Migration(
        version: 11,
        description: "admin tokens through the admin API",
        statements: [
            """
            ALTER TABLE admin_token
                ADD COLUMN id TEXT DEFAULT 'tok_' || substr(md5(random()::text || clock_timestamp()::text), 1, 16),
                ADD COLUMN created_by TEXT NOT NULL DEFAULT 'first start',
                ADD COLUMN created_ms BIGINT,
                ADD COLUMN expires_at BIGINT,
                ADD COLUMN revoked_at BIGINT,
                ADD COLUMN revoked_by TEXT,
                ADD COLUMN last_used_at BIGINT
            """,
            "UPDATE admin_token SET created_ms = round(extract(epoch FROM created_at) * 1000)::bigint",
            """
            ALTER TABLE admin_token
                ALTER COLUMN id SET NOT NULL,
                ALTER COLUMN created_ms SET DEFAULT round(extract(epoch FROM clock_timestamp()) * 1000)::bigint,
                ALTER COLUMN created_ms SET NOT NULL
            """,
            "CREATE UNIQUE INDEX admin_token_by_id ON admin_token(id)",
            "CREATE UNIQUE INDEX admin_token_by_hash ON admin_token(secret_sha256)",
        ]
    )
}
