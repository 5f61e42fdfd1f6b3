import EmptyStateCore
import EmptyStateSQLite
import EmptyStateStore
import Foundation
import Logging
import ServiceLifecycle
import Synchronization
import Testing

@testable import EmptyStateService

/// A replica's view of a shared store, without PostgreSQL: the templates are a real SQLite store
/// (which a second pool on the same file, "another replica", writes to), and the change feed is
/// a list the test writes, as `PostgresTemplateStore` appends one entry per committed write. The
/// test decides what the feed returns, so it can also return duplicates, entries out of order,
/// or fail.
private final class FakeSharedStore: SharedStore {
    let templates: any TemplateStoring
    let events: any EventStoring
    var sessions: any SessionStoring { templates as! any SessionStoring }
    var webhooks: any WebhookStoring { templates as! any WebhookStoring }
    var tokens: any AdminTokenStoring { templates as! any AdminTokenStoring }
    var location: String { "fake shared store" }
    var isReachable: Bool { true }

    private let feed = Mutex<[(seq: Int64, documentID: String)]>([])
    /// The `after` of each `changes(after:)` call, in order.
    private let reads = Mutex<[Int64]>([])
    /// How many of the next feed reads fail.
    private let failingReads = Mutex(0)

    init(templates: any TemplateStoring, events: any EventStoring) {
        self.templates = templates
        self.events = events
    }

    /// Appends entries to the feed as they are, in this order.
    func announce(_ entries: [(seq: Int64, documentID: String)]) { feed.withLock { $0 += entries } }

    /// Appends the next feed number for `documentID`, as a committed write does.
    @discardableResult
    func announce(_ documentID: String) -> Int64 {
        feed.withLock { feed in
            let seq = (feed.map(\.seq).max() ?? 0) + 1
            feed.append((seq, documentID))
            return seq
        }
    }

    func failNextReads(_ count: Int) { failingReads.withLock { $0 = count } }

    var feedReads: [Int64] { reads.withLock { $0 } }

    func latestChange() throws(StoreError) -> Int64 { feed.withLock { $0.map(\.seq).max() ?? 0 } }

    func changes(after: Int64) throws(StoreError) -> [(seq: Int64, documentID: String)] {
        reads.withLock { $0.append(after) }
        let fail = failingReads.withLock { failing in
            defer { failing = max(0, failing - 1) }
            return failing > 0
        }
        if fail { throw .unavailable("the feed read failed (test)") }
        return feed.withLock { $0.filter { $0.seq > after } }
    }

    // The follower uses none of these: a call is a test failure.
    func observeCommits(_ observer: @escaping @Sendable (_ store: String, _ seconds: Double) -> Void) {
        Issue.record("the follower observed commits")
    }

    func createFirstToken(name: String, secret: String) throws(StoreError) -> Bool {
        Issue.record("the follower created a token")
        return false
    }

    func services(catchUp: @escaping @Sendable () -> Void) -> [any Service] {
        Issue.record("the follower asked for services")
        return []
    }
}

/// A template store that fails to load the documents named in `failing` (`.unavailable`, as a
/// database that went away), and forwards everything else to `base`.
private final class FlakyTemplates: TemplateStoring {
    let base: any TemplateStoring
    let failing = Mutex<Set<String>>([])

    init(_ base: any TemplateStoring) { self.base = base }

    private func check(_ id: String) throws(StoreError) {
        if failing.withLock({ $0.contains(id) }) { throw .unavailable("loading \(id) failed (test)") }
    }

    var location: String { base.location }

    func importBuiltins(_ templates: [Template]) throws(StoreError) -> (added: Int, updated: Int) {
        try base.importBuiltins(templates)
    }

    func write<T>(_ edits: (CatalogueWrite) throws -> T) throws -> T { try base.write(edits) }

    func readCatalogue<T>(_ reads: (CatalogueWrite) throws -> T) throws -> T { try base.readCatalogue(reads) }

    func changeRequests(
        _ filter: ChangeRequestFilter,
        page: Int,
        pageSize: Int
    ) throws(StoreError)
        -> Page<ChangeRequestSummary>
    { try base.changeRequests(filter, page: page, pageSize: pageSize) }

    func liveTemplates() throws(StoreError) -> [StoredTemplate] { try base.liveTemplates() }

