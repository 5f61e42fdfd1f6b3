import EmptyStateCore
import EmptyStateStore
import Logging
import PostgresNIO

/// Experiments are versioned documents in the templates' tables, as app policies are
/// (`kind = 'experiment'`, id `experiment:<id>`): every change is a revision, announced on the
/// change feed like any catalogue write. Errors name the experiment's id, not the row id.
extension PostgresTemplateStore {
    package func liveExperiments() throws(StoreError) -> [StoredExperiment] {
        try liveRows(kind: .experiment).map { (row) throws(StoreError) in try StoredExperiment(row) }
    }

    package func experiment(id: String) throws(StoreError) -> StoredExperiment {
        let row = try current(id: StoredDocuments.experimentID(id), kind: .experiment)
        guard let row, !row.deleted else { throw .notFound(id: id) }
        return try StoredExperiment(row)
    }

    package func experimentRevisions(id: String, page: Int, pageSize: Int) throws(StoreError) -> Page<RevisionRecord> {
        try revisions(
            documentID: StoredDocuments.experimentID(id),
            kind: .experiment,
            reportedAs: id,
            page: page,
            pageSize: pageSize
        )
    }
}
