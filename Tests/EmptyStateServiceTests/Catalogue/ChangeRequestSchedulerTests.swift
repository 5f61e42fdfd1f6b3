import EmptyStateCore
import EmptyStateSQLite
import EmptyStateStore
import Foundation
import Logging
import Testing

@testable import EmptyStateService

/// A SQLite store holding the built-ins, the state serving them, and a scheduler whose clock is
/// the real one moved by `offset` milliseconds.
private func scheduling(offset: Int64 = 0) throws -> (any TemplateStoring, CatalogueState, ChangeRequestScheduler) {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("scheduler-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let store = try SQLiteTemplateStore(
        path: directory.appendingPathComponent("store.sqlite").path,
        logger: .init(label: "test")
    )
    _ = try store.importBuiltins(try ServiceFixture.catalogue().templates)
    let state = CatalogueState(try ServiceFixture.snapshot())
    let scheduler = ChangeRequestScheduler(state: state, store: store, logger: Logger(label: "test")) {
        Timestamp.nowMilliseconds() + offset
    }
    return (store, state, scheduler)
}

/// A request retitling `loading` in French, scheduled at `at` (the store takes any instant: the
/// API refuses one in the past).
private func scheduledRequest(_ store: any TemplateStoring, at: Int64) throws -> Int {
    try store.write { edits in
        let live = try store.template(id: "loading")
        var template = live.template
        let french = try #require(template.strings.firstIndex { $0.locale == "fr" })
        template.strings[french].values["title"] = "Programmé"
        let opened = try edits.openChangeRequest(
            title: "On time",
            description: "",
            changes: [
                ProposedChange(
                    target: .template(id: "loading"),
                    document: template.document,
                    baseRevision: live.revision
                )
            ],
            actor: "ed"
        )
        return try edits.schedule(opened.request.id, at: at, expectedRevision: opened.revision, actor: "ed").request.id
    }
}

/// Waits (up to 5 s) until `state` serves `loading` at a revision above 1.
private func waitForPublication(_ state: CatalogueState) -> Bool {
    let deadline = Date().addingTimeInterval(5)
    while Date() < deadline {
        if (state.snapshot.revision(of: "loading") ?? 0) > 1 { return true }
        usleep(10_000)
    }
    return false
}

@Suite("ChangeRequestScheduler")
struct ChangeRequestSchedulerTests {
    @Test("a request due shortly is armed by a look and published at its time, within a second")
    func onTime() throws {
        let (store, state, scheduler) = try scheduling()
        let at = Timestamp.nowMilliseconds() + 300
        let id = try scheduledRequest(store, at: at)
        scheduler.look()
        #expect(waitForPublication(state))
        let published = try #require(try store.readCatalogue { try $0.changeRequest(id) })
        #expect(published.request.state == .published)
        #expect(published.request.publication?.scheduledAt == at)
        #expect((0..<1000).contains(published.request.publication?.lateMilliseconds ?? -1))
        #expect(state.snapshot.entry(named: "loading")?.template.strings(for: "fr")?["title"] == "Programmé")
    }

    @Test("a request that fell due while nothing ran is published at the first look, and says how late")
    func overdue() throws {
        // The clock is an hour ahead: the schedule fell due an hour ago.
        let (store, state, scheduler) = try scheduling(offset: 3_600_000)
        let id = try scheduledRequest(store, at: Timestamp.nowMilliseconds())
        scheduler.look()
        #expect(waitForPublication(state))
        let published = try #require(try store.readCatalogue { try $0.changeRequest(id) })
        #expect((published.request.publication?.lateMilliseconds ?? 0) >= 3_600_000)
        #expect(published.request.publication?.by == ChangeRequestScheduler.actor)
    }

    @Test("a request due beyond the horizon is left for a later look")
    func beyondHorizon() throws {
        let (store, state, scheduler) = try scheduling()
        _ = try scheduledRequest(store, at: Timestamp.nowMilliseconds() + 60_000)
        scheduler.look()
        usleep(300_000)
        #expect((state.snapshot.revision(of: "loading") ?? 0) <= 1)
    }
}