    func template(id: String) throws(StoreError) -> StoredTemplate {
        try check(id)
        return try base.template(id: id)
    }

    func strings(id: String) throws(StoreError) -> [StoredString] { try base.strings(id: id) }

    func stringStamps() throws(StoreError) -> [StringStamp] { try base.stringStamps() }

    func list(page: Int, pageSize: Int) throws(StoreError) -> Page<TemplateSummary> {
        try base.list(page: page, pageSize: pageSize)
    }

    func revisions(id: String, page: Int, pageSize: Int) throws(StoreError) -> Page<RevisionRecord> {
        try base.revisions(id: id, page: page, pageSize: pageSize)
    }

    func revision(id: String, number: Int) throws(StoreError) -> RevisionRecord {
        try base.revision(id: id, number: number)
    }

    func audit(_ filter: AuditFilter, page: Int, pageSize: Int) throws(StoreError) -> Page<RevisionRecord> {
        try base.audit(filter, page: page, pageSize: pageSize)
    }

    func checkConflicts(_ template: Template) throws(StoreError) { try base.checkConflicts(template) }

    func livePolicies() throws(StoreError) -> [StoredAppPolicy] { try base.livePolicies() }

    func policyRevisions() throws(StoreError) -> [Platform: Int] { try base.policyRevisions() }

    func policy(platform: Platform) throws(StoreError) -> StoredAppPolicy {
        try check(StoredDocuments.appPolicyID(platform))
        return try base.policy(platform: platform)
    }

    func policyRevisions(platform: Platform, page: Int, pageSize: Int) throws(StoreError) -> Page<RevisionRecord> {
        try base.policyRevisions(platform: platform, page: page, pageSize: pageSize)
    }

    func policyRevision(platform: Platform, number: Int) throws(StoreError) -> RevisionRecord {
        try base.policyRevision(platform: platform, number: number)
    }

    func liveExperiments() throws(StoreError) -> [StoredExperiment] { try base.liveExperiments() }

    func experiment(id: String) throws(StoreError) -> StoredExperiment { try base.experiment(id: id) }

    func experimentRevisions(id: String, page: Int, pageSize: Int) throws(StoreError) -> Page<RevisionRecord> {
        try base.experimentRevisions(id: id, page: page, pageSize: pageSize)
    }
}

/// This replica (its state, follower and store) and another replica writing to the same
/// database, as the application sets them up: built-ins imported, the feed read before the
/// snapshot is loaded.
private struct Replicas {
    let shared: FakeSharedStore
    let flaky: FlakyTemplates
    let state: CatalogueState
    let follower: CatalogueFollower
    /// The other replica: another pool on the same SQLite file.
    let other: SQLiteTemplateStore
    /// Each snapshot swapped in since the follower started, with the names it invalidated.
    let swaps = Swaps()

    init() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("follower-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("store.sqlite").path
        let store = try SQLiteTemplateStore(path: path, logger: Logger(label: "test"))
        try store.importBuiltins(try ServiceFixture.catalogue().templates)
        flaky = FlakyTemplates(store)
        shared = FakeSharedStore(
            templates: flaky,
            events: try SQLiteEventStore(
                path: directory.appendingPathComponent("events.sqlite").path,
                logger: Logger(label: "test")
            )
        )
        other = try SQLiteTemplateStore(path: path, logger: Logger(label: "other replica"))
        let swaps = swaps
        let after = try shared.latestChange()
        state = CatalogueState(CatalogueSnapshot(catalogue: try Catalogue(templates: []))) { invalidation in
            swaps.append(invalidation)
        }
        try state.republish(from: flaky)
        swaps.reset()
        var logger = Logger(label: "test")
        logger.logLevel = .critical  // the failure tests' warnings are expected
        follower = CatalogueFollower(state: state, shared: shared, after: after, logger: logger)
    }

    /// `id` with its French title changed, written by the other replica.
    @discardableResult
    func editFrenchTitle(of id: String, to title: String) throws -> StoredTemplate {
        let current = try other.template(id: id)
        var template = current.template
        let fr = try #require(template.strings.firstIndex { $0.locale == "fr" })
        template.strings[fr].values["title"] = title
        return try other.put(template, precondition: .revision(current.revision), actor: "other").stored
    }

    /// The French title this replica serves for `id`.
    func servedFrenchTitle(of id: String) -> String? {
        state.snapshot.entry(named: id)?.template.strings.first { $0.locale == "fr" }?.values["title"]
    }

