import EmptyStateCore
import EmptyStateStore
import GRDB

/// Experiments are versioned documents in the templates' tables, as app policies are
/// (`kind = 'experiment'`, id `experiment:<id>`): every change is a revision with the same
/// preconditions and audit trail. Errors name the experiment's id, not the row id.
extension SQLiteTemplateStore {
    package func liveExperiments() throws(StoreError) -> [StoredExperiment] {
        try read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT id, revision, deleted, document, updated_at, updated_by FROM template
                    WHERE kind = 'experiment' AND deleted = 0 ORDER BY id
                    """
            ).map { try StoredExperiment(Self.current($0)) }
        }
    }

    package func experiment(id: String) throws(StoreError) -> StoredExperiment {
        try read { db in
            let documentID = StoredDocuments.experimentID(id)
            guard let current = try Self.currentRows(db, ids: [documentID], kind: .experiment)[documentID],
                !current.deleted
            else { throw StoreError.notFound(id: id) }
            return try StoredExperiment(current)
        }
    }

    package func experimentRevisions(id: String, page: Int, pageSize: Int) throws(StoreError) -> Page<RevisionRecord> {
        try revisions(
            documentID: StoredDocuments.experimentID(id),
            kind: StoredDocuments.experimentKind,
            reportedAs: id,
            page: page,
            pageSize: pageSize
        )
    }
}
