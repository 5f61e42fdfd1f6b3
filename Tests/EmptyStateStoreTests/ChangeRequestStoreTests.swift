import EmptyStateCore
import EmptyStateStore
import Foundation
import JSONCoding
import Synchronization
import Testing

/// A store of `backend` holding the built-ins `loading` and `noDocuments` at revision 1.
private func reviewStore(_ backend: StoreBackend) throws -> any TemplateStoring {
    let (store, _) = try makeStore(backend)
    try store.importBuiltins([try builtin("loading"), try builtin("noDocuments")])
    return store
}

/// A change of template `id` that sets its French title.
private func titleChange(
    _ store: any TemplateStoring,
    _ id: String,
    _ title: String,
    base: Int? = nil
) throws
    -> ProposedChange
{
    let stored = try store.template(id: id)
    return ProposedChange(
        target: .template(id: id),
        document: retitled(stored.template, french: title).document,
        baseRevision: base ?? stored.revision
    )
}

private func setRules(_ store: any TemplateStoring, _ rules: ReviewRules) throws {
    try store.write { edits in
        _ = try edits.putReviewRules(rules, expectedRevision: try edits.reviewRules().revision, actor: "admin")
    }
}

private func open(
    _ store: any TemplateStoring,
    _ changes: [ProposedChange],
    by author: String = "ed"
) throws
    -> StoredChangeRequest
{
    try store.write { edits in
        try edits.openChangeRequest(title: "Titles", description: "", changes: changes, actor: author)
    }
}

