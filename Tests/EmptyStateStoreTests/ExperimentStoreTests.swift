import EmptyStateCore
import EmptyStateStore
import Testing

private func experiment(weights: [Double] = [0.5, 0.5], status: Experiment.Status = .draft) -> Experiment {
    Experiment(
        id: "retry-wording",
        templateID: "network-error",
        status: status,
        metric: .tap(action: "retry"),
        variants: [
            .init(key: "control", weight: weights[0]),
            .init(key: "plain", weight: weights[1], strings: [("en", ["title": "No connection"])]),
        ]
    )
}

@Suite("Template stores: experiments are versioned documents beside the templates")
struct ExperimentStoreTests {
    @Test(
        "create, replace at the current revision, revisions; templates and policies do not see them",
        arguments: StoreBackend.all
    )
    func writesAndReads(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, _) = try makeStore(backend)
            let templatesBefore = try store.liveTemplates().count
            #expect(throws: StoreError.notFound(id: "retry-wording")) { try store.experiment(id: "retry-wording") }
            let (first, created) = try store.putExperiment(experiment(), precondition: .absent, actor: "alice")
            #expect(created && first.revision == 1 && first.updatedBy == "alice")
            #expect(throws: StoreError.alreadyExists(id: "retry-wording", revision: 1)) {
                try store.putExperiment(experiment(), precondition: .absent, actor: "alice")
            }
            #expect(throws: StoreError.stale(id: "retry-wording", current: 1)) {
                try store.putExperiment(experiment(weights: [0.4, 0.6]), precondition: .revision(3), actor: "bob")
            }
            let (second, again) = try store.putExperiment(
                experiment(weights: [0.4, 0.6]),
                precondition: .revision(1),
                actor: "bob"
            )
            #expect(!again && second.revision == 2)
            #expect(try store.experiment(id: "retry-wording") == second)
            #expect(try store.liveExperiments().map(\.experiment) == [experiment(weights: [0.4, 0.6])])
            let revisions = try store.experimentRevisions(id: "retry-wording", page: 1, pageSize: 10)
            #expect(revisions.items.map(\.revision) == [2, 1])
            #expect(revisions.items.first?.changedFields == ["/variants"])
            #expect(try store.liveTemplates().count == templatesBefore)
            #expect(try store.livePolicies().isEmpty)
            #expect(throws: StoreError.notFound(id: "other")) {
                try store.experimentRevisions(id: "other", page: 1, pageSize: 10)
            }
        }
    }
}
