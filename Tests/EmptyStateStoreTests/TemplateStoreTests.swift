import EmptyStateCore
import EmptyStateSQLite
import EmptyStateStore
import Foundation
import GRDB
import JSONCoding
import Logging
import Testing

/// The built-in catalogue of the repository.
func builtins() throws -> [Template] {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    return try CatalogueLoader.load(directory: root.appendingPathComponent("config/templates").path).templates
}

func builtin(_ id: String) throws -> Template {
    try #require(try builtins().first { $0.id == id })
}

/// `template` with its French title replaced.
func retitled(_ template: Template, french title: String) -> Template {
    var copy = template
    let index = copy.strings.firstIndex { $0.locale == "fr" }!
    copy.strings[index].values["title"] = title
    return copy
}

@Suite("TemplateStore: importing built-ins")
struct ImportTests {
    @Test(
        "first start imports every built-in; a second import of the same files changes nothing",
        arguments: StoreBackend.all
    )
    func importsOnce(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, _) = try makeStore(backend)
            let templates = try builtins()
            let first = try store.importBuiltins(templates)
            #expect(first.added == templates.count && first.updated == 0)
            let second = try store.importBuiltins(templates)
            #expect(second.added == 0 && second.updated == 0)
            #expect(try store.liveTemplates().map(\.revision).allSatisfy { $0 == 1 })
            #expect(try store.template(id: "loading").updatedBy == BuiltinImport.actor)
        }
    }

    @Test("a release updates built-ins ops never touched, and keeps the ones they edited", arguments: StoreBackend.all)
    func keepsEdits(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, _) = try makeStore(backend)
            let loading = try builtin("loading")
            let offline = try builtin("connectionRefused")
            try store.importBuiltins([loading, offline])
            _ = try store.put(retitled(offline, french: "Hors ligne (ops)"), precondition: .revision(1), actor: "ops")

            let release = [retitled(loading, french: "Chargement v2"), retitled(offline, french: "Hors ligne v2")]
            let result = try store.importBuiltins(release)
            #expect(result.updated == 1)
            #expect(try store.template(id: "loading").template.strings(for: "fr")?["title"] == "Chargement v2")
            #expect(try store.template(id: "loading").revision == 2)
            #expect(
                try store.template(id: "connectionRefused").template.strings(for: "fr")?["title"] == "Hors ligne (ops)"
            )
        }
    }
}

@Suite("TemplateStore: writes and preconditions")
struct WriteTests {
    @Test("create needs the id to be free; replace needs the current revision", arguments: StoreBackend.all)
    func preconditions(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, _) = try makeStore(backend)
            let template = try builtin("loading")
            let (created, wasCreated) = try store.put(template, precondition: .absent, actor: "ops")
            #expect(wasCreated && created.revision == 1)
            #expect(throws: StoreError.alreadyExists(id: "loading", revision: 1)) {
                try store.put(template, precondition: .absent, actor: "ops")
            }
            #expect(throws: StoreError.stale(id: "loading", current: 1)) {
                try store.put(template, precondition: .revision(7), actor: "ops")
            }
            #expect(throws: StoreError.notFound(id: "pageNotAvailable")) {
                try store.put(try builtin("pageNotAvailable"), precondition: .revision(1), actor: "ops")
            }
            let (replaced, replacedCreated) = try store.put(
                retitled(template, french: "Un instant"),
                precondition: .revision(1),
                actor: "ops"
            )
            #expect(!replacedCreated && replaced.revision == 2)
        }
    }

    @Test("an alias or id taken by another template is a conflict at its pointer", arguments: StoreBackend.all)
    func aliasConflicts(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, _) = try makeStore(backend)
            try store.importBuiltins([try builtin("connectionRefused")])
            var clash = try builtin("loading")
            clash.aliases = ["noNetwork"]
            #expect(
                throws: StoreError.conflicts([("/aliases/0", "\"noNetwork\" is already an alias of connectionRefused")])
            ) {
                try store.put(clash, precondition: .absent, actor: "ops")
            }
            #expect(try store.liveTemplates().count == 1)
        }
    }

    @Test("strings keep who changed them; only changed keys get the new author", arguments: StoreBackend.all)
    func stringAuthors(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, _) = try makeStore(backend)
            let template = try builtin("loading")
            try store.importBuiltins([template])
            let stored = try store.updateStrings(id: "loading", expectedRevision: 1, actor: "translator") {
                (current: Template) throws(StoreError) -> Template in retitled(current, french: "Patientez")
            }
            #expect(stored.revision == 2)
            let strings = try store.strings(id: "loading")
            let frenchTitle = try #require(strings.first { $0.locale == "fr" && $0.key == "title" })
            #expect(frenchTitle.updatedBy == "translator" && frenchTitle.value == "Patientez")
            let english = try #require(strings.first { $0.locale == "en" && $0.key == "title" })
            #expect(english.updatedBy == BuiltinImport.actor)
            let revision = try store.revision(id: "loading", number: 2)
            #expect(revision.action == .strings && revision.changedFields == ["/strings/fr/title"])
            #expect(revision.createdBy == "translator")
        }
    }

    @Test("a failed strings update writes nothing", arguments: StoreBackend.all)
    func failedUpdate(_ backend: StoreBackend) async throws {
        try await offPool {
            struct Refused: Error {}
            let (store, _) = try makeStore(backend)
            try store.importBuiltins([try builtin("loading")])
            #expect(throws: Refused.self) {
                try store.updateStrings(id: "loading", expectedRevision: 1, actor: "t") {
                    (_: Template) throws(Refused) -> Template in throw Refused()
                }
            }
            #expect(try store.template(id: "loading").revision == 1)
        }
    }
}

