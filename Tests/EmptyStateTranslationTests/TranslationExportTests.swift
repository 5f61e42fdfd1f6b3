import EmptyStateCore
import EmptyStateTranslation
import Testing

@Suite("Export: templates → documents")
struct TranslationExportTests {
    static let exportedAt = "2026-11-23T10:00:00Z"

    static func snapshot(
        _ template: Template = Fixtures.verifyTemplate(),
        source: String = "2026-11-20T00:00:00Z",
        target: String = "2026-11-21T00:00:00Z"
    ) -> TemplateSnapshot {
        var updatedAt: [String: [String: String]] = [:]
        for entry in template.strings {
            let time = entry.locale == template.defaultLocale ? source : target
            updatedAt[entry.locale] = Dictionary(uniqueKeysWithValues: entry.values.keys.map { ($0, time) })
        }
        return TemplateSnapshot(template: template, revision: 3, updatedAt: updatedAt)
    }

    @Test("units in a stable order, with their source, target, state and notes")
    func document() {
        let document = TranslationExport.document(
            [Self.snapshot()],
            sourceLocale: "en",
            targetLocale: "fr",
            exportedAt: Self.exportedAt
        )
        #expect(
            document.units.map(\.id.description) == [
                "verify-identity_2/title", "verify-identity_2/message", "verify-identity_2/visual.label",
                "verify-identity_2/actions.verify", "verify-identity_2/actions.later",
            ]
        )
        #expect(document.units.allSatisfy { $0.state == .translated })
        #expect(document.exportedAt == Self.exportedAt)
        #expect(document.units[0].source == "Verify with {provider}")
        #expect(document.units[0].target == "Vérifier avec {provider}")
        #expect(document.units[0].placeholders == ["provider"])
        #expect(
            document.units[0].notes == [
                "Template verify-identity_2, category auth",
                "title, at most 2 lines (60 columns)",
                "Shown as the heading of the empty state",
                "Placeholder {provider}: keep it; the app puts a value in its place",
            ]
        )
        #expect(
            document.units[1].notes.last
                == "Placeholders {provider}, {app}: keep them; the app puts values in their place"
        )
        #expect(
            document.units[2].notes[1...] == [
                "accessibility label, at most 140 columns", "Read by screen readers for the icon; not shown",
            ]
        )
        #expect(document.units[4].notes[2] == "Shown on the secondary button (action later, dismiss)")
    }

    @Test("the revisions that wrote two strings order them where their times tie")
    func staleByRevision() {
        var snapshot = Self.snapshot(source: "2026-11-23T10:00:00Z", target: "2026-11-23T10:00:00Z")
        #expect(!snapshot.isStale(key: "title", locale: "fr", sourceLocale: "en"))
        snapshot.revisions = ["en": ["title": 5, "message": 4], "fr": ["title": 4, "message": 4]]
        #expect(snapshot.isStale(key: "title", locale: "fr", sourceLocale: "en"))
        #expect(!snapshot.isStale(key: "message", locale: "fr", sourceLocale: "en"))
        // A revision unknown (0, a row older than the column) falls back to the times.
        snapshot.revisions["fr"]?["title"] = 0
        #expect(!snapshot.isStale(key: "title", locale: "fr", sourceLocale: "en"))
        snapshot.updatedAt["en"]?["title"] = "2026-11-23T10:00:01Z"
        #expect(snapshot.isStale(key: "title", locale: "fr", sourceLocale: "en"))
    }

    @Test("a translation written before its source last changed is stale; one the locale lacks is missing")
    func states() {
        var snapshot = Self.snapshot()
        snapshot.updatedAt["en"]?["message"] = "2026-11-22T00:00:00Z"
        snapshot.template.strings = snapshot.template.strings.map { entry in
            guard entry.locale == "fr" else { return entry }
            var values = entry.values
            values["visual.label"] = nil
            return (locale: entry.locale, values: values)
        }
        let document = TranslationExport.document([snapshot], sourceLocale: "en", targetLocale: "fr", exportedAt: nil)
        #expect(document.units.map(\.state) == [.translated, .stale, .missing, .translated, .translated])
        #expect(document.units[2].target == nil)

        let only = TranslationExport.document(
            [snapshot],
            sourceLocale: "en",
            targetLocale: "fr",
            selection: TranslationSelection(onlyMissingOrStale: true),
            exportedAt: nil
        )
        #expect(only.units.map(\.id.key) == ["message", "visual.label"])
        // A locale nobody wrote yet: everything is missing.
        let german = TranslationExport.document([snapshot], sourceLocale: "en", targetLocale: "de", exportedAt: nil)
        #expect(german.units.count == 5)
        #expect(german.units.allSatisfy { $0.state == .missing && $0.target == nil })
    }

    @Test("a selection by ids or category; templates without the source locale are left out")
    func selection() throws {
        let snapshots = try Repository.builtinTemplates().map { TemplateSnapshot(template: $0, revision: 1) }
        let all = TranslationExport.document(snapshots, sourceLocale: "en", targetLocale: "fr", exportedAt: nil)
        let ids = all.units.map(\.id.template)
        #expect(ids == ids.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        let some = TranslationExport.document(
            snapshots,
            sourceLocale: "en",
            targetLocale: "fr",
            selection: TranslationSelection(ids: ["connectionRefused", "loading"]),
            exportedAt: nil
        )
        #expect(Set(some.units.map(\.id.template)) == ["connectionRefused", "loading"])
        let offline = TranslationExport.document(
            snapshots,
            sourceLocale: "en",
            targetLocale: "fr",
            selection: TranslationSelection(category: .offline),
            exportedAt: nil
        )
        #expect(!offline.units.isEmpty)
        #expect(
            offline.units.allSatisfy { id in
                snapshots.first { $0.template.id == id.id.template }?.template.category == .offline
            }
        )
        #expect(
            TranslationExport.document(snapshots, sourceLocale: "sv", targetLocale: "fr", exportedAt: nil).units.isEmpty
        )
        #expect(
            TranslationExport.targetLocales(in: snapshots, sourceLocale: "en") == [
                "ar", "de", "es", "fr", "ja", "pt-BR",
            ]
        )
    }

    @Test("the same templates always give the same bytes, in every format")
    func deterministic() throws {
        let snapshots = try Repository.builtinTemplates().map { TemplateSnapshot(template: $0, revision: 1) }
        let locales = TranslationExport.targetLocales(in: snapshots, sourceLocale: "en")
        func export(_ snapshots: [TemplateSnapshot]) -> [[TranslationFile]] {
            let documents = locales.map {
                TranslationExport.document(snapshots, sourceLocale: "en", targetLocale: $0, exportedAt: Self.exportedAt)
            }
            return TranslationFormat.allCases.map { $0.write(documents) }
        }
        let first = export(snapshots)
        #expect(export(snapshots.reversed()) == first)
        #expect(first.map { $0.map(\.path) }[3].first == "values/strings.xml")
        #expect(first[0].map(\.path) == ["ar.xlf", "de.xlf", "es.xlf", "fr.xlf", "ja.xlf", "pt-BR.xlf"])
    }
}
