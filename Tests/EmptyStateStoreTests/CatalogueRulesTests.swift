import EmptyStateCore
import EmptyStateStore
import Synchronization
import Testing

/// A current row at `revision`.
private func row(_ revision: Int, deleted: Bool = false, document: String = #"{"id":"a"}"#) -> CurrentDocument {
    CurrentDocument(revision: revision, deleted: deleted, document: document, updatedAt: "t", updatedBy: "ops")
}

/// The decisions both backends take before a write. The contract suites check them through each
/// backend on the common paths; these check every branch, including the ones a backend reaches
/// only after a delete or a concurrent write.
@Suite("CatalogueRules: preconditions, plans and conflicts")
struct CatalogueRulesTests {
    @Test("create: a new id starts at revision 1; a deleted one is re-created after its history")
    func create() throws {
        #expect(
            try CatalogueRules.put(name: "a", current: nil, precondition: .absent)
                == .init(revision: 1, action: .create, replaced: nil)
        )
        let recreated = try CatalogueRules.put(name: "a", current: row(3, deleted: true), precondition: .absent)
        #expect(recreated == .init(revision: 4, action: .create, replaced: nil))
        #expect(recreated.created)
        #expect(throws: StoreError.alreadyExists(id: "a", revision: 3)) {
            try CatalogueRules.put(name: "a", current: row(3), precondition: .absent)
        }
    }

    @Test("replace: needs a live document at the caller's revision, and replaces it")
    func replace() throws {
        let plan = try CatalogueRules.put(name: "a", current: row(3), precondition: .revision(3))
        #expect(plan == .init(revision: 4, action: .replace, replaced: row(3)))
        #expect(!plan.created)
        #expect(throws: StoreError.notFound(id: "a")) {
            try CatalogueRules.put(name: "a", current: nil, precondition: .revision(1))
        }
        #expect(throws: StoreError.deleted(id: "a", revision: 3)) {
            try CatalogueRules.put(name: "a", current: row(3, deleted: true), precondition: .revision(3))
        }
        #expect(throws: StoreError.stale(id: "a", current: 3)) {
            try CatalogueRules.put(name: "a", current: row(3), precondition: .revision(2))
        }
    }

    @Test("reads and changes need a live document; changes also the caller's revision")
    func liveAndChange() throws {
        #expect(try CatalogueRules.live(name: "a", current: row(2)) == row(2))
        #expect(throws: StoreError.notFound(id: "a")) { try CatalogueRules.live(name: "a", current: nil) }
        #expect(throws: StoreError.deleted(id: "a", revision: 2)) {
            try CatalogueRules.live(name: "a", current: row(2, deleted: true))
        }
        #expect(try CatalogueRules.change(name: "a", current: row(2), expectedRevision: 2) == row(2))
        #expect(throws: StoreError.stale(id: "a", current: 2)) {
            try CatalogueRules.change(name: "a", current: row(2), expectedRevision: 1)
        }
        #expect(throws: StoreError.deleted(id: "a", revision: 2)) {
            try CatalogueRules.change(name: "a", current: row(2, deleted: true), expectedRevision: 2)
        }
        #expect(throws: StoreError.notFound(id: "a")) {
            try CatalogueRules.change(name: "a", current: nil, expectedRevision: 1)
        }
    }

    @Test("rollback: restores a deleted document, checks the revision only when one is given")
    func rollback() throws {
        #expect(
            try CatalogueRules.rollback(name: "a", current: row(5), expectedRevision: nil)
                == .init(revision: 6, action: .rollback, replaced: row(5))
        )
        #expect(
            try CatalogueRules.rollback(name: "a", current: row(5, deleted: true), expectedRevision: 5)
                == .init(revision: 6, action: .rollback, replaced: nil)
        )
        #expect(throws: StoreError.stale(id: "a", current: 5)) {
            try CatalogueRules.rollback(name: "a", current: row(5), expectedRevision: 4)
        }
        #expect(throws: StoreError.notFound(id: "ios")) {
            try CatalogueRules.rollback(name: "ios", current: nil, expectedRevision: nil)
        }
        #expect(try CatalogueRules.rollbackText(name: "a", number: 2, target: .document("{}")) == "{}")
        #expect(throws: StoreError.noSuchRevision(id: "a", revision: 9)) {
            try CatalogueRules.rollbackText(name: "a", number: 9, target: .missing)
        }
        #expect(
            throws: StoreError.conflicts([
                ("/revision", "revision 3 records a deletion; roll back to a revision with content")
            ])
        ) {
            try CatalogueRules.rollbackText(name: "a", number: 3, target: .deletion)
        }
    }

    @Test("an id or alias held by another template is a conflict at its pointer; an alias only once")
    func conflicts() throws {
        var template = try builtin("loading")
        template.aliases = ["spinner", "wait", "busy"]
        #expect(CatalogueRules.claimedNames(template) == ["loading", "spinner", "wait", "busy"])
        try CatalogueRules.checkConflicts(template, aliasOwners: [:], liveIDs: [])
        #expect(
            throws: StoreError.conflicts([
                ("/id", "\"loading\" is an alias of other"),
                ("/aliases/0", "\"spinner\" is already an alias of other"),
                ("/aliases/2", "\"busy\" is the id of another template"),
            ])
        ) {
            // "spinner" is both an alias and an id elsewhere: one problem, the alias's.
            try CatalogueRules.checkConflicts(
                template,
                aliasOwners: ["loading": "other", "spinner": "other"],
                liveIDs: ["spinner", "busy"]
            )
        }
    }
}