@Suite("TemplateStore: history")
struct HistoryTests {
    @Test("delete hides the template, keeps its history, and rollback restores it", arguments: StoreBackend.all)
    func deleteAndRestore(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, _) = try makeStore(backend)
            let template = try builtin("loading")
            try store.importBuiltins([template])
            _ = try store.put(retitled(template, french: "Deux"), precondition: .revision(1), actor: "ops")
            #expect(try store.delete(id: "loading", expectedRevision: 2, actor: "ops") == 3)
            #expect(throws: StoreError.deleted(id: "loading", revision: 3)) { try store.template(id: "loading") }
            #expect(try store.liveTemplates().isEmpty)

            let restored = try store.rollback(id: "loading", to: 2, expectedRevision: nil, actor: "ops")
            #expect(restored.revision == 4)
            #expect(restored.template.strings(for: "fr")?["title"] == "Deux")
            let history = try store.revisions(id: "loading", page: 1, pageSize: 10)
            #expect(history.items.map(\.revision) == [4, 3, 2, 1])
            #expect(history.items.map(\.action) == [.rollback, .delete, .replace, .import])
            #expect(throws: StoreError.noSuchRevision(id: "loading", revision: 9)) {
                try store.rollback(id: "loading", to: 9, expectedRevision: nil, actor: "ops")
            }
            #expect(throws: StoreError.stale(id: "loading", current: 4)) {
                try store.rollback(id: "loading", to: 1, expectedRevision: 2, actor: "ops")
            }
        }
    }

    @Test("audit lists every change newest first and filters by template; pages add up", arguments: StoreBackend.all)
    func audit(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, _) = try makeStore(backend)
            try store.importBuiltins(try builtins())
            _ = try store.put(
                retitled(try builtin("loading"), french: "Deux"),
                precondition: .revision(1),
                actor: "ops"
            )
            let all = try store.audit(page: 1, pageSize: 5, templateID: nil)
            #expect(all.total == 16 && all.items.count == 5 && all.hasMore)
            #expect(all.items.first?.createdBy == "ops")
            let loading = try store.audit(page: 1, pageSize: 50, templateID: "loading")
            #expect(loading.items.map(\.revision) == [2, 1])
            let lastPage = try store.list(page: 3, pageSize: 7)
            #expect(lastPage.items.count == 1 && !lastPage.hasMore)
        }
    }

    @Test("what was written is there after reopening the file", arguments: StoreBackend.all)
    func reopen(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, handle) = try makeStore(backend)
            try store.importBuiltins([try builtin("loading")])
            _ = try store.put(
                retitled(try builtin("loading"), french: "Persisté"),
                precondition: .revision(1),
                actor: "ops"
            )
            let reopened = try handle.reopenTemplates()
            #expect(try reopened.template(id: "loading").template.strings(for: "fr")?["title"] == "Persisté")
            #expect(try reopened.template(id: "loading").revision == 2)
        }
    }

    @Test("a revision's document parses back to the template it recorded", arguments: StoreBackend.all)
    func documentRoundTrip(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, _) = try makeStore(backend)
            let template = try builtin("verifyIdentity")
            try store.importBuiltins([template])
            let document = try #require(try store.revision(id: "verifyIdentity", number: 1).document)
            #expect(try TemplateParser.parse(document).get() == template)
        }
    }
}

