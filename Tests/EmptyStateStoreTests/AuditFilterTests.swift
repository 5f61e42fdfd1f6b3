import EmptyStateCore
import EmptyStateStore
import Foundation
import Testing

@Suite("TemplateStore: the audit trail filtered by who, what, when and action")
struct AuditFilterTests {
    /// Built-ins imported (15 revisions by the importer), then alice retitles `loading` in French,
    /// bob translates `noDocuments`' German, alice writes the iOS policy, bob rolls `loading` back.
    private func populated(_ backend: StoreBackend) throws -> any TemplateStoring {
        let (store, _) = try makeStore(backend)
        try store.importBuiltins(try builtins())
        _ = try store.put(retitled(try builtin("loading"), french: "Deux"), precondition: .revision(1), actor: "alice")
        _ = try store.updateStrings(id: "noDocuments", expectedRevision: 1, actor: "bob") { (current: Template) in
            var next = current
            let index = next.strings.firstIndex { $0.locale == "de" }!
            next.strings[index].values["title"] = "Noch keine Dokumente (neu)"
            return next
        }
        _ = try store.putPolicy(
            AppPolicy(
                platform: .ios,
                minimumVersion: AppVersion("5.0")!,
                latestVersion: AppVersion("5.3")!,
                storeURL: "https://apps.apple.com/app/id1"
            ),
            precondition: .absent,
            actor: "alice"
        )
        _ = try store.rollback(id: "loading", to: 1, expectedRevision: 2, actor: "bob")
        return store
    }

    @Test("each filter alone, and together", arguments: StoreBackend.all)
    func filters(_ backend: StoreBackend) async throws {
        try await offPool {
            let store = try populated(backend)
            func ids(_ filter: AuditFilter) throws -> [String] {
                try store.audit(filter, page: 1, pageSize: 100).items.map { "\($0.templateID)@\($0.revision)" }
            }
            #expect(try store.audit(AuditFilter(), page: 1, pageSize: 1).total == 19)
            #expect(try ids(AuditFilter(actor: "alice")) == ["app-policy:ios@1", "loading@2"])
            #expect(try ids(AuditFilter(actor: "bob", action: .rollback)) == ["loading@3"])
            #expect(try ids(AuditFilter(kind: .appPolicy)) == ["app-policy:ios@1"])
            #expect(try store.audit(AuditFilter(kind: .template), page: 1, pageSize: 1).total == 18)
            #expect(try ids(AuditFilter(kind: .experiment)) == [])
            #expect(try ids(AuditFilter(action: .strings)) == ["noDocuments@2"])
            // A field prefix: every change under /strings/de, not /strings/d* of another locale.
            #expect(try ids(AuditFilter(actor: "bob", field: "/strings/de")) == ["noDocuments@2"])
            #expect(try ids(AuditFilter(actor: "alice", field: "/strings/fr/title")) == ["loading@2"])
            #expect(try ids(AuditFilter(field: "/strings/FR")) == [])
            #expect(try ids(AuditFilter(documentID: "loading", actor: "bob")) == ["loading@3"])
            // When: from inclusive, to exclusive, whole seconds.
            let newest = try #require(try store.audit(AuditFilter(), page: 1, pageSize: 1).items.first)
            #expect(try ids(AuditFilter(from: newest.createdAt)).contains("loading@3"))
            #expect(try !ids(AuditFilter(to: newest.createdAt)).contains("loading@3"))
            #expect(try ids(AuditFilter(from: "2999-01-01T00:00:00Z")) == [])
        }
    }

    @Test("values are bound, never spliced into the SQL", arguments: StoreBackend.all)
    func hostileValues(_ backend: StoreBackend) async throws {
        try await offPool {
            let store = try populated(backend)
            for value in ["' OR 1=1 --", "%", "_", "\\", "\"", "?", "$1"] {
                #expect(try store.audit(AuditFilter(actor: value), page: 1, pageSize: 10).total == 0)
                #expect(try store.audit(AuditFilter(field: value), page: 1, pageSize: 10).total == 0)
            }
        }
    }
}
