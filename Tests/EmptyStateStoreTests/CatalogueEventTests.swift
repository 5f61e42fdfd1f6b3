import EmptyStateCore
import EmptyStateStore
import JSONCoding
import Testing

/// A transaction that records what `CatalogueWrite.run` asks of it, in order; it holds no rows.
private final class RecordingTransaction: CatalogueTransaction {
    var calls: [String] = []
    var recorded: [CatalogueEvent] = []

    func currentRows(_ ids: [String], kind: DocumentKind) throws(StoreError) -> [String: CurrentDocument] { [:] }
    func recorded(documentID: String, revision: Int) throws(StoreError) -> CatalogueRules.Target { .missing }
    func aliasOwners(of names: [String], except templateID: String) throws(StoreError) -> [String: String] { [:] }
    func liveTemplateIDs(among ids: [String], except templateID: String) throws(StoreError) -> Set<String> { [] }
    func reviews(of changeRequestID: Int) throws(StoreError) -> [ReviewRecord] { [] }
    func previewTokens(of changeRequestIDs: [Int]) throws(StoreError) -> [PreviewTokenRecord] { [] }
    func previewToken(secretSHA256: String) throws(StoreError) -> PreviewTokenRecord? { nil }
    func nextNumber(_ sequence: CatalogueSequence) throws(StoreError) -> Int { 1 }
    func write(_ rows: CatalogueRows) throws(StoreError) { calls.append("write") }
    func announce(_ revisions: [RevisionWrite]) throws(StoreError) { calls.append("announce") }
    func record(_ events: [CatalogueEvent]) throws(StoreError) {
        calls.append("record")
        recorded += events
    }
}

private struct Abort: Error {}

private let policy = AppPolicy(
    platform: .android,
    minimumVersion: AppVersion("3.0")!,
    latestVersion: AppVersion("3.2")!,
    minimumOSVersion: nil,
    blockedVersions: [],
    storeURL: "https://play.google.com/store/apps/details?id=com.example"
)

private func experiment(_ status: Experiment.Status) -> Experiment {
    Experiment(
        id: "retry-wording",
        templateID: "network-error",
        status: status,
        variants: [
            .init(key: "control", weight: 0.5),
            .init(key: "plain", weight: 0.5, strings: [("en", ["title": "No connection"])]),
        ]
    )
}

/// The seam of the webhooks' outbox: what a catalogue transaction emits, and when the backend is
/// handed it (after the rows and the announcement, before COMMIT, never for a rolled-back one).
@Suite("CatalogueWrite: the events of a transaction")
struct CatalogueEventTests {
    @Test("events are recorded once, after the rows and the announcement, in the order emitted")
    func recordedLast() throws {
        let transaction = RecordingTransaction()
        try CatalogueWrite.run(on: transaction) { edits in
            _ = try edits.putPolicy(policy, precondition: .absent, actor: "ops")
            _ = try edits.putExperiment(experiment(.running), precondition: .absent, actor: "ops")
        }
        // Rows may be written in several batches (an edit's read hands over the rows before it);
        // the announcement and the events come once, last.
        #expect(transaction.calls.suffix(2) == ["announce", "record"])
        #expect(transaction.calls.filter { $0 == "record" }.count == 1)
        #expect(transaction.recorded.map(\.kind) == [.appPolicyPublished, .experimentStarted])
        let published = try #require(transaction.recorded.first)
        #expect(published.subjectID == "android" && published.actor == "ops")
        #expect(published.payload["revision"] == .number(1) && published.payload["action"] == .string("create"))
        #expect(Timestamp.parse(published.occurredAt) != nil)
    }

    @Test("edits that throw record nothing; a transaction that emits nothing is not asked to record")
    func nothingOnFailure() throws {
        let failing = RecordingTransaction()
        #expect(throws: Abort.self) {
            try CatalogueWrite.run(on: failing) { edits in
                _ = try edits.putPolicy(policy, precondition: .absent, actor: "ops")
                throw Abort()
            }
        }
        #expect(failing.calls.isEmpty && failing.recorded.isEmpty)
        let quiet = RecordingTransaction()
        try CatalogueWrite.run(on: quiet) { edits in
            _ = try edits.putExperiment(experiment(.draft), precondition: .absent, actor: "ops")
        }
        #expect(quiet.calls == ["write", "announce"])
    }

    @Test(
        "an experiment's status changes emit started, stopped and shipped with the variant; edits emit none",
        arguments: StoreBackend.all
    )
    func experimentLifecycle(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, _) = try makeStore(backend)
            func events(_ edit: (CatalogueWrite) throws -> Void) throws -> [CatalogueEvent] {
                try store.write { edits in
                    try edit(edits)
                    return edits.events
                }
            }
            let drafted = try events { _ = try $0.putExperiment(experiment(.draft), precondition: .absent, actor: "a") }
            #expect(drafted.isEmpty)
            let started = try events {
                _ = try $0.putExperiment(experiment(.running), precondition: .revision(1), actor: "a")
            }
            #expect(started.map(\.kind) == [.experimentStarted])
            #expect(started.first?.payload["templateId"] == .string("network-error"))
            #expect(started.first?.payload["revision"] == .number(2))
            let stopped = try events {
                _ = try $0.putExperiment(experiment(.stopped), precondition: .revision(2), actor: "b")
            }
            #expect(stopped.map(\.kind) == [.experimentStopped] && stopped.first?.actor == "b")
            let shipped = try events {
                _ = try $0.putExperiment(
                    experiment(.shipped),
                    precondition: .revision(3),
                    actor: "b",
                    shippedVariant: "plain"
                )
            }
            #expect(shipped.map(\.kind) == [.experimentShipped])
            #expect(shipped.first?.payload["variant"] == .string("plain"))
        }
    }
}