    var swapCount: Int { swaps.all.count }
}

private func policy(_ platform: Platform, latest: String) -> AppPolicy {
    AppPolicy(
        platform: platform,
        minimumVersion: AppVersion("5.0")!,
        latestVersion: AppVersion(latest)!,
        minimumOSVersion: AppVersion("16")!,
        blockedVersions: [],
        storeURL: "https://apps.apple.com/app/id123456789",
        rolloutPercentage: 100
    )
}

@Suite("CatalogueFollower")
struct CatalogueFollowerTests {
    @Test("publishes each template another replica changed, then reads the feed after the last change applied")
    func upserts() throws {
        let replicas = try Replicas()
        let loading = try replicas.editFrenchTitle(of: "loading", to: "Un instant…")
        let first = replicas.shared.announce("loading")
        #expect(replicas.follower.lastApplied == 0)

        replicas.follower.catchUp()
        #expect(replicas.servedFrenchTitle(of: "loading") == "Un instant…")
        #expect(replicas.state.snapshot.revision(of: "loading") == loading.revision)
        #expect(replicas.follower.lastApplied == first)
        #expect(replicas.swapCount == 1)

        // A new template, created elsewhere.
        var created = try replicas.other.template(id: "loading").template
        created.id = "maintenanceWindow"
        created.aliases = []
        _ = try replicas.other.put(created, precondition: .absent, actor: "other")
        let second = replicas.shared.announce("maintenanceWindow")
        replicas.follower.catchUp()
        #expect(replicas.state.snapshot.entry(named: "maintenanceWindow")?.revision == 1)
        #expect(replicas.follower.lastApplied == second)

        // Nothing new: the feed is read after the last change, and nothing is swapped.
        replicas.follower.catchUp()
        #expect(replicas.shared.feedReads == [0, first, second])
        #expect(replicas.swapCount == 2)
    }

    @Test("a deleted template stops being served, at the revision that deleted it")
    func deletes() throws {
        let replicas = try Replicas()
        let current = try replicas.other.template(id: "loading")
        let deletion = try replicas.other.delete(id: "loading", expectedRevision: current.revision, actor: "other")
        let seq = replicas.shared.announce("loading")
        #expect(replicas.state.snapshot.entry(named: "loading") != nil)

        replicas.follower.catchUp()
        #expect(replicas.state.snapshot.entry(named: "loading") == nil)
        #expect(replicas.state.snapshot.revision(of: "loading") == deletion)
        #expect(replicas.follower.lastApplied == seq)

        // Restored by a rollback elsewhere: served again.
        let restored = try replicas.other.rollback(
            id: "loading",
            to: current.revision,
            expectedRevision: nil,
            actor: "o"
        )
        replicas.shared.announce("loading")
        replicas.follower.catchUp()
        #expect(replicas.state.snapshot.entry(named: "loading")?.revision == restored.revision)
    }

    @Test("app policies are published; a platform without one and an unknown document are skipped")
    func appPolicies() throws {
        let replicas = try Replicas()
        #expect(replicas.state.snapshot.appStatus.policy(for: .ios) == nil)
        _ = try replicas.other.putPolicy(policy(.ios, latest: "5.3.0"), precondition: .absent, actor: "other")
        replicas.shared.announce(StoredDocuments.appPolicyID(.ios))
        // A feed entry whose document cannot be found (no android policy, no such template):
        // nothing to publish, and no reason to stop.
        replicas.shared.announce(StoredDocuments.appPolicyID(.android))
        let last = replicas.shared.announce("neverExisted")

        replicas.follower.catchUp()
        let served = try #require(replicas.state.snapshot.appStatus.policy(for: .ios))
        #expect(served.revision == 1)
        #expect(served.policy.latestVersion == AppVersion("5.3.0"))
        #expect(replicas.state.snapshot.appStatus.policy(for: .android) == nil)
        #expect(replicas.follower.lastApplied == last)

        // A new revision replaces it.
        _ = try replicas.other.putPolicy(policy(.ios, latest: "5.4.0"), precondition: .revision(1), actor: "other")
        replicas.shared.announce(StoredDocuments.appPolicyID(.ios))
        replicas.follower.catchUp()
        #expect(replicas.state.snapshot.appStatus.policy(for: .ios)?.policy.latestVersion == AppVersion("5.4.0"))
        #expect(replicas.state.snapshot.appStatus.policy(for: .ios)?.revision == 2)
    }