@Suite("RevisionWrite: what a write stores, the same on every backend")
struct RevisionWriteTests {
    @Test("a created template changed everything; a replaced one the fields that differ")
    func templateWrites() throws {
        let template = try builtin("loading")
        let created = try RevisionWrite.template(
            template,
            plan: .init(revision: 1, action: .create, replaced: nil),
            actor: "ops"
        )
        #expect(created.documentID == "loading" && created.kind == StoredDocuments.templateKind)
        #expect(created.revision == 1 && created.action == .create && created.by == "ops")
        #expect(created.document == StoredDocuments.text(of: template.document))
        #expect(created.changedFields == #"["/"]"#)

        let replaced = try RevisionWrite.template(
            retitled(template, french: "Un instant"),
            plan: .init(revision: 2, action: .replace, replaced: row(1, document: created.document!)),
            actor: "ops"
        )
        #expect(replaced.changedFields == #"["/strings/fr/title"]"#)
        #expect(throws: StoreError.self) {
            try RevisionWrite.template(
                template,
                plan: .init(revision: 2, action: .replace, replaced: row(1, document: "{")),
                actor: "ops"
            )
        }
    }

    @Test("a deletion has no document; an import is by the built-in actor")
    func deletionAndImport() throws {
        let deletion = RevisionWrite.deletion(id: "loading", revision: 4, actor: "ops", now: "t")
        #expect(
            deletion
                == RevisionWrite(
                    documentID: "loading",
                    kind: StoredDocuments.templateKind,
                    revision: 4,
                    action: .delete,
                    document: nil,
                    changedFields: #"["/"]"#,
                    at: "t",
                    by: "ops"
                )
        )
        let imported = BuiltinImport.write(try builtin("loading"), previous: nil, revision: 1, now: "t")
        #expect(imported.action == .import && imported.by == BuiltinImport.actor && imported.at == "t")
    }

    @Test("a policy is stored under its platform's id, diffed against the policy it replaces")
    func policyWrite() throws {
        let policy = AppPolicy(
            platform: .android,
            minimumVersion: AppVersion("5.0")!,
            latestVersion: AppVersion("6.0")!,
            minimumOSVersion: AppVersion("10")!,
            blockedVersions: [],
            storeURL: "https://play.google.com/store/apps/details?id=example"
        )
        var older = policy
        older.latestVersion = AppVersion("5.5")!
        let write = try RevisionWrite.policy(
            policy,
            plan: .init(
                revision: 3,
                action: .rollback,
                replaced: row(2, document: StoredDocuments.text(of: older.document))
            ),
            actor: "carol"
        )
        #expect(write.documentID == "app-policy:android" && write.kind == StoredDocuments.appPolicyKind)
        #expect(write.revision == 3 && write.action == .rollback)
        #expect(write.changedFields == #"["/latestVersion"]"#)
        #expect(try StoredDocuments.appPolicy(fromText: write.document!) == policy)
    }

    @Test("a template's strings are one row per locale and key")
    func strings() throws {
        let template = try builtin("loading")
        let rows = RevisionWrite.strings(of: template)
        #expect(rows.count == template.strings.reduce(0) { $0 + $1.values.count })
        for (locale, key, value) in rows { #expect(template.strings(for: locale)?[key] == value) }
    }
}

