import EmptyStateCore
import EmptyStateStore
import GRDB

/// App policies are versioned documents in the templates' tables (`kind = 'app-policy'`, id
/// `app-policy:<platform>`, which no template id can be): every change is a revision, with the
/// same rollback and audit trail. Errors name the platform (`ios`), not the row id.
extension SQLiteTemplateStore {
    /// Every platform's policy, for the snapshot clients are served from.
    package func livePolicies() throws(StoreError) -> [StoredAppPolicy] {
        try read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT id, revision, deleted, document, updated_at, updated_by FROM template
                    WHERE kind = 'app-policy' AND deleted = 0 ORDER BY id
                    """
            ).map { try StoredAppPolicy(Self.current($0)) }
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
            guard let current = try Self.policyRow(db, platform) else {
                throw StoreError.notFound(id: platform.rawValue)
            }
            return try StoredAppPolicy(current)
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
            let plan = try CatalogueRules.put(
                name: policy.platform.rawValue,
                current: try Self.policyRow(db, policy.platform),
                precondition: precondition
            )
            let stored = try self.applyPolicy(db, policy, try RevisionWrite.policy(policy, plan: plan, actor: actor))
            return (stored, plan.created)
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
            let plan = try CatalogueRules.rollback(
                name: platform.rawValue,
                current: try Self.policyRow(db, platform),
                expectedRevision: expectedRevision
            )
            let text = try CatalogueRules.rollbackText(
                name: platform.rawValue,
                number: target,
                target: try Self.recorded(db, documentID: StoredDocuments.appPolicyID(platform), revision: target)
            )
            let policy = try StoredDocuments.appPolicy(fromText: text)
            return try self.applyPolicy(db, policy, try RevisionWrite.policy(policy, plan: plan, actor: actor))
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

    /// The current row of a platform's policy; `nil` when it has none.
    private static func policyRow(_ db: Database, _ platform: Platform) throws -> CurrentDocument? {
        try Row.fetchOne(
            db,
            sql: """
                SELECT revision, deleted, document, updated_at, updated_by FROM template
                WHERE id = ? AND kind = 'app-policy' AND deleted = 0
                """,
            arguments: [StoredDocuments.appPolicyID(platform)]
        ).map(Self.current)
    }

    /// Writes `policy` as the current state `write` records and appends the revision.
    private func applyPolicy(_ db: Database, _ policy: AppPolicy, _ write: RevisionWrite) throws -> StoredAppPolicy {
        try setCurrent(db, write, edited: true)
        try appendRevision(db, write)
        return StoredAppPolicy(policy: policy, revision: write.revision, updatedAt: write.at, updatedBy: write.by)
    }
}
