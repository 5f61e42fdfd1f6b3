import CLDRPlurals
import EmptyStateCore
import EmptyStateStore
import EmptyStateTranslation
import JSONCoding
import Testing

@testable import EmptyStateService

@Suite("TranslationImporter: one write per template, conflicts, the report; stale coverage")
struct TranslationImporterTests {
    private func snapshots() throws -> [String: TemplateSnapshot] {
        let templates = try ServiceFixture.catalogue().templates.filter {
            ["loading", "verifyIdentity"].contains($0.id)
        }
        return Dictionary(uniqueKeysWithValues: templates.map { ($0.id, TemplateSnapshot(template: $0, revision: 3)) })
    }

    /// The exported document of `locale` with every target of `ids` prefixed.
    private func edited(_ locale: String, _ snapshots: [String: TemplateSnapshot]) -> TranslationDocument {
        var document = TranslationExport.document(
            Array(snapshots.values),
            sourceLocale: "en",
            targetLocale: locale,
            exportedAt: "2026-11-25T10:00:00Z"
        )
        for index in document.units.indices where document.units[index].id.key == "title" {
            document.units[index].target = "» " + (document.units[index].target ?? "")
        }
        return document
    }

    @Test("a String Catalog's locales of one template are one write, with both locales")
    func merged() throws {
        let templates = try snapshots()
        let plans = try ["fr", "de"].map { try ImportPlanner.plan(edited($0, templates), templates: templates) }
        let importer = TranslationImporter(plans: plans, templates: templates)
        #expect(importer.writes.keys.sorted() == ["loading", "verifyIdentity"])
        let write = try #require(importer.writes["verifyIdentity"])
        #expect(write.baseRevision == 3)
        #expect(write.template.strings(for: "fr")?["title"]?.hasPrefix("» ") == true)
        #expect(write.template.strings(for: "de")?["title"]?.hasPrefix("» ") == true)

        let report = importer.report(fileName: "Localizable.xcstrings", format: .xcstrings, dryRun: true, documents: [])
        #expect(report.summary.changed == 4 && report.summary.templatesChanged == 2)
        #expect(report.summary.revisionsWritten == 0)
        let verify = try #require(report.templates.first { $0.templateId == "verifyIdentity" })
        #expect(verify.result == "changed" && verify.baseRevision == 3 && verify.revision == nil)
        #expect(verify.strings.filter { $0.outcome == "changed" }.map(\.locale) == ["fr", "de"])
    }

    @Test("a String Catalog's plural strings in two locales: one write with both locales' forms, reported by form")
    func mergedPlurals() throws {
        let document = #"""
            {"id": "hidden", "category": "noResults", "style": "default", "defaultLocale": "en",
             "visual": {"icon": {"ios": "magnifyingglass", "android": "search_off", "web": "search-x"}},
             "actions": [{"id": "clear", "role": "primary", "type": "custom", "target": "clearFilters"}],
             "strings": {
               "en": {"title": "Nothing found", "message": {"plural": "count", "one": "One result is hidden.", "other": "{count} results are hidden."}, "actions.clear": "Clear filters"},
               "fr": {"title": "Rien", "message": {"plural": "count", "one": "{count} résultat masqué.", "other": "{count} résultats masqués."}, "actions.clear": "Effacer"},
               "ru": {"title": "Ничего", "message": {"plural": "count", "one": "{count} результат скрыт.", "few": "{count} результата скрыты.", "many": "{count} результатов скрыто.", "other": "{count} результата скрыто."}, "actions.clear": "Сбросить"}
             }}
            """#
        guard case .success(let template) = TemplateParser.parse(try JSONParser.parse(Array(document.utf8))) else {
            Issue.record("the fixture template does not parse")
            return
        }
        let templates = ["hidden": TemplateSnapshot(template: template, revision: 2)]
        let plans = try [("fr", PluralCategory.one), ("ru", PluralCategory.few)].map { locale, category in
            var document = TranslationExport.document(
                Array(templates.values),
                sourceLocale: "en",
                targetLocale: locale,
                exportedAt: "2026-11-25T10:00:00Z"
            )
            let index = try #require(document.units.firstIndex { $0.id.key == "message" })
            document.units[index].targetPlural?.forms[category] = "{count} edited in \(locale)."
            return try ImportPlanner.plan(document, templates: templates)
        }
        let importer = TranslationImporter(plans: plans, templates: templates)
        let write = try #require(importer.writes["hidden"])
        #expect(write.template.plural("message", in: "fr")?.forms[.one] == "{count} edited in fr.")
        #expect(write.template.plural("message", in: "ru")?.forms[.few] == "{count} edited in ru.")
        #expect(write.template.plural("message", in: "ru")?.forms[.many] == "{count} результатов скрыто.")
        let report = importer.report(fileName: "Localizable.xcstrings", format: .xcstrings, dryRun: true, documents: [])
        let strings = try #require(report.templates.first?.strings.filter { $0.outcome == "changed" })
        #expect(strings.map(\.locale) == ["fr", "ru"])
        #expect(strings[1].forms?["few"] == "{count} edited in ru.")
        #expect(strings[1].previousForms?["few"] == "{count} результата скрыты.")
        #expect(strings[1].value == "{count} результата скрыто.")
    }

    @Test("applied template by template: a template changed meanwhile is a conflict, the others are written")
    func conflict() throws {
        let templates = try snapshots()
        var importer = TranslationImporter(
            plans: [try ImportPlanner.plan(edited("fr", templates), templates: templates)],
            templates: templates
        )
        var written: [String] = []
        try importer.apply { id, write in
            if id == "loading" { throw StoreError.stale(id: id, current: 4) }
            written.append(id)
            return write.baseRevision + 1
        }
        #expect(written == ["verifyIdentity"])
        let report = importer.report(fileName: "fr.xlf", format: .xliff2, dryRun: false, documents: [])
        #expect(report.summary.revisionsWritten == 1 && report.summary.conflicts == 1)
        let loading = try #require(report.templates.first { $0.templateId == "loading" })
        #expect(loading.result == "conflict" && loading.revision == nil)
        #expect(loading.detail?.contains("revision 4") == true)
        #expect(report.templates.first { $0.templateId == "verifyIdentity" }?.revision == 4)

        // Any other store failure stops the import: what was written stays written.
        var failing = TranslationImporter(
            plans: [try ImportPlanner.plan(edited("fr", templates), templates: templates)],
            templates: templates
        )
        #expect(throws: StoreError.busy) { try failing.apply { _, _ in throw StoreError.busy } }
    }

    @Test("stale: a translation written by an earlier revision than its default-locale string")
    func stale() throws {
        var template = try #require(try snapshots()["verifyIdentity"])
        let english = ["title": 5, "message": 2, "actions.verify": 2]
        template.revisions = ["en": english, "fr": ["title": 4, "message": 2, "actions.verify": 3], "de": english]
        let report = TranslationCatalogue.stale(in: [template])
        #expect(report["fr"] == [TranslationCatalogue.Stale(templateID: "verifyIdentity", keys: ["title"])])
        #expect(report["de"] == nil && report["en"] == nil)
    }
}