@Suite("Durability settings")
struct DurabilitySettingsTests {
    /// GRDB's pool sets synchronous=NORMAL on its writer when it enables WAL; both stores must
    /// set FULL back, or an acknowledged write could be lost on power failure.
    @Test("both stores fsync every commit (synchronous = FULL on the writer)")
    func synchronousFull() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/store.sqlite"
        let store = try SQLiteTemplateStore(path: path, logger: Logger(label: "test"))
        #expect(try store.synchronousMode() == 2)
        let events = try SQLiteEventStore(
            path: path.replacingOccurrences(of: "store.sqlite", with: "events.sqlite"),
            logger: Logger(label: "test")
        )
        #expect(try events.synchronousMode() == 2)
    }
}

@Suite("TemplateStore: timestamps")
struct TemplateStoreTimestampTests {
    @Test("changes are recorded in whole seconds")
    func wholeSeconds() throws {
        let (store, _) = try makeStore()
        try store.importBuiltins([try builtin("loading")])
        let stored = try store.template(id: "loading")
        #expect(stored.updatedAt.count == 20 && stored.updatedAt.hasSuffix("Z"), "\(stored.updatedAt)")
        #expect(try store.audit(page: 1, pageSize: 1, templateID: nil).items.first?.createdAt == stored.updatedAt)
    }

    @Test("millisecond timestamps of earlier releases read back in whole seconds, and in time order")
    func migratesMilliseconds() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID().uuidString)")
            .path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/store.sqlite"
        let loading = try builtin("loading")
        do {
            // A store as the previous release left it: schema v2, milliseconds everywhere.
            let queue = try DatabaseQueue(path: path)
            try SQLiteTemplateStore.migrator.migrate(queue, upTo: "v2: document kinds")
            try queue.write { db in
                try db.execute(
                    sql: """
                        INSERT INTO template (id, revision, deleted, document, edited, updated_at, updated_by)
                        VALUES ('loading', 2, 0, ?, 1, '2020-01-01T00:00:00.999Z', 'alice');
                        INSERT INTO template_string (template_id, locale, key, value, updated_at, updated_by)
                        VALUES ('loading', 'en', 'title', 'Loading', '2020-01-01T00:00:00.345Z', 'alice');
                        INSERT INTO revision (template_id, revision, action, document, changed_fields, created_at, created_by)
                        VALUES ('loading', 1, 'import', ?, '["/"]', '2019-12-31T23:59:59.999Z', 'built-in'),
                            ('loading', 2, 'replace', ?, '["/category"]', '2020-01-01T00:00:00.999Z', 'alice');
                        """,
                    arguments: [
                        StoredDocuments.text(of: loading.document), StoredDocuments.text(of: loading.document),
                        StoredDocuments.text(of: loading.document),
                    ]
                )
            }
        }
        let store = try SQLiteTemplateStore(path: path, logger: Logger(label: "test"))
        #expect(try store.template(id: "loading").updatedAt == "2020-01-01T00:00:00Z")
        #expect(try store.strings(id: "loading").map(\.updatedAt) == ["2020-01-01T00:00:00Z"])
        _ = try store.put(retitled(loading, french: "Chargement…"), precondition: .revision(2), actor: "bob")
        let audit = try store.audit(page: 1, pageSize: 10, templateID: nil)
        #expect(audit.items.map(\.revision) == [3, 2, 1])
        #expect(audit.items.dropFirst().map(\.createdAt) == ["2020-01-01T00:00:00Z", "2019-12-31T23:59:59Z"])
        #expect(audit.items.allSatisfy { $0.createdAt.count == 20 })
    }
}
