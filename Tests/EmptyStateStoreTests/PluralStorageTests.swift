import EmptyStateCore
import EmptyStateStore
import JSONCoding
import Testing

/// Plural strings on every backend, without a migration: the document keeps each plural's
/// object, and its row in the strings table holds all of its forms, so a change of one form
/// restamps that string (and only it), which is what marks its translations stale.
@Suite("TemplateStore: plural strings")
struct PluralStorageTests {
    static func template() throws -> Template {
        let text = #"""
            {
              "id": "hiddenResults", "category": "noResults", "style": "default", "defaultLocale": "en",
              "visual": { "icon": { "ios": "magnifyingglass", "android": "search_off", "web": "search-x" } },
              "strings": {
                "en": { "title": "Nothing matches",
                        "message": { "plural": "count", "one": "One result is hidden.", "other": "{count} results are hidden." } },
                "fr": { "title": "Aucun résultat",
                        "message": { "plural": "count", "one": "{count} résultat masqué.", "many": "{count} de résultats masqués.", "other": "{count} résultats masqués." } }
              }
            }
            """#
        return try TemplateParser.parse(try JSONParser.parse(Array(text.utf8)), expectedID: "hiddenResults").get()
    }

    @Test(
        "a plural string is stored, read back after a reopen, and restamped when one form changes",
        arguments: StoreBackend.all
    )
    func roundTrip(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, handle) = try makeStore(backend)
            let template = try Self.template()
            _ = try store.put(template, precondition: .absent, actor: "editor")
            let reopened = try handle.reopenTemplates()
            let stored = try reopened.template(id: "hiddenResults").template
            #expect(stored == template)
            #expect(stored.plural("message", in: "fr")?.forms[.many] == "{count} de résultats masqués.")
            let rows = try reopened.strings(id: "hiddenResults")
            let french = try #require(rows.first { $0.locale == "fr" && $0.key == "message" })
            #expect(french.value.contains(#""many":"{count} de résultats masqués.""#))

            _ = try reopened.updateStrings(id: "hiddenResults", expectedRevision: 1, actor: "editor") {
                (current: Template) throws(StoreError) -> Template in
                var next = current
                next.plurals["en"]?["message"]?.forms[.one] = "One result is hidden by your filters."
                return next
            }
            let after = try reopened.strings(id: "hiddenResults")
            func revision(_ locale: String, _ key: String) -> Int? {
                after.first { $0.locale == locale && $0.key == key }?.revision
            }
            #expect(revision("en", "message") == 2)
            #expect(revision("en", "title") == 1)
            #expect(revision("fr", "message") == 1)
            let read = try reopened.template(id: "hiddenResults").template
            #expect(read.plural("message", in: "en")?.forms[.one] == "One result is hidden by your filters.")
        }
    }
}