    @Test("duplicate and out-of-order feed entries publish each change once and never move back")
    func duplicatesAndOrder() throws {
        let replicas = try Replicas()
        let edited = try replicas.editFrenchTitle(of: "loading", to: "Patience…")
        // The same document four times, the last entry older than one before it.
        replicas.shared.announce([(3, "loading"), (5, "loading"), (5, "loading"), (4, "loading")])

        replicas.follower.catchUp()
        #expect(replicas.servedFrenchTitle(of: "loading") == "Patience…")
        #expect(replicas.state.snapshot.revision(of: "loading") == edited.revision)
        #expect(replicas.swapCount == 1, "one publication for four entries of the same revision")
        #expect(replicas.follower.lastApplied == 5, "an older entry never moves the position back")

        // This replica's own write comes back through the feed: it already serves that revision.
        replicas.shared.announce([(6, "loading")])
        replicas.follower.catchUp()
        #expect(replicas.swapCount == 1)
        #expect(replicas.follower.lastApplied == 6)
    }

    @Test("a failed feed read applies nothing; the next call reads from the same place")
    func feedReadFails() throws {
        let replicas = try Replicas()
        try replicas.editFrenchTitle(of: "loading", to: "Un instant…")
        let seq = replicas.shared.announce("loading")
        replicas.shared.failNextReads(1)

        replicas.follower.catchUp()
        #expect(replicas.follower.lastApplied == 0)
        #expect(replicas.servedFrenchTitle(of: "loading") != "Un instant…")

        replicas.follower.catchUp()
        #expect(replicas.shared.feedReads == [0, 0])
        #expect(replicas.servedFrenchTitle(of: "loading") == "Un instant…")
        #expect(replicas.follower.lastApplied == seq)
    }

    @Test("a change that cannot be loaded stops the catch-up there; the next call resumes from it")
    func loadFails() throws {
        let replicas = try Replicas()
        try replicas.editFrenchTitle(of: "loading", to: "Un instant…")
        try replicas.editFrenchTitle(of: "connectionRefused", to: "Connexion refusée")
        _ = try replicas.other.putPolicy(policy(.ios, latest: "5.3.0"), precondition: .absent, actor: "other")
        let first = replicas.shared.announce("loading")
        replicas.shared.announce("connectionRefused")
        let last = replicas.shared.announce(StoredDocuments.appPolicyID(.ios))
        replicas.flaky.failing.withLock { $0 = ["connectionRefused"] }

        replicas.follower.catchUp()
        #expect(replicas.servedFrenchTitle(of: "loading") == "Un instant…")
        #expect(replicas.servedFrenchTitle(of: "connectionRefused") != "Connexion refusée")
        #expect(replicas.state.snapshot.appStatus.policy(for: .ios) == nil, "nothing after the failure is applied")
        #expect(replicas.follower.lastApplied == first)

        // Still failing: the position stays where it is.
        replicas.follower.catchUp()
        #expect(replicas.follower.lastApplied == first)

        replicas.flaky.failing.withLock { $0 = [] }
        replicas.follower.catchUp()
        #expect(replicas.servedFrenchTitle(of: "connectionRefused") == "Connexion refusée")
        #expect(replicas.state.snapshot.appStatus.policy(for: .ios)?.revision == 1)
        #expect(replicas.follower.lastApplied == last)
        #expect(replicas.shared.feedReads == [0, first, first])
    }

    @Test("an app policy that cannot be loaded stops the catch-up like a template")
    func policyLoadFails() throws {
        let replicas = try Replicas()
        _ = try replicas.other.putPolicy(policy(.web, latest: "5.3.0"), precondition: .absent, actor: "other")
        replicas.shared.announce(StoredDocuments.appPolicyID(.web))
        replicas.flaky.failing.withLock { $0 = [StoredDocuments.appPolicyID(.web)] }

        replicas.follower.catchUp()
        #expect(replicas.follower.lastApplied == 0)
        #expect(replicas.state.snapshot.appStatus.policy(for: .web) == nil)

        replicas.flaky.failing.withLock { $0 = [] }
        replicas.follower.catchUp()
        #expect(replicas.follower.lastApplied == 1)
        #expect(replicas.state.snapshot.appStatus.policy(for: .web)?.revision == 1)
    }

