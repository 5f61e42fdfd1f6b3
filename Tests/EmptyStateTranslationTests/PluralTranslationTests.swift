import EmptyStateCore
import EmptyStateTranslation
import Testing

/// Plural strings and translator files, until the formats carry plural forms: exports leave a
/// plural string out (its general form alone would be translated as if it were every form), and
/// an import refuses a unit for one (`plural`) instead of replacing its forms with one text.
@Suite("Translator files and plural strings")
struct PluralTranslationTests {
    static func template() -> Template {
        Fixtures.verifyTemplate(
            strings: #"""
                {
                  "en": {
                    "title": "Verify with {provider}",
                    "message": { "plural": "count", "one": "One step left with {provider} & {app}.", "other": "{count} steps left with {provider} & {app}." },
                    "actions.verify": "Open {provider}",
                    "actions.later": "Not now"
                  },
                  "fr": {
                    "title": "Vérifier avec {provider}",
                    "message": { "plural": "count", "one": "{count} étape restante avec {provider} et {app}.", "other": "{count} étapes restantes avec {provider} et {app}." },
                    "actions.verify": "Ouvrir {provider}",
                    "actions.later": "Plus tard"
                  }
                }
                """#
        )
    }

    @Test("an export leaves plural strings out, and keeps the others")
    func export() {
        let document = TranslationExport.document(
            [TranslationExportTests.snapshot(Self.template())],
            sourceLocale: "en",
            targetLocale: "fr",
            exportedAt: TranslationExportTests.exportedAt
        )
        #expect(document.units.map(\.id.key) == ["title", "actions.verify", "actions.later"])
    }

    @Test("an import refuses a unit for a plural string, naming its forms and where to set them")
    func importRefuses() throws {
        let snapshot = TranslationExportTests.snapshot(Self.template())
        var document = TranslationExport.document(
            [snapshot],
            sourceLocale: "en",
            targetLocale: "fr",
            exportedAt: TranslationExportTests.exportedAt
        )
        document.units.append(
            TranslationUnit(
                id: UnitID(template: snapshot.template.id, key: "message"),
                source: "{count} steps left with {provider} & {app}.",
                target: "{count} étapes avec {provider} et {app}.",
                state: .translated
            )
        )
        let plan = try ImportPlanner.plan(document, templates: [snapshot.template.id: snapshot])
        let outcome = try #require(plan.entries.first { $0.unitID.hasSuffix("/message") }?.outcome)
        guard case .rejected(let rejections) = outcome else {
            Issue.record("expected a rejection, got \(outcome)")
            return
        }
        #expect(rejections.map(\.reason) == [.plural])
        #expect(rejections.first?.message.contains("is a plural string (forms one, other in en)") == true)
        #expect(rejections.first?.message.contains("PUT /v1/admin/templates/verify-identity_2/strings/fr") == true)
    }
}
