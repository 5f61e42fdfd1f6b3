import EmptyStateCore
import EmptyStateStore
import JSONCoding
import Logging
import PostgresNIO

/// App policies are versioned documents in the templates' tables (`kind = 'app-policy'`, id
/// `app-policy:<platform>`): every change is a revision, with the same rollback and audit trail.
/// Errors name the platform (`ios`), not the row id.
extension PostgresTemplateStore {
    package func livePolicies() throws(StoreError) -> [StoredAppPolicy] {
        let rows = try liveRows(kind: .appPolicy)
        return try Self.parsing {
            try rows.map { row in
                StoredAppPolicy(
                    policy: try StoredDocuments.appPolicy(fromText: row.document),
                    revision: row.revision,
                    updatedAt: row.updatedAt,
                    updatedBy: row.updatedBy
                )
            }
        }
    }

    package func policyRevisions() throws(StoreError) -> [Platform: Int] {
        let logger = logger
        return try read { client in
            var revisions: [Platform: Int] = [:]
            for try await (id, revision) in try await client.query(
                "SELECT id, revision FROM template WHERE kind = 'app-policy' AND deleted = false",
                logger: logger
            ).decode((String, Int).self) {
                if let platform = StoredDocuments.appPolicyPlatform(documentID: id) { revisions[platform] = revision }
            }
            return revisions
        }
    }

    package func policy(platform: Platform) throws(StoreError) -> StoredAppPolicy {
        let logger = logger
        let id = StoredDocuments.appPolicyID(platform)
        let row = try read { client in
            try await client.withConnection { connection in
                try await Self.row(connection, id: id, kind: .appPolicy, logger: logger)
            }
        }
        guard let row, !row.deleted else { throw .notFound(id: platform.rawValue) }
        return try Self.parsing {
            StoredAppPolicy(
                policy: try StoredDocuments.appPolicy(fromText: row.document),
                revision: row.revision,
                updatedAt: row.updatedAt,
                updatedBy: row.updatedBy
            )
        }
    }

    package func putPolicy(
        _ policy: AppPolicy,
        precondition: WritePrecondition,
        actor: String
    ) throws(StoreError) -> (stored: StoredAppPolicy, created: Bool) {
        let logger = logger
        return try write { connection in
            let platform = policy.platform
            let id = StoredDocuments.appPolicyID(platform)
            let row = try await Self.row(connection, id: id, kind: .appPolicy, logger: logger)
            let current = row?.revision ?? 0
            switch precondition {
            case .absent:
                if row != nil { throw StoreError.alreadyExists(id: platform.rawValue, revision: current) }
            case .revision(let expected):
                guard row != nil else { throw StoreError.notFound(id: platform.rawValue) }
                if expected != current { throw StoreError.stale(id: platform.rawValue, current: current) }
            }
            let stored = try await Self.applyPolicy(
                connection,
                policy,
                previous: try row.map { try StoredDocuments.appPolicy(fromText: $0.document) },
                revision: current + 1,
                action: row == nil ? .create : .replace,
                actor: actor,
                logger: logger
            )
            return (stored, row == nil)
        }
    }

    package func rollbackPolicy(
        platform: Platform,
        to target: Int,
        expectedRevision: Int?,
        actor: String
    ) throws(StoreError) -> StoredAppPolicy {
        let logger = logger
        return try write { connection in
            let id = StoredDocuments.appPolicyID(platform)
            guard let row = try await Self.row(connection, id: id, kind: .appPolicy, logger: logger) else {
                throw StoreError.notFound(id: platform.rawValue)
            }
            if let expectedRevision, expectedRevision != row.revision {
                throw StoreError.stale(id: platform.rawValue, current: row.revision)
            }
            let recorded = try await connection.all(
                "SELECT document FROM revision WHERE template_id = \(id) AND revision = \(target)",
                logger: logger
            )
            guard let first = recorded.first, let text = try first.decode(String?.self) else {
                throw StoreError.noSuchRevision(id: platform.rawValue, revision: target)
            }
            return try await Self.applyPolicy(
                connection,
                try StoredDocuments.appPolicy(fromText: text),
                previous: try StoredDocuments.appPolicy(fromText: row.document),
                revision: row.revision + 1,
                action: .rollback,
                actor: actor,
                logger: logger
            )
        }
    }

    package func policyRevisions(
        platform: Platform,
        page: Int,
        pageSize: Int
    ) throws(StoreError)
        -> Page<RevisionRecord>
    {
        try revisions(
            documentID: StoredDocuments.appPolicyID(platform),
            kind: .appPolicy,
            reportedAs: platform.rawValue,
            page: page,
            pageSize: pageSize
        )
    }

    package func policyRevision(platform: Platform, number: Int) throws(StoreError) -> RevisionRecord {
        try revision(
            documentID: StoredDocuments.appPolicyID(platform),
            kind: .appPolicy,
            reportedAs: platform.rawValue,
            number: number
        )
    }

    /// Writes `policy` as the current state at `revision`, appends the revision and announces it.
    static func applyPolicy(
        _ connection: PostgresConnection,
        _ policy: AppPolicy,
        previous: AppPolicy?,
        revision: Int,
        action: RevisionRecord.Action,
        actor: String,
        logger: Logger
    ) async throws -> StoredAppPolicy {
        let id = StoredDocuments.appPolicyID(policy.platform)
        let document = StoredDocuments.text(of: policy.document)
        let now = Timestamp.now()
        try await connection.all(
            """
            INSERT INTO template (id, kind, revision, deleted, document, edited, updated_at, updated_by)
            VALUES (\(id), 'app-policy', \(revision), false, \(document), true, \(now), \(actor))
            ON CONFLICT (id) DO UPDATE SET revision = excluded.revision, document = excluded.document,
                updated_at = excluded.updated_at, updated_by = excluded.updated_by
            """,
            logger: logger
        )
        let changed = StoredDocuments.text(
            of:
                .array(AppPolicy.changedFields(from: previous, to: policy).map(JSONValue.string))
        )
        try await connection.all(
            """
            INSERT INTO revision (template_id, revision, action, document, changed_fields, created_at, created_by)
            VALUES (\(id), \(revision), \(action.rawValue), \(document), \(changed), \(now), \(actor))
            """,
            logger: logger
        )
        try await announce(connection, documentID: id, revision: revision, logger: logger)
        return StoredAppPolicy(policy: policy, revision: revision, updatedAt: now, updatedBy: actor)
    }
}
