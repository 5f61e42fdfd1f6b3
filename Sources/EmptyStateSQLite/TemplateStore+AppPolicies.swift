import EmptyStateCore
import EmptyStateStore
import GRDB

/// App policies are versioned documents in the templates' tables (`kind = 'app-policy'`, id
/// `app-policy:<platform>`, which no template id can be): every change is a revision, with the
/// same rollback and audit trail. Errors name the platform (`ios`), not the row id.
extension TemplateStore {
    /// Every platform's policy, for the snapshot clients are served from.
    package func livePolicies() throws(StoreError) -> [StoredAppPolicy] {
        try read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT id, revision, document, updated_at, updated_by FROM template
                    WHERE kind = 'app-policy' AND deleted = 0 ORDER BY id
                    """
            ).map { try Self.storedPolicy($0) }
        }
    }

    /// The revision of each platform's policy: a cheap read to notice writes of other replicas.
    package func policyRevisions() throws(StoreError) -> [Platform: Int] {
        try read { db in
            var revisions: [Platform: Int] = [:]
            for row in try Row.fetchAll(
                db,
                sql: "SELECT id, revision FROM template WHERE kind = 'app-policy' AND deleted = 0"
            ) {
                if let platform = StoredDocuments.appPolicyPlatform(documentID: row["id"]) {
                    revisions[platform] = row["revision"]
                }
            }
            return revisions
        }
    }

    /// The policy of `platform`.
    /// - Throws: `.notFound` (named by the platform) when it has none.
    package func policy(platform: Platform) throws(StoreError) -> StoredAppPolicy {
        try read { db in
            guard let row = try Self.policyRow(db, platform) else { throw StoreError.notFound(id: platform.rawValue) }
            return try Self.storedPolicy(row)
        }
    }

    /// Creates (`.absent`) or replaces (`.revision(n)`) a platform's policy.
    /// - Returns: the stored policy and whether it was created.
    package func putPolicy(
        _ policy: AppPolicy,
        precondition: WritePrecondition,
        actor: String
    ) throws(StoreError) -> (stored: StoredAppPolicy, created: Bool) {
        try write { db in
            let platform = policy.platform
            let row = try Self.policyRow(db, platform)
            let current = row.map { $0["revision"] as Int } ?? 0
            switch precondition {
            case .absent:
                if row != nil { throw StoreError.alreadyExists(id: platform.rawValue, revision: current) }
            case .revision(let expected):
                guard row != nil else { throw StoreError.notFound(id: platform.rawValue) }
                if expected != current { throw StoreError.stale(id: platform.rawValue, current: current) }
            }
            let previous = try row.map { try StoredDocuments.appPolicy(fromText: $0["document"]) }
            let stored = try self.applyPolicy(
                db,
                policy,
                previous: previous,
                revision: current + 1,
                action: row == nil ? .create : .replace,
                actor: actor
            )
            return (stored, row == nil)
        }
    }

    /// Makes the content of revision `target` of a platform's policy its newest revision.
    /// - Parameter expectedRevision: when given, the current revision must equal it.
    package func rollbackPolicy(
        platform: Platform,
        to target: Int,
        expectedRevision: Int?,
        actor: String
    ) throws(StoreError) -> StoredAppPolicy {
        try write { db in
            guard let row = try Self.policyRow(db, platform) else { throw StoreError.notFound(id: platform.rawValue) }
            let current: Int = row["revision"]
            if let expectedRevision, expectedRevision != current {
                throw StoreError.stale(id: platform.rawValue, current: current)
            }
            guard
                let text = try String.fetchOne(
                    db,
                    sql: "SELECT document FROM revision WHERE template_id = ? AND revision = ?",
                    arguments: [StoredDocuments.appPolicyID(platform), target]
                )
            else { throw StoreError.noSuchRevision(id: platform.rawValue, revision: target) }
            return try self.applyPolicy(
                db,
                try StoredDocuments.appPolicy(fromText: text),
                previous: try StoredDocuments.appPolicy(fromText: row["document"]),
                revision: current + 1,
                action: .rollback,
                actor: actor
            )
        }
    }

    /// A policy's revisions, newest first, without their documents.
    package func policyRevisions(
        platform: Platform,
        page: Int,
        pageSize: Int
    ) throws(StoreError)
        -> Page<RevisionRecord>
    {
        try revisions(
            documentID: StoredDocuments.appPolicyID(platform),
            kind: StoredDocuments.appPolicyKind,
            reportedAs: platform.rawValue,
            page: page,
            pageSize: pageSize
        )
    }

    /// One revision of a policy with its document.
    package func policyRevision(platform: Platform, number: Int) throws(StoreError) -> RevisionRecord {
        try revision(
            documentID: StoredDocuments.appPolicyID(platform),
            kind: StoredDocuments.appPolicyKind,
            reportedAs: platform.rawValue,
            number: number
        )
    }

    // MARK: - Internals

    private static func policyRow(_ db: Database, _ platform: Platform) throws -> Row? {
        try Row.fetchOne(
            db,
            sql: """
                SELECT id, revision, document, updated_at, updated_by FROM template
                WHERE id = ? AND kind = 'app-policy' AND deleted = 0
                """,
            arguments: [StoredDocuments.appPolicyID(platform)]
        )
    }

    /// Writes `policy` as the current state at `revision` and appends the revision.
    private func applyPolicy(
        _ db: Database,
        _ policy: AppPolicy,
        previous: AppPolicy?,
        revision: Int,
        action: RevisionRecord.Action,
        actor: String
    ) throws -> StoredAppPolicy {
        let id = StoredDocuments.appPolicyID(policy.platform)
        let document = StoredDocuments.text(of: policy.document)
        let now = Timestamp.now()
        try db.execute(
            sql: """
                INSERT INTO template (id, revision, deleted, document, edited, updated_at, updated_by, kind)
                VALUES (?, ?, 0, ?, 1, ?, ?, 'app-policy')
                ON CONFLICT(id) DO UPDATE SET revision = excluded.revision, document = excluded.document,
                    updated_at = excluded.updated_at, updated_by = excluded.updated_by
                """,
            arguments: [id, revision, document, now, actor]
        )
        let changed = AppPolicy.changedFields(from: previous, to: policy)
        try db.execute(
            sql: Self.insertRevision,
            arguments: [
                id, revision, action.rawValue, document, StoredDocuments.changedFieldsText(changed), now, actor,
            ]
        )
        return StoredAppPolicy(policy: policy, revision: revision, updatedAt: now, updatedBy: actor)
    }

    private static func storedPolicy(_ row: Row) throws(StoreError) -> StoredAppPolicy {
        StoredAppPolicy(
            policy: try StoredDocuments.appPolicy(fromText: row["document"]),
            revision: row["revision"],
            updatedAt: row["updated_at"],
            updatedBy: row["updated_by"]
        )
    }
}