    @Test("starts after the feed number it is given: older changes are in the snapshot already")
    func startsAfter() throws {
        let replicas = try Replicas()
        replicas.shared.announce([(1, "loading"), (2, "loading")])
        let follower = CatalogueFollower(
            state: replicas.state,
            shared: replicas.shared,
            after: 2,
            logger: Logger(label: "test")
        )
        #expect(follower.lastApplied == 2)
        follower.catchUp()
        #expect(replicas.shared.feedReads == [2])
        #expect(follower.lastApplied == 2)
        #expect(replicas.swapCount == 0)
    }
}

extension CatalogueFollowerTests {
    @Test("an experiment another replica starts is served here, and stops being served when it stops")
    func experiments() throws {
        let replicas = try Replicas()
        let install = ExperimentFixture.install(getting: "b")
        let started = try replicas.other.putExperiment(
            ExperimentFixture.experiment(),
            precondition: .absent,
            actor: "other"
        ).stored
        let seq = replicas.shared.announce(StoredDocuments.experimentID("retry-copy"))
        #expect(replicas.state.snapshot.experiment(onTemplate: "connectionRefused") == nil)

        replicas.follower.catchUp()
        let served = try #require(replicas.state.snapshot.experiment(onTemplate: "connectionRefused"))
        #expect(served.revision == started.revision)
        let entry = try #require(served.entry(for: install))
        #expect(entry.experiment == ExperimentMark(experimentID: "retry-copy", variant: "b"))
        #expect(entry.template.strings.first { $0.locale == "en" }?.values["title"] == ExperimentFixture.title)
        #expect(replicas.follower.lastApplied == seq)
        #expect(
            replicas.swaps.lastTags?.contains(.template("connectionRefused")) == true,
            "the template's answers are forgotten"
        )

        // The same change again (this replica's own write coming back): nothing is swapped.
        let swapsBefore = replicas.swapCount
        replicas.shared.announce(StoredDocuments.experimentID("retry-copy"))
        replicas.follower.catchUp()
        #expect(replicas.swapCount == swapsBefore)

        _ = try replicas.other.putExperiment(
            ExperimentFixture.experiment(status: .stopped),
            precondition: .revision(started.revision),
            actor: "other"
        )
        replicas.shared.announce(StoredDocuments.experimentID("retry-copy"))
        replicas.follower.catchUp()
        #expect(replicas.state.snapshot.experiment(onTemplate: "connectionRefused") == nil)
        #expect(replicas.state.snapshot.experimentRevision(of: "retry-copy") == started.revision + 1)
        // An experiment the store does not have: skipped, the catch-up goes on.
        let last = replicas.shared.announce(StoredDocuments.experimentID("never-existed"))
        replicas.follower.catchUp()
        #expect(replicas.follower.lastApplied == last)
    }

    @Test("the SQLite path: a refresh publishes experiments another process wrote, once")
    func experimentsRefreshedFromSQLite() throws {
        let replicas = try Replicas()
        #expect(try replicas.state.refreshExperiments(from: replicas.other).isEmpty)
        _ = try replicas.other.putExperiment(ExperimentFixture.experiment(), precondition: .absent, actor: "other")
        #expect(try replicas.state.refreshExperiments(from: replicas.other) == ["retry-copy"])
        #expect(replicas.state.snapshot.experiment(onTemplate: "connectionRefused") != nil)
        #expect(try replicas.state.refreshExperiments(from: replicas.other).isEmpty)
        _ = try replicas.other.putExperiment(
            ExperimentFixture.experiment(status: .stopped),
            precondition: .revision(1),
            actor: "other"
        )
        #expect(try replicas.state.refreshExperiments(from: replicas.other) == ["retry-copy"])
        #expect(replicas.state.snapshot.experiment(onTemplate: "connectionRefused") == nil)
    }

    @Test("a catalogue rebuilt from the store serves the running experiments it holds")
    func rebuildLoadsExperiments() throws {
        let replicas = try Replicas()
        _ = try replicas.other.putExperiment(ExperimentFixture.experiment(), precondition: .absent, actor: "other")
        try replicas.state.republish(from: replicas.other)
        #expect(replicas.state.snapshot.experiment(onTemplate: "connectionRefused")?.experiment.id == "retry-copy")
    }
}