private func standing(_ store: any TemplateStoring, _ id: Int) throws -> ChangeRequestReview {
    try store.readCatalogue { edits in try edits.review(of: try #require(try edits.changeRequest(id)).request) }
}

/// Change requests on both backends, one contract: the review rules, approvals, conflicts and
/// the atomic publication (issue 34).
@Suite("TemplateStore: change requests")
struct ChangeRequestStoreTests {
    @Test("the default rules ask for nothing: direct writes keep working", arguments: StoreBackend.all)
    func defaultRules(_ backend: StoreBackend) async throws {
        try await offPool {
            let store = try reviewStore(backend)
            let rules = try store.readCatalogue { try $0.reviewRules() }
            #expect(rules.revision == 0)
            #expect(rules.rules == .default)
            let loading = try store.template(id: "loading")
            _ = try store.put(
                retitled(loading.template, french: "Direct"),
                precondition: .revision(1),
                actor: "ed"
            )
            #expect(try store.template(id: "loading").revision == 2)
        }
    }

    @Test("a rule that asks for approvals refuses direct writes of what it covers", arguments: StoreBackend.all)
    func directWriteRefused(_ backend: StoreBackend) async throws {
        try await offPool {
            let store = try reviewStore(backend)
            let loading = try store.template(id: "loading")
            let category = loading.template.category
            try setRules(store, ReviewRules(requiredApprovals: 0, categories: [category: 2]))
            #expect(
                throws: StoreError.reviewRequired(
                    document: "loading",
                    rule: "/categories/\(category.rawValue)",
                    approvals: 2
                )
            ) {
                _ = try store.put(retitled(loading.template, french: "Direct"), precondition: .revision(1), actor: "ed")
            }
            #expect(try store.template(id: "loading").revision == 1)
        }
    }

    @Test(
        "the author never approves their own request; an edit resets approvals; a stale version is refused",
        arguments: StoreBackend.all
    )
    func approvals(_ backend: StoreBackend) async throws {
        try await offPool {
            let store = try reviewStore(backend)
            try setRules(store, ReviewRules(requiredApprovals: 1))
            let request = try open(store, [try titleChange(store, "loading", "Un instant (revu)")])
            let id = request.request.id
            #expect(try standing(store, id).state == .open)

            #expect(throws: ChangeRequestError.ownChange(id: id, reviewer: "ed")) {
                try store.write { try $0.review(id, approve: true, version: 1, text: "", actor: "ed") }
            }
            _ = try store.write { try $0.review(id, approve: true, version: 1, text: "ok", actor: "rv") }
            #expect(try standing(store, id).state == .approved)
            #expect(try standing(store, id).approvedBy == ["rv"])

            // Another editor changes the description: version 2, the approval of version 1 no
            // longer counts, and that editor may not approve it either.
            let current = try #require(try store.readCatalogue { try $0.changeRequest(id) })
            let edited = try store.write { edits in
                try edits.editChangeRequest(
                    id,
                    expectedRevision: current.revision,
                    description: "reworded",
                    actor: "ed2"
                )
            }
            #expect(edited.request.version == 2)
            #expect(try standing(store, id).state == .open)
            #expect(throws: ChangeRequestError.ownChange(id: id, reviewer: "ed2")) {
                try store.write { try $0.review(id, approve: true, version: 2, text: "", actor: "ed2") }
            }
            #expect(throws: ChangeRequestError.staleVersion(id: id, current: 2)) {
                try store.write { try $0.review(id, approve: true, version: 1, text: "", actor: "rv") }
            }
            #expect(throws: StoreError.stale(id: String(id), current: edited.revision)) {
                try store.write { edits in
                    try edits.editChangeRequest(id, expectedRevision: current.revision, title: "late", actor: "ed")
                }
            }
            _ = try store.write { try $0.review(id, approve: true, version: 2, text: "", actor: "rv") }
            #expect(try standing(store, id).state == .approved)
            // Nothing of it is live before it is published.
            #expect(try store.template(id: "loading").revision == 1)
        }
    }

    @Test(
        "publishing over a document that moved is a conflict naming it and its fields; nothing is written",
        arguments: StoreBackend.all
    )
    func conflict(_ backend: StoreBackend) async throws {
        try await offPool {
            let store = try reviewStore(backend)
            let request = try open(
                store,
                [
                    try titleChange(store, "loading", "Un instant (revu)"),
                    try titleChange(store, "noDocuments", "Rien (revu)"),
                ]
            )
            // Meanwhile noDocuments changes live (the rules ask for nothing: a direct write).
            let live = try store.template(id: "noDocuments")
            var moved = live.template
            let english = try #require(moved.strings.firstIndex { $0.locale == "en" })
            moved.strings[english].values["message"] = "Changed meanwhile"
            _ = try store.put(moved, precondition: .revision(1), actor: "other")

            let id = request.request.id
            do {
                _ = try store.write { edits in
                    try edits.publishChangeRequest(
                        id,
                        claim: .now(expectedRevision: request.revision, emergency: false),
                        actor: "ed"
                    )
                }
                Issue.record("published over a conflict")
            } catch let ChangeRequestError.conflicts(conflictID, conflicts) {
                #expect(conflictID == id)
                #expect(conflicts.map(\.target) == [.template(id: "noDocuments")])
                #expect(conflicts.first?.index == 1)
                #expect(conflicts.first?.fields == ["/strings/en/message"])
                #expect(conflicts.first?.overlapping == [])
                #expect(conflicts.first?.liveRevision == 2)
            }
            // Nothing was written: loading is as it was, the request still open.
            #expect(try store.template(id: "loading").revision == 1)
            #expect(try store.readCatalogue { try $0.changeRequest(id) }?.request.state == .open)

            // Rebased on live, it publishes, and keeps the change made meanwhile.
            let rebased = try store.write { edits in
                let current = try #require(try edits.changeRequest(id))
                let rows = try edits.currentRows(of: current.request.changes)
                var changes = current.request.changes
                for index in changes.indices {
                    changes[index].baseRevision = rows[changes[index].target.documentID]?.revision ?? 0
                }
                // The editor looked: the French title is still theirs, the English message live's.
                changes[1] = try titleChange(store, "noDocuments", "Rien (revu)", base: 2)
                return try edits.editChangeRequest(
                    id,
                    expectedRevision: current.revision,
                    changes: changes,
                    action: .rebase,
                    actor: "ed"
                )
            }
            let publication = try #require(
                try store.write { edits in
                    try edits.publishChangeRequest(
                        id,
                        claim: .now(expectedRevision: rebased.revision, emergency: false),
                        actor: "ed"
                    )
                }
            )
            #expect(publication.request.request.state == .published)
            #expect(publication.templates.map(\.template.id) == ["loading", "noDocuments"])
            let published = try store.template(id: "noDocuments").template
            #expect(published.strings(for: "fr")?["title"] == "Rien (revu)")
            #expect(published.strings(for: "en")?["message"] == "Changed meanwhile")
        }
    }

    @Test(
        "a publication is one transaction: readers see all of its templates or none",
        arguments: StoreBackend.all
    )
    func atomicPublication(_ backend: StoreBackend) async throws {
        try await offPool {
            let store = try reviewStore(backend)
            let request = try open(
                store,
                [
                    try titleChange(store, "loading", "publié"),
                    try titleChange(store, "noDocuments", "publié"),
                ]
            )
            let done = Atomic<Bool>(false)
            let halves = Mutex<[String]>([])
            let reads = Atomic<Int>(0)
            let reader = Thread {
                while !done.load(ordering: .acquiring) {
                    guard let live = try? store.liveTemplates() else { continue }
                    let titles = live.filter { ["loading", "noDocuments"].contains($0.template.id) }
                        .map { $0.template.strings(for: "fr")?["title"] == "publié" }
                    if Set(titles).count > 1 { halves.withLock { $0.append("\(titles)") } }
                    reads.add(1, ordering: .relaxed)
                }
            }
            reader.start()
            while reads.load(ordering: .relaxed) < 3 { usleep(1000) }
            _ = try store.write { edits in
                try edits.publishChangeRequest(
                    request.request.id,
                    claim: .now(expectedRevision: request.revision, emergency: false),
                    actor: "ed"
                )
            }
            let after = reads.load(ordering: .relaxed)
            while reads.load(ordering: .relaxed) < after + 3 { usleep(1000) }
            done.store(true, ordering: .releasing)
            #expect(halves.withLock { $0 }.isEmpty)
            #expect(try store.template(id: "loading").template.strings(for: "fr")?["title"] == "publié")
            #expect(try store.template(id: "noDocuments").template.strings(for: "fr")?["title"] == "publié")
        }
    }

    @Test("a rollback request restores what a publication replaced", arguments: StoreBackend.all)
    func rollback(_ backend: StoreBackend) async throws {
        try await offPool {
            let store = try reviewStore(backend)
            let before = try store.template(id: "loading").template.strings(for: "fr")?["title"]
            let request = try open(store, [try titleChange(store, "loading", "nouveau")])
            _ = try store.write { edits in
                try edits.publishChangeRequest(
                    request.request.id,
                    claim: .now(expectedRevision: request.revision, emergency: false),
                    actor: "ed"
                )
            }
            let rollback = try store.write { try $0.openRollback(of: request.request.id, actor: "ed2") }
            #expect(rollback.request.rollbackOf == request.request.id)
            #expect(rollback.request.changes.map(\.target) == [.template(id: "loading")])
            #expect(rollback.request.changes.first?.baseRevision == 2)
            _ = try store.write { edits in
                try edits.publishChangeRequest(
                    rollback.request.id,
                    claim: .now(expectedRevision: rollback.revision, emergency: false),
                    actor: "ed2"
                )
            }
            #expect(try store.template(id: "loading").template.strings(for: "fr")?["title"] == before)
            #expect(
                try store.readCatalogue { try $0.changeRequest(request.request.id) }?.request.rolledBackBy
                    == rollback.request.id
            )
            #expect(throws: ChangeRequestError.self) {
                try store.write { try $0.openRollback(of: request.request.id, actor: "ed2") }
            }
        }
    }

    @Test(
        "a request's life emits opened, approved, published and rolled back, each in its own transaction",
        arguments: StoreBackend.all
    )
    func events(_ backend: StoreBackend) async throws {
        try await offPool {
            let store = try reviewStore(backend)
            try setRules(store, ReviewRules(requiredApprovals: 1, allowEmergencyRollback: true))
            let (request, opened) = try store.write { edits in
                let stored = try edits.openChangeRequest(
                    title: "Titles",
                    description: "",
                    changes: [try titleChange(store, "loading", "nouveau")],
                    actor: "ed"
                )
                return (stored, edits.events)
            }
            #expect(opened.map(\.kind) == [.changeRequestOpened])
            #expect(opened.first?.subjectID == String(request.request.id))
            #expect(opened.first?.actor == "ed")
            let approved = try store.write { edits in
                _ = try edits.review(request.request.id, approve: true, version: 1, text: "", actor: "rv")
                return edits.events
            }
            #expect(approved.map(\.kind) == [.changeRequestApproved])
            #expect(approved.first?.payload["approved"] == .bool(true))
            let current = try #require(try store.readCatalogue { try $0.changeRequest(request.request.id) })
            let published = try store.write { edits in
                _ = try edits.publishChangeRequest(
                    request.request.id,
                    claim: .now(expectedRevision: current.revision, emergency: false),
                    actor: "ed"
                )
                return edits.events
            }
            #expect(published.map(\.kind) == [.changeRequestPublished])
            let rollback = try store.write { try $0.openRollback(of: request.request.id, actor: "ed2") }
            // Unapproved, but an emergency rollback the rules allow.
            let undone = try store.write { edits in
                _ = try edits.publishChangeRequest(
                    rollback.request.id,
                    claim: .now(expectedRevision: rollback.revision, emergency: true),
                    actor: "ed2"
                )
                return edits.events
            }
            #expect(undone.map(\.kind) == [.changeRequestPublished, .changeRequestRolledBack])
            #expect(undone.last?.subjectID == String(request.request.id))
            #expect(undone.last?.payload["emergency"] == .bool(true))
            // A published request is closed: publishing it again is refused.
            #expect(throws: ChangeRequestError.self) {
                try store.write { edits in
                    _ = try edits.publishChangeRequest(
                        request.request.id,
                        claim: .now(expectedRevision: current.revision, emergency: false),
                        actor: "ed"
                    )
                }
            }
        }
    }

    @Test(
        "a scheduled request is published once, by the first claim at or after its time; late is recorded",
        arguments: StoreBackend.all
    )
    func scheduledOnce(_ backend: StoreBackend) async throws {
        try await offPool {
            let store = try reviewStore(backend)
            let request = try open(store, [try titleChange(store, "loading", "à l’heure")])
            let at: Int64 = 4_102_444_800_000  // 2100-01-01T00:00:00Z
            let scheduled = try store.write { edits in
                try edits.schedule(request.request.id, at: at, expectedRevision: request.revision, actor: "ed")
            }
            #expect(scheduled.request.schedule?.at == at)
            let listed = try store.changeRequests(ChangeRequestFilter(scheduled: true), page: 1, pageSize: 10)
            #expect(listed.items.map(\.scheduledAt) == [at])

            // Before its time nothing happens.
            let early = try store.write { try $0.publishScheduled(request.request.id, now: at - 1, actor: "scheduler") }
            if case .notDue = early {} else { Issue.record("published before its time: \(early)") }

            // Claims racing at its time (every replica's timer fires): exactly one publishes.
            let outcomes = Mutex<[String]>([])
            let threads = (0..<4).map { n in
                Thread {
                    let outcome = try? store.write { edits in
                        try edits.publishScheduled(request.request.id, now: at + 250 + Int64(n), actor: "scheduler")
                    }
                    let name =
                        switch outcome {
                        case .published?: "published"
                        case .notDue?: "notDue"
                        case .dropped?: "dropped"
                        case nil: "failed"
                        }
                    outcomes.withLock { $0.append(name) }
                }
            }
            threads.forEach { $0.start() }
            while outcomes.withLock({ $0.count }) < 4 { usleep(1000) }
            #expect(outcomes.withLock { $0.sorted() } == ["notDue", "notDue", "notDue", "published"])
            let published = try #require(try store.readCatalogue { try $0.changeRequest(request.request.id) })
            #expect(published.request.state == .published)
            #expect(published.request.publication?.by == "scheduler")
            #expect(published.request.publication?.scheduledAt == at)
            #expect((250...253).contains(published.request.publication?.lateMilliseconds ?? -1))
            #expect(try store.template(id: "loading").revision == 2)
            #expect(try store.changeRequests(ChangeRequestFilter(scheduled: true), page: 1, pageSize: 10).total == 0)
        }
    }

    @Test(
        "a due request that lost its approvals is not published: its schedule is dropped with the reason",
        arguments: StoreBackend.all
    )
    func scheduledButNoLongerApproved(_ backend: StoreBackend) async throws {
        try await offPool {
            let store = try reviewStore(backend)
            let request = try open(store, [try titleChange(store, "loading", "trop tard")])
            let at: Int64 = 4_102_444_800_000
            _ = try store.write { edits in
                try edits.schedule(request.request.id, at: at, expectedRevision: request.revision, actor: "ed")
            }
            // The admin asks for a review after it was scheduled.
            try setRules(store, ReviewRules(requiredApprovals: 1))
            let outcome = try store.write { try $0.publishScheduled(request.request.id, now: at, actor: "scheduler") }
            guard case .dropped(let dropped, let reason) = outcome else {
                Issue.record("expected the schedule to be dropped, got \(outcome)")
                return
            }
            #expect(dropped.request.schedule == nil)
            #expect(dropped.request.state == .open)
            #expect(reason.contains("0 of the 1 approvals"))
            #expect(try store.template(id: "loading").revision == 1)
            // Scheduling needs the approvals too.
            #expect(throws: ChangeRequestError.self) {
                try store.write { edits in
                    try edits.schedule(request.request.id, at: at, expectedRevision: dropped.revision, actor: "ed")
                }
            }
        }
    }

    @Test("the list filters by state, author and target", arguments: StoreBackend.all)
    func listing(_ backend: StoreBackend) async throws {
        try await offPool {
            let store = try reviewStore(backend)
            let first = try open(store, [try titleChange(store, "loading", "a")], by: "ed")
            let second = try open(store, [try titleChange(store, "noDocuments", "b")], by: "ed2")
            _ = try store.write { edits in
                try edits.withdraw(
                    second.request.id,
                    expectedRevision: second.revision,
                    mayActForOthers: false,
                    actor: "ed2"
                )
            }
            let all = try store.changeRequests(ChangeRequestFilter(), page: 1, pageSize: 10)
            #expect(all.items.map(\.id) == [second.request.id, first.request.id])
            #expect(all.total == 2)
            let open = try store.changeRequests(ChangeRequestFilter(states: [.open]), page: 1, pageSize: 10)
            #expect(open.items.map(\.id) == [first.request.id])
            let byAuthor = try store.changeRequests(ChangeRequestFilter(author: "ed2"), page: 1, pageSize: 10)
            #expect(byAuthor.items.map(\.state) == [.withdrawn])
            let byTarget = try store.changeRequests(
                ChangeRequestFilter(target: "template:loading"),
                page: 1,
                pageSize: 10
            )
            #expect(byTarget.items.map(\.id) == [first.request.id])
            #expect(
                try store.changeRequests(ChangeRequestFilter(target: "template:load"), page: 1, pageSize: 10).total == 0
            )
        }
    }
}
