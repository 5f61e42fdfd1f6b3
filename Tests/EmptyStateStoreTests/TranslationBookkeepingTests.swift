import EmptyStateCore
import EmptyStateSQLite
import EmptyStateStore
import Foundation
import GRDB
import Logging
import Testing

/// What translation imports and stale tracking need of the store, on every backend: a note on a
/// revision, and the revision that last changed each string.
@Suite("TemplateStore: revision notes and string revisions")
struct TranslationBookkeepingTests {
    @Test("a note is kept with its revision, in the history and the audit trail", arguments: StoreBackend.all)
    func notes(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, _) = try makeStore(backend)
            try store.importBuiltins([try builtin("loading")])
            _ = try store.updateStrings(
                id: "loading",
                expectedRevision: 1,
                actor: "translator",
                note: "imported from fr.xlf"
            ) { (current: Template) throws(StoreError) -> Template in retitled(current, french: "Patientez") }
            _ = try store.updateStrings(id: "loading", expectedRevision: 2, actor: "editor") {
                (current: Template) throws(StoreError) -> Template in retitled(current, french: "Un instant")
            }
            #expect(try store.revision(id: "loading", number: 2).note == "imported from fr.xlf")
            #expect(try store.revision(id: "loading", number: 3).note == nil)
            #expect(try store.revision(id: "loading", number: 1).note == nil)
            let listed = try store.revisions(id: "loading", page: 1, pageSize: 10).items
            #expect(listed.map(\.note) == [nil, "imported from fr.xlf", nil])
            let audit = try store.audit(page: 1, pageSize: 10, templateID: "loading").items
            #expect(audit.map(\.note) == [nil, "imported from fr.xlf", nil])
            #expect(try store.audit(page: 1, pageSize: 1, templateID: nil).items.first?.note == nil)
        }
    }

    @Test("each string records the revision that last changed it", arguments: StoreBackend.all)
    func stringRevisions(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, _) = try makeStore(backend)
            try store.importBuiltins([try builtin("loading"), try builtin("connectionRefused")])
            #expect(try store.strings(id: "loading").allSatisfy { $0.revision == 1 })
            _ = try store.updateStrings(id: "loading", expectedRevision: 1, actor: "t") {
                (current: Template) throws(StoreError) -> Template in retitled(current, french: "Patientez")
            }
            // A write that leaves a string as it was keeps its revision (and its author).
            _ = try store.updateStrings(id: "loading", expectedRevision: 2, actor: "t") {
                (current: Template) throws(StoreError) -> Template in current
            }
            let strings = try store.strings(id: "loading")
            #expect(strings.first { $0.locale == "fr" && $0.key == "title" }?.revision == 2)
            #expect(strings.filter { !($0.locale == "fr" && $0.key == "title") }.allSatisfy { $0.revision == 1 })

            let stamps = try store.stringStamps()
            #expect(Set(stamps.map(\.templateID)) == ["connectionRefused", "loading"])
            #expect(stamps.map(\.templateID) == stamps.map(\.templateID).sorted())
            let loading = stamps.filter { $0.templateID == "loading" }
            #expect(loading.count == strings.count)
            for string in strings {
                let stamp = loading.first { $0.locale == string.locale && $0.key == string.key }
                #expect(stamp?.revision == string.revision && stamp?.updatedAt == string.updatedAt)
            }
            // A deleted template's strings are gone from the stamps.
            _ = try store.delete(id: "connectionRefused", expectedRevision: 1, actor: "ops")
            #expect(try store.stringStamps().allSatisfy { $0.templateID == "loading" })
        }
    }

    @Test(
        "a marking write confirms a string without changing it; a later change of its text resets the mark",
        arguments: StoreBackend.all
    )
    func reviewMarks(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, _) = try makeStore(backend)
            try store.importBuiltins([try builtin("loading")])
            func french(_ key: String) throws -> StoredString? {
                try store.strings(id: "loading").first { $0.locale == "fr" && $0.key == key }
            }
            #expect(try store.strings(id: "loading").allSatisfy { $0.review == .translated })
            let before = try #require(try french("title"))
            // The English title changes: the French one is now older than its source (stale).
            _ = try store.updateStrings(id: "loading", expectedRevision: 1, actor: "editor") {
                (current: Template) throws(StoreError) -> Template in
                var copy = current
                let index = copy.strings.firstIndex { $0.locale == "en" }!
                copy.strings[index].values["title"] = "Hold on"
                return copy
            }
            // A reviewer confirms the French title as it is: same text, restamped at revision 3.
            let confirmed = try store.updateStrings(
                id: "loading",
                expectedRevision: 2,
                actor: "reviewer",
                note: "imported from fr.xlf",
                marks: [TemplateContent.markKey(locale: "fr", key: "title"): .final]
            ) { (current: Template) throws(StoreError) -> Template in current }
            #expect(confirmed.revision == 3)
            let after = try #require(try french("title"))
            #expect(after.value == before.value)
            #expect(after.review == .final && after.revision == 3 && after.updatedBy == "reviewer")
            // Every other string keeps its stamp and state.
            #expect(try french("message")?.revision == 1 && french("message")?.review == .translated)
            let stamp = try store.stringStamps().first { $0.locale == "fr" && $0.key == "title" }
            #expect(stamp?.review == .final && stamp?.revision == 3)
            // A write that leaves the text alone keeps the mark; one that changes it resets it.
            _ = try store.updateStrings(id: "loading", expectedRevision: 3, actor: "editor") {
                (current: Template) throws(StoreError) -> Template in retitled(current, french: after.value)
            }
            #expect(try french("title")?.review == .final && french("title")?.revision == 3)
            _ = try store.updateStrings(id: "loading", expectedRevision: 4, actor: "editor") {
                (current: Template) throws(StoreError) -> Template in retitled(current, french: "Patientez")
            }
            #expect(try french("title")?.review == .translated && french("title")?.revision == 5)
        }
    }

    @Test("the SQLite migration gives existing strings the revision committed at their time")
    func sqliteBackfill() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("store.sqlite").path
        let queue = try DatabaseQueue(path: path)
        try SQLiteTemplateStore.migrator.migrate(queue, upTo: "v3: whole-second timestamps, revision sequence")
        try queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO template (id, revision, document, updated_at, updated_by) VALUES ('a', 3, '{}', '2026-01-01T00:00:09Z', 'x');
                    INSERT INTO revision (template_id, revision, action, document, changed_fields, created_at, created_by, seq) VALUES
                        ('a', 1, 'create', '{}', '["/"]', '2026-01-01T00:00:01Z', 'x', 1),
                        ('a', 2, 'strings', '{}', '[]', '2026-01-01T00:00:05Z', 'x', 2),
                        ('a', 3, 'strings', '{}', '[]', '2026-01-01T00:00:05Z', 'x', 3);
                    INSERT INTO template_string (template_id, locale, key, value, updated_at, updated_by) VALUES
                        ('a', 'en', 'title', 'A', '2026-01-01T00:00:01Z', 'x'),
                        ('a', 'fr', 'title', 'B', '2026-01-01T00:00:05Z', 'x'),
                        ('a', 'de', 'title', 'C', '2026-01-01T00:00:07Z', 'x');
                    """
            )
        }
        try SQLiteTemplateStore.migrator.migrate(queue)
        let revisions = try queue.read { db in
            try Row.fetchAll(db, sql: "SELECT locale, revision FROM template_string ORDER BY locale").map {
                ($0["locale"] as String, $0["revision"] as Int)
            }
        }
        // `fr` shares its second with revisions 2 and 3: the later one; `de` matches none.
        #expect(revisions.map(\.0) == ["de", "en", "fr"])
        #expect(revisions.map(\.1) == [0, 1, 3])
        #expect(
            try queue.read { db in try String.fetchOne(db, sql: "SELECT note FROM revision WHERE revision = 1") } == nil
        )
    }
}