@Suite("SummaryCounts and CommitTimer")
struct SummaryCountsTests {
    @Test("groups keep their order and get their taps per action; taps without an action stay in taps")
    func rows() {
        var counts = SummaryCounts()
        counts.groups = [(nil, 1, 0), ("en", 5, 3), ("fr", 2, 1)]
        counts.actionTaps = [("en", "retry", 2), ("en", nil, 1), ("fr", "help", 1), ("de", "retry", 4)]
        #expect(
            counts.rows == [
                SummaryRow(key: nil, displays: 1, taps: 0, tapsByAction: [:]),
                SummaryRow(key: "en", displays: 5, taps: 3, tapsByAction: ["retry": 2]),
                SummaryRow(key: "fr", displays: 2, taps: 1, tapsByAction: ["help": 1]),
            ]
        )
    }

    @Test("an empty window has zero totals; no grouping, no groups")
    func summary() {
        let empty = SummaryCounts.summary(totals: SummaryCounts(), groups: nil, grouping: nil)
        #expect(empty.totals == SummaryRow(key: nil, displays: 0, taps: 0, tapsByAction: [:]))
        #expect(empty.groups.isEmpty)
        var totals = SummaryCounts()
        totals.groups = [(nil, 3, 2)]
        totals.actionTaps = [(nil, "retry", 2)]
        var groups = SummaryCounts()
        groups.groups = [("loading", 3, 2)]
        let summary = SummaryCounts.summary(totals: totals, groups: groups, grouping: .template)
        #expect(summary.totals == SummaryRow(key: nil, displays: 3, taps: 2, tapsByAction: ["retry": 2]))
        #expect(summary.groups.map(\.key) == ["loading"])
    }

    @Test("revisions are in number order, other keys in the rows' order")
    func revisionOrder() {
        var groups = SummaryCounts()
        groups.groups = [("0", 1, 0), ("10", 1, 0), ("2", 1, 0)]
        #expect(
            SummaryCounts.summary(totals: SummaryCounts(), groups: groups, grouping: .revision).groups.map(\.key)
                == ["0", "2", "10"]
        )
        #expect(
            SummaryCounts.summary(totals: SummaryCounts(), groups: groups, grouping: .appVersion).groups.map(\.key)
                == ["0", "10", "2"]
        )
    }

    @Test("the timer reports each write once, also when it fails")
    func timer() {
        struct Failed: Error {}
        let reports = Mutex<[Double]>([])
        let report: @Sendable (Double) -> Void = { seconds in reports.withLock { $0.append(seconds) } }
        #expect(CommitTimer.timed(report) { 7 } == 7)
        #expect(throws: Failed.self) { try CommitTimer.timed(report) { () throws(Failed) in throw Failed() } }
        #expect(CommitTimer.timed(nil) { 8 } == 8)
        let seen = reports.withLock { $0 }
        #expect(seen.count == 2 && seen.allSatisfy { $0 >= 0 && $0 < 5 })
        #expect(CommitTimer.seconds(.milliseconds(1500)) == 1.5)
    }
}
