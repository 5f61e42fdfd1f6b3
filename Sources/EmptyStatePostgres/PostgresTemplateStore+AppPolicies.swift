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

    package func putPolicy(
        _ policy: AppPolicy,
        precondition: WritePrecondition,
        actor: String
    ) throws(StoreError) -> (stored: StoredAppPolicy, created: Bool) {
        let logger = logger
        return try write { connection in
            let plan = try CatalogueRules.put(
                name: policy.platform.rawValue,
                current: try await Self.row(
                    connection,
                    id: StoredDocuments.appPolicyID(policy.platform),
                    kind: .appPolicy,
                    logger: logger
                ),
                precondition: precondition
            )
            let write = try RevisionWrite.policy(policy, plan: plan, actor: actor)
            let stored = try await Self.applyPolicy(connection, policy, write, logger: logger)
            return (stored, plan.created)
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
            let plan = try CatalogueRules.rollback(
                name: platform.rawValue,
                current: try await Self.row(connection, id: id, kind: .appPolicy, logger: logger),
                expectedRevision: expectedRevision
            )
            let text = try CatalogueRules.rollbackText(
                name: platform.rawValue,
                number: target,
                target: try await Self.recorded(connection, documentID: id, revision: target, logger: logger)
            )
            let policy = try StoredDocuments.appPolicy(fromText: text)
            let write = try RevisionWrite.policy(policy, plan: plan, actor: actor)
            return try await Self.applyPolicy(connection, policy, write, logger: logger)
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

    /// Writes `policy` as the current state `write` records, appends the revision and announces
    /// it.
    static func applyPolicy(
        _ connection: PostgresConnection,
        _ policy: AppPolicy,
        _ write: RevisionWrite,
        logger: Logger
    ) async throws -> StoredAppPolicy {
        try await setCurrent(connection, write, edited: true, logger: logger)
        try await appendRevision(connection, write, logger: logger)
        return StoredAppPolicy(policy: policy, revision: write.revision, updatedAt: write.at, updatedBy: write.by)
    }
}
