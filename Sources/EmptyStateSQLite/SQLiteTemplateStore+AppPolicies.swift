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
            let id = StoredDocuments.appPolicyID(platform)
            guard let current = try Self.currentRows(db, ids: [id], kind: .appPolicy)[id], !current.deleted else {
                throw StoreError.notFound(id: platform.rawValue)
            }
            return try StoredAppPolicy(current)
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
}
