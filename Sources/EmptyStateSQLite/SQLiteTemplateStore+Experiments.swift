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
            guard let current = try Self.experimentRow(db, id) else { throw StoreError.notFound(id: id) }
            return try StoredExperiment(current)
        }
    }

    package func putExperiment(
        _ experiment: Experiment,
        precondition: WritePrecondition,
        actor: String
    ) throws(StoreError) -> (stored: StoredExperiment, created: Bool) {
        try write { db in
            let plan = try CatalogueRules.put(
                name: experiment.id,
                current: try Self.experimentRow(db, experiment.id),
                precondition: precondition
            )
            let write = RevisionWrite.experiment(experiment, plan: plan, actor: actor)
            try setCurrent(db, write, edited: true)
            try appendRevision(db, write)
            return (StoredExperiment(experiment, written: write), plan.created)
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

    /// The current row of an experiment; `nil` when there is none.
    private static func experimentRow(_ db: Database, _ id: String) throws -> CurrentDocument? {
        try Row.fetchOne(
            db,
            sql: """
                SELECT revision, deleted, document, updated_at, updated_by FROM template
                WHERE id = ? AND kind = 'experiment' AND deleted = 0
                """,
            arguments: [StoredDocuments.experimentID(id)]
        ).map(Self.current)
    }
}
