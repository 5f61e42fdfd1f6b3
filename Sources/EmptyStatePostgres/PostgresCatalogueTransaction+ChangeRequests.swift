import EmptyStateStore
import Logging
import PostgresNIO

/// The change requests' rows on PostgreSQL (`CatalogueTransaction`): their lines, review records
/// and preview tokens, read and written inside the catalogue's write transaction (under its
/// lock, so `nextNumber` is free of races), a statement a table.
extension PostgresCatalogueTransaction {
    func reviews(of changeRequestID: Int) throws(StoreError) -> [ReviewRecord] {
        let logger = session.logger
        return try session.run { connection in
            var reviews: [ReviewRecord] = []
            for try await (seq, id, kind, author, at, version, text) in try await connection.query(
                """
                SELECT seq, change_request_id, kind, author, at, version, text FROM change_request_review
                WHERE change_request_id = \(changeRequestID) ORDER BY seq
                """,
                logger: logger
            ).decode((Int, Int, String, String, String, Int, String).self) {
                reviews.append(
                    ReviewRecord(
                        changeRequestID: id,
                        seq: seq,
                        kind: ReviewRecord.Kind(rawValue: kind) ?? .comment,
                        author: author,
                        at: at,
                        version: version,
                        text: text
                    )
                )
            }
            return reviews
        }
    }

    func previewTokens(of changeRequestIDs: [Int]) throws(StoreError) -> [PreviewTokenRecord] {
        guard !changeRequestIDs.isEmpty else { return [] }
        return try previewTokens(
            """
            SELECT \(unescaped: Self.previewTokenColumns)
            FROM preview_token WHERE change_request_id = ANY(\(changeRequestIDs)) ORDER BY id
            """
        )
    }

    func previewToken(secretSHA256: String) throws(StoreError) -> PreviewTokenRecord? {
        try previewTokens(
            "SELECT \(unescaped: Self.previewTokenColumns) FROM preview_token WHERE secret_sha256 = \(secretSHA256)"
        ).first
    }

    private static let previewTokenColumns =
        "id, change_request_id, name, secret_sha256, created_by, created_at, expires_at, revoked_at, revoked_by"

    /// The preview tokens `query` selects (`previewTokenColumns`).
    private func previewTokens(_ query: PostgresQuery) throws(StoreError) -> [PreviewTokenRecord] {
        let logger = session.logger
        return try session.run { connection in
            var tokens: [PreviewTokenRecord] = []
            for try await row in try await connection.query(query, logger: logger) {
                let (id, request, name, hash, by, at, expires, revokedAt, revokedBy) = try row.decode(
                    (Int, Int, String, String, String, String, Int64, String?, String?).self
                )
                tokens.append(
                    PreviewTokenRecord(
                        id: id,
                        changeRequestID: request,
                        name: name,
                        secretSHA256: hash,
                        createdBy: by,
                        createdAt: at,
                        expiresAt: expires,
                        revokedAt: revokedAt,
                        revokedBy: revokedBy
                    )
                )
            }
            return tokens
        }
    }

    func nextNumber(_ sequence: CatalogueSequence) throws(StoreError) -> Int {
        let logger = session.logger
        let query: PostgresQuery =
            switch sequence {
            case .changeRequest: "SELECT COALESCE(MAX(id), 0) + 1 FROM change_request"
            case .review: "SELECT COALESCE(MAX(seq), 0) + 1 FROM change_request_review"
            case .previewToken: "SELECT COALESCE(MAX(id), 0) + 1 FROM preview_token"
            }
        return try session.run { connection in
            var next = 1
            for try await value in try await connection.query(query, logger: logger).decode(Int.self) { next = value }
            return next
        }
    }

    /// Writes the change requests' lines, review records and preview tokens of a batch. (postgres-nio
    /// binds no array with a NULL in it: an absent value goes with a flag.)
    static func writeChangeRequestRows(
        _ rows: CatalogueRows,
        _ connection: PostgresConnection,
        _ logger: Logger
    ) async throws {
        let lines = rows.changeRequests
        if !lines.isEmpty {
            try await connection.all(
                """
                INSERT INTO change_request (id, state, title, author, created_at, updated_at, scheduled_at, targets,
                    revision)
                SELECT id, state, title, author, created_at, updated_at, CASE WHEN scheduled THEN at END, targets,
                    revision
                FROM unnest(\(lines.map(\.id))::int8[], \(lines.map(\.state.rawValue))::text[], \(lines.map(\.title))::text[],
                    \(lines.map(\.author))::text[], \(lines.map(\.createdAt))::text[], \(lines.map(\.updatedAt))::text[],
                    \(lines.map { $0.scheduledAt != nil })::bool[], \(lines.map { $0.scheduledAt ?? 0 })::int8[],
                    \(lines.map { Self.targetsText($0.targets) })::text[], \(lines.map(\.revision))::int8[])
                    WITH ORDINALITY AS l(id, state, title, author, created_at, updated_at, scheduled, at, targets, revision, n)
                ORDER BY n
                ON CONFLICT (id) DO UPDATE SET state = excluded.state, title = excluded.title,
                    updated_at = excluded.updated_at, scheduled_at = excluded.scheduled_at, targets = excluded.targets,
                    revision = excluded.revision
                """,
                logger: logger
            )
        }
        let reviews = rows.reviews
        if !reviews.isEmpty {
            try await connection.all(
                """
                INSERT INTO change_request_review (seq, change_request_id, kind, author, at, version, text)
                SELECT * FROM unnest(\(reviews.map(\.seq))::int8[], \(reviews.map(\.changeRequestID))::int8[],
                    \(reviews.map(\.kind.rawValue))::text[], \(reviews.map(\.author))::text[], \(reviews.map(\.at))::text[],
                    \(reviews.map(\.version))::int8[], \(reviews.map(\.text))::text[])
                """,
                logger: logger
            )
        }
        let tokens = rows.previewTokens
        if !tokens.isEmpty {
            try await connection.all(
                """
                INSERT INTO preview_token (id, change_request_id, name, secret_sha256, created_by, created_at, expires_at,
                    revoked_at, revoked_by)
                SELECT id, request, name, hash, by, at, expires, CASE WHEN revoked THEN revoked_at END,
                    CASE WHEN revoked THEN revoked_by END
                FROM unnest(\(tokens.map(\.id))::int8[], \(tokens.map(\.changeRequestID))::int8[], \(tokens.map(\.name))::text[],
                    \(tokens.map(\.secretSHA256))::text[], \(tokens.map(\.createdBy))::text[], \(tokens.map(\.createdAt))::text[],
                    \(tokens.map(\.expiresAt))::int8[], \(tokens.map { $0.revokedAt != nil })::bool[],
                    \(tokens.map { $0.revokedAt ?? "" })::text[], \(tokens.map { $0.revokedBy ?? "" })::text[])
                    WITH ORDINALITY AS t(id, request, name, hash, by, at, expires, revoked, revoked_at, revoked_by, n)
                ORDER BY n
                ON CONFLICT (id) DO UPDATE SET revoked_at = excluded.revoked_at, revoked_by = excluded.revoked_by
                """,
                logger: logger
            )
        }
    }

    /// The `targets` column: each label on a line of its own, between newlines, so that a filter
    /// finds `\nlabel\n` exactly (as on SQLite).
    static func targetsText(_ targets: [String]) -> String {
        "\n" + targets.map { $0 + "\n" }.joined()
    }
}
