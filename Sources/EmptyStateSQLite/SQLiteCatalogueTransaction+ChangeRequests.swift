import EmptyStateStore
import GRDB

/// The change requests' rows on SQLite (`CatalogueTransaction`): their lines, review records and
/// preview tokens, read and written inside the catalogue's write transaction.
extension SQLiteCatalogueTransaction {
    func reviews(of changeRequestID: Int) throws(StoreError) -> [ReviewRecord] {
        try sql {
            try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT seq, change_request_id, kind, author, at, version, text FROM change_request_review
                        WHERE change_request_id = ? ORDER BY seq
                        """
                ),
                arguments: [changeRequestID]
            ).map(Self.review)
        }
    }

    func previewTokens(of changeRequestIDs: [Int]) throws(StoreError) -> [PreviewTokenRecord] {
        try sql {
            let statement = try db.cachedStatement(
                sql: """
                    SELECT id, change_request_id, name, secret_sha256, created_by, created_at, expires_at, revoked_at,
                        revoked_by
                    FROM preview_token WHERE change_request_id = ? ORDER BY id
                    """
            )
            return try changeRequestIDs.flatMap { id in
                try Row.fetchAll(statement, arguments: [id]).map(Self.previewToken)
            }
        }
    }

    func nextNumber(_ sequence: CatalogueSequence) throws(StoreError) -> Int {
        let query =
            switch sequence {
            case .changeRequest: "SELECT COALESCE(MAX(id), 0) + 1 FROM change_request"
            case .review: "SELECT COALESCE(MAX(seq), 0) + 1 FROM change_request_review"
            case .previewToken: "SELECT COALESCE(MAX(id), 0) + 1 FROM preview_token"
            }
        return try sql { try Int.fetchOne(db.cachedStatement(sql: query)) ?? 1 }
    }

    /// Writes the change requests' lines, review records and preview tokens of a batch.
    func writeChangeRequestRows(_ rows: CatalogueRows) throws {
        if !rows.changeRequests.isEmpty {
            let upsert = try db.cachedStatement(
                sql: """
                    INSERT INTO change_request (id, state, title, author, created_at, updated_at, scheduled_at, targets,
                        revision)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT(id) DO UPDATE SET state = excluded.state, title = excluded.title,
                        updated_at = excluded.updated_at, scheduled_at = excluded.scheduled_at, targets = excluded.targets,
                        revision = excluded.revision
                    """
            )
            for line in rows.changeRequests {
                try upsert.execute(arguments: [
                    line.id, line.state.rawValue, line.title, line.author, line.createdAt, line.updatedAt,
                    line.scheduledAt, Self.targetsText(line.targets), line.revision,
                ])
            }
        }
        if !rows.reviews.isEmpty {
            let insert = try db.cachedStatement(
                sql: """
                    INSERT INTO change_request_review (seq, change_request_id, kind, author, at, version, text)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """
            )
            for review in rows.reviews {
                try insert.execute(arguments: [
                    review.seq, review.changeRequestID, review.kind.rawValue, review.author, review.at, review.version,
                    review.text,
                ])
            }
        }
        if !rows.previewTokens.isEmpty {
            let upsert = try db.cachedStatement(
                sql: """
                    INSERT INTO preview_token (id, change_request_id, name, secret_sha256, created_by, created_at,
                        expires_at, revoked_at, revoked_by)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT(id) DO UPDATE SET revoked_at = excluded.revoked_at, revoked_by = excluded.revoked_by
                    """
            )
            for token in rows.previewTokens {
                try upsert.execute(arguments: [
                    token.id, token.changeRequestID, token.name, token.secretSHA256, token.createdBy, token.createdAt,
                    token.expiresAt, token.revokedAt, token.revokedBy,
                ])
            }
        }
    }

    /// The `targets` column: each label on a line of its own, with a newline before the first and
    /// after the last, so that a filter finds `\nlabel\n` exactly.
    static func targetsText(_ targets: [String]) -> String {
        "\n" + targets.map { $0 + "\n" }.joined()
    }

    static func review(_ row: Row) -> ReviewRecord {
        ReviewRecord(
            changeRequestID: row["change_request_id"],
            seq: row["seq"],
            kind: ReviewRecord.Kind(rawValue: row["kind"]) ?? .comment,
            author: row["author"],
            at: row["at"],
            version: row["version"],
            text: row["text"]
        )
    }

    func previewToken(secretSHA256: String) throws(StoreError) -> PreviewTokenRecord? {
        try sql {
            let statement = try db.cachedStatement(
                sql: """
                    SELECT id, change_request_id, name, secret_sha256, created_by, created_at, expires_at, revoked_at,
                        revoked_by
                    FROM preview_token WHERE secret_sha256 = ?
                    """
            )
            return try Row.fetchOne(statement, arguments: [secretSHA256]).map(Self.previewToken)
        }
    }

    static func previewToken(_ row: Row) -> PreviewTokenRecord {
        PreviewTokenRecord(
            id: row["id"],
            changeRequestID: row["change_request_id"],
            name: row["name"],
            secretSHA256: row["secret_sha256"],
            createdBy: row["created_by"],
            createdAt: row["created_at"],
            expiresAt: row["expires_at"],
            revokedAt: row["revoked_at"],
            revokedBy: row["revoked_by"]
        )
    }
}
