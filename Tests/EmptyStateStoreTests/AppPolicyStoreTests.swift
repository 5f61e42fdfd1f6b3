import EmptyStateCore
import EmptyStateSQLite
import EmptyStateStore
import Foundation
import GRDB
import JSONCoding
import Logging
import Testing

private func policy(_ platform: Platform = .ios, latest: String = "5.3.0") -> AppPolicy {
    AppPolicy(
        platform: platform,
        minimumVersion: AppVersion("5.0")!,
        latestVersion: AppVersion(latest)!,
        minimumOSVersion: AppVersion("16")!,
        blockedVersions: [AppVersion("5.1.2")!],
        storeURL: "https://apps.apple.com/app/id123456789"
    )
}

@Suite("TemplateStore: app policies are versioned documents beside the templates")
struct AppPolicyStoreTests {
    @Test(
        "create needs no policy yet, replace the current revision; each write is a revision",
        arguments: StoreBackend.all
    )
    func writes(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, _) = try makeStore(backend)
            #expect(throws: StoreError.notFound(id: "ios")) { try store.policy(platform: .ios) }
            let (first, created) = try store.putPolicy(policy(), precondition: .absent, actor: "alice")
            #expect(created && first.revision == 1)
            #expect(throws: StoreError.alreadyExists(id: "ios", revision: 1)) {
                try store.putPolicy(policy(), precondition: .absent, actor: "alice")
            }
            #expect(throws: StoreError.stale(id: "ios", current: 1)) {
                try store.putPolicy(policy(latest: "5.4"), precondition: .revision(7), actor: "bob")
            }
            let (second, again) = try store.putPolicy(policy(latest: "5.4"), precondition: .revision(1), actor: "bob")
            #expect(!again && second.revision == 2 && second.updatedBy == "bob")
            #expect(try store.policy(platform: .ios) == second)
            #expect(try store.policyRevisions() == [.ios: 2])
            #expect(try store.livePolicies().map(\.policy) == [policy(latest: "5.4")])
        }
    }

    @Test(
        "revisions, rollback and the audit trail work as for templates; templates do not see policies",
        arguments: StoreBackend.all
    )
    func history(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, _) = try makeStore(backend)
            try store.importBuiltins(try builtins())
            let templates = try store.liveTemplates().count
            _ = try store.putPolicy(policy(), precondition: .absent, actor: "alice")
            _ = try store.putPolicy(policy(latest: "6.0"), precondition: .revision(1), actor: "alice")
            let revisions = try store.policyRevisions(platform: .ios, page: 1, pageSize: 10)
            #expect(revisions.items.map(\.revision) == [2, 1])
            #expect(revisions.items.first?.changedFields == ["/latestVersion"])
            #expect(revisions.items.first?.templateID == StoredDocuments.appPolicyID(.ios))
            let one = try store.policyRevision(platform: .ios, number: 1)
            #expect(one.document?["latestVersion"] == .string("5.3.0"))
            #expect(throws: StoreError.noSuchRevision(id: "ios", revision: 9)) {
                try store.policyRevision(platform: .ios, number: 9)
            }
            #expect(throws: StoreError.notFound(id: "android")) {
                try store.policyRevisions(platform: .android, page: 1, pageSize: 10)
            }

            let restored = try store.rollbackPolicy(platform: .ios, to: 1, expectedRevision: 2, actor: "carol")
            #expect(restored.revision == 3 && restored.policy == policy())
            let audit = try store.audit(page: 1, pageSize: 3, templateID: StoredDocuments.appPolicyID(.ios))
            #expect(audit.items.map(\.action) == [.rollback, .replace, .create])

            // Templates neither list nor find the policies.
            #expect(try store.liveTemplates().count == templates)
            #expect(try store.list(page: 1, pageSize: 200).total == templates)
            #expect(throws: StoreError.notFound(id: "app-policy:ios")) { try store.template(id: "app-policy:ios") }
            #expect(throws: StoreError.notFound(id: "app-policy:ios")) {
                try store.revisions(id: "app-policy:ios", page: 1, pageSize: 10)
            }
            #expect(StoredDocuments.appPolicyPlatform(documentID: "app-policy:web") == .web)
            #expect(StoredDocuments.appPolicyPlatform(documentID: "loading") == nil)
        }
    }

    @Test("a database written before policies existed opens, keeps its templates, and takes policies")
    func migratesVersion1() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("v1-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/store.sqlite"
        // The schema as the first release created it, with one template and its revision.
        let document =
            #"{"id":"legacy","category":"error","style":"default","defaultLocale":"en","visual":{"icon":{"ios":"x","android":"x","web":"x"}},"actions":[],"strings":{"en":{"title":"Old"}}}"#
        do {
            let queue = try DatabaseQueue(path: path)
            try queue.write { db in
                try db.execute(
                    sql: """
                        CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY);
                        INSERT INTO grdb_migrations VALUES ('v1: templates, strings, revisions');
                        CREATE TABLE template (id TEXT PRIMARY KEY NOT NULL, revision INTEGER NOT NULL,
                            deleted INTEGER NOT NULL DEFAULT 0, document TEXT NOT NULL,
                            edited INTEGER NOT NULL DEFAULT 0, updated_at TEXT NOT NULL, updated_by TEXT NOT NULL);
                        CREATE TABLE template_string (template_id TEXT NOT NULL REFERENCES template(id) ON DELETE CASCADE,
                            locale TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL, updated_at TEXT NOT NULL,
                            updated_by TEXT NOT NULL, PRIMARY KEY (template_id, locale, key));
                        CREATE TABLE template_alias (alias TEXT PRIMARY KEY NOT NULL,
                            template_id TEXT NOT NULL REFERENCES template(id) ON DELETE CASCADE);
                        CREATE TABLE revision (template_id TEXT NOT NULL REFERENCES template(id) ON DELETE CASCADE,
                            revision INTEGER NOT NULL, action TEXT NOT NULL, document TEXT, changed_fields TEXT NOT NULL,
                            created_at TEXT NOT NULL, created_by TEXT NOT NULL, PRIMARY KEY (template_id, revision));
                        CREATE INDEX revision_by_time ON revision(created_at);
                        """
                )
                try db.execute(
                    sql: "INSERT INTO template VALUES ('legacy', 1, 0, ?, 1, '2026-01-01T00:00:00.000Z', 'alice')",
                    arguments: [document]
                )
                try db.execute(
                    sql: """
                        INSERT INTO revision VALUES ('legacy', 1, 'create', ?, '["/"]', '2026-01-01T00:00:00.000Z', 'alice')
                        """,
                    arguments: [document]
                )
            }
        }
        let store = try SQLiteTemplateStore(path: path, logger: Logger(label: "test"))
        #expect(try store.liveTemplates().map(\.template.id) == ["legacy"])
        #expect(try store.revisions(id: "legacy", page: 1, pageSize: 10).total == 1)
        _ = try store.putPolicy(policy(.android), precondition: .absent, actor: "alice")
        #expect(try store.liveTemplates().map(\.template.id) == ["legacy"])
        #expect(try store.livePolicies().map(\.policy.platform) == [.android])
    }
}
