import EmptyStateCore
import EmptyStateStore
import Logging
import PostgresNIO

/// App policies are versioned documents in the templates' tables (`kind = 'app-policy'`, id
/// `app-policy:<platform>`): every change is a revision, with the same rollback and audit trail.
/// Errors name the platform (`ios`), not the row id.
extension PostgresTemplateStore {
    package func livePolicies() throws(StoreError) -> [StoredAppPolicy] {
        try liveRows(kind: .appPolicy).map { (row) throws(StoreError) in try StoredAppPolicy(row) }
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
        let row = try current(id: StoredDocuments.appPolicyID(platform), kind: .appPolicy)
        guard let row, !row.deleted else { throw .notFound(id: platform.rawValue) }
        return try StoredAppPolicy(row)
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
}
