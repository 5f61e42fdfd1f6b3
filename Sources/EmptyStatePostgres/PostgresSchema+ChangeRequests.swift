import Logging
import PostgresNIO

/// The change requests' tables (schema version 8): each request is a document of the
/// catalogue's tables (`kind = 'change-request'`, its revisions the audit trail); these hold what
/// the list filters and the scheduler query (`change_request`, one line a request, written with
/// each of its revisions), its comments and approvals, and its preview tokens (only the SHA-256
/// of each secret). The review rules are a document of the catalogue's tables too
/// (`settings:review-rules`). The admin token a first start generated becomes `admin`: it is the
/// operator's, and review rules are an admin's to set.
extension PostgresSchema {
    static let changeRequests = Migration(
        version: 8,
        description: "change requests, reviews, preview tokens; the generated admin token is admin",
        statements: [
            """
            CREATE TABLE change_request (
                id BIGINT PRIMARY KEY,
                state TEXT NOT NULL,                -- open, rejected, withdrawn, published
                title TEXT NOT NULL,
                author TEXT NOT NULL,
                created_at TEXT NOT NULL,
                updated_at TEXT NOT NULL,
                scheduled_at BIGINT,                -- ms since the epoch, while scheduled
                targets TEXT NOT NULL,              -- a label a line, between newlines
                revision BIGINT NOT NULL
            )
            """,
            "CREATE INDEX change_request_by_state ON change_request(state, id)",
            "CREATE INDEX change_request_by_schedule ON change_request(scheduled_at) WHERE scheduled_at IS NOT NULL",
            """
            CREATE TABLE change_request_review (
                seq BIGINT PRIMARY KEY,
                change_request_id BIGINT NOT NULL REFERENCES change_request(id),
                kind TEXT NOT NULL,                 -- comment, approval, rejection
                author TEXT NOT NULL,
                at TEXT NOT NULL,
                version BIGINT NOT NULL,            -- the version of the request it was given at
                text TEXT NOT NULL
            )
            """,
            "CREATE INDEX change_request_review_by_request ON change_request_review(change_request_id, seq)",
            """
            CREATE TABLE preview_token (
                id BIGINT PRIMARY KEY,
                change_request_id BIGINT NOT NULL REFERENCES change_request(id),
                name TEXT NOT NULL,
                secret_sha256 TEXT NOT NULL UNIQUE,
                created_by TEXT NOT NULL,
                created_at TEXT NOT NULL,
                expires_at BIGINT NOT NULL,         -- ms since the epoch
                revoked_at TEXT,
                revoked_by TEXT
            )
            """,
            "CREATE INDEX preview_token_by_request ON preview_token(change_request_id)",
            "UPDATE admin_token SET role = 'admin' WHERE name = 'admin' AND role = 'editor'",
        ]
    )
}
