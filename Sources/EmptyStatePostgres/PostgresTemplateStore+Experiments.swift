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

    package func putExperiment(
        _ experiment: Experiment,
        precondition: WritePrecondition,
        actor: String
    ) throws(StoreError) -> (stored: StoredExperiment, created: Bool) {
        let logger = logger
        return try write { connection in
            let plan = try CatalogueRules.put(
                name: experiment.id,
                current: try await Self.row(
                    connection,
                    id: StoredDocuments.experimentID(experiment.id),
                    kind: .experiment,
                    logger: logger
                ),
                precondition: precondition
            )
            let write = RevisionWrite.experiment(experiment, plan: plan, actor: actor)
            try await Self.setCurrent(connection, write, edited: true, logger: logger)
            try await Self.appendRevision(connection, write, logger: logger)
            return (StoredExperiment(experiment, written: write), plan.created)
        }
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
