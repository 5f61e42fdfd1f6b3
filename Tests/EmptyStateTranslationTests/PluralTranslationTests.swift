import CLDRPlurals
import EmptyStateCore
import EmptyStateTranslation
import Testing

/// Plural strings in translator files: one unit per plural string with its forms, imported as
/// one string, refused with reason `plural` when the file's forms do not fit the locale. Here the
/// planner through XLIFF 2.0 (an ICU MessageFormat plural); the other formats in
/// PluralStringCatalogTests and PluralXMLFormatTests.
@Suite("Translator files and plural strings")
struct PluralTranslationTests {
    static let enMessage =
        #"{ "plural": "count", "one": "One step left with {provider} & {app}.", "other": "{count} steps left with {provider} & {app}." }"#
    static let frMessage =
        #"{ "plural": "count", "one": "{count} étape restante avec {provider} et {app}.", "other": "{count} étapes restantes avec {provider} et {app}." }"#

    static func template(en: String = enMessage, fr: String = frMessage) -> Template {
        Fixtures.verifyTemplate(
            strings: """
                {
                  "en": {
                    "title": "Verify with {provider}",
                    "message": \(en),
                    "actions.verify": "Open {provider}",
                    "actions.later": "Not now"
                  },
                  "fr": {
                    "title": "Vérifier avec {provider}",
                    "message": \(fr),
                    "actions.verify": "Ouvrir {provider}",
                    "actions.later": "Plus tard"
                  }
                }
                """
        )
    }

    static func document(
        _ snapshot: TemplateSnapshot = TranslationExportTests.snapshot(template()),
        target: String = "fr"
    ) -> TranslationDocument {
        TranslationExport.document(
            [snapshot],
            sourceLocale: "en",
            targetLocale: target,
            exportedAt: TranslationExportTests.exportedAt
        )
    }

    /// The file's XLIFF 2.0 with `edit` applied to its text, read back.
    static func xliff(
        _ document: TranslationDocument,
        _ edit: (String) -> String = { $0 }
    ) throws
        -> TranslationDocument
    {
        let text = edit(String(decoding: XLIFF2Writer.write(document), as: UTF8.self))
        return try XLIFF2Reader.read(Array(text.utf8))
    }

    static func plan(
        _ document: TranslationDocument,
        _ snapshot: TemplateSnapshot,
        locale: String? = nil
    ) throws
        -> ImportPlan
    {
        try ImportPlanner.plan(document, templates: [snapshot.template.id: snapshot], locale: locale)
    }

    static func outcome(_ plan: ImportPlan, _ key: String = "message") -> ImportPlan.Outcome? {
        plan.entries.first { $0.unitID.hasSuffix("/" + key) }?.outcome
    }

    static func reasons(_ plan: ImportPlan, _ key: String = "message") -> [ImportRejection] {
        guard case .rejected(let rejections) = outcome(plan, key) else { return [] }
        return rejections
    }

    @Test("an export gives a plural string one unit with its source and target forms")
    func export() throws {
        let document = Self.document()
        #expect(document.units.map(\.id.key) == ["title", "message", "actions.verify", "actions.later"])
        let unit = document.units[1]
        #expect(unit.source == "{count} steps left with {provider} & {app}.")
        #expect(unit.sourcePlural?.forms[.one] == "One step left with {provider} & {app}.")
        #expect(unit.targetPlural?.forms[.one] == "{count} étape restante avec {provider} et {app}.")
        #expect(unit.target == "{count} étapes restantes avec {provider} et {app}.")
        #expect(unit.notes.last == "Plural: the number in {count} chooses the form; fr has the forms one, many, other")
    }

    @Test("XLIFF 2.0 writes an ICU plural in <source> and <target>, and reads it back byte for byte")
    func xliffRoundTrip() throws {
        let document = Self.document()
        let bytes = XLIFF2Writer.write(document)
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(
            text.contains(
                "<source>{count, plural, one {One step left with {provider} &amp; {app}.} other {{count} steps left with {provider} &amp; {app}.}}</source>"
            )
        )
        #expect(
            text.contains(
                "<target>{count, plural, one {{count} étape restante avec {provider} et {app}.} other {{count} étapes restantes avec {provider} et {app}.}}</target>"
            )
        )
        let read = try XLIFF2Reader.read(bytes)
        #expect(read.units == document.units)
        #expect(XLIFF2Writer.write(read) == bytes)
        // Imported as it was exported: nothing to write.
        let plan = try Self.plan(read, TranslationExportTests.snapshot(Self.template()))
        #expect(plan.isEmpty)
        #expect(Self.outcome(plan) == .unchanged)
    }

    @Test(
        "ICU quoting survives a round trip",
        arguments: [
            "L'écran de {app} affiche {count} erreurs.", "Touche '#' pour {count} essais",
            "{count} {braces} '{' et '}'",
            "Rien n'a changé ''{count}''", "#1 pour {count} | moi'", "{count}",
        ]
    )
    func icuRoundTrip(_ text: String) throws {
        let plural = PluralText(variable: "count", forms: [.one: "un '{count}'", .other: text])
        let parsed = try ICUPlural.parse(ICUPlural.format(plural))
        #expect(samePlural(parsed, plural))
    }

    @Test("ICU as tools write it: # for the number, text around the plural, spaces")
    func icuAsToolsWrite() throws {
        let plural = try ICUPlural.parse("Il reste {count,plural,  one{# étape} other {# étapes}} avec {provider}.")
        #expect(plural.variable == "count")
        #expect(
            plural.forms == [
                .one: "Il reste {count} étape avec {provider}.", .other: "Il reste {count} étapes avec {provider}.",
            ]
        )
    }

    @Test(
        "an ICU plural that cannot be read is named",
        arguments: [
            ("{count, plural, one {# x} other {# y}", "not closed"),
            ("{count, plural, one {# x}}", "no other form"),
            ("{count, plural, one {# x} other {# y}}}", "closes nothing"),
            ("{count, plural, =0 {none} other {# y}}", "explicit values"),
            ("{count, plural, lots {# x} other {# y}}", "\"lots\" is not a plural category"),
            ("{count, plural, one {# x} one {# z} other {# y}}", "given twice"),
        ]
    )
    func icuErrors(_ text: String, _ reason: String) {
        #expect(throws: ICUPluralError.self) { try ICUPlural.parse(text) }
        do {
            _ = try ICUPlural.parse(text)
        } catch {
            #expect(error.message.contains(reason), "\(error.message)")
        }
    }

    @Test("an import of one changed form changes only that string's forms, the others kept")
    func importChangedForm() throws {
        let snapshot = TranslationExportTests.snapshot(Self.template())
        let file = try Self.xliff(Self.document()) {
            $0.replacingOccurrences(of: "one {{count} étape restante", with: "one {{count} seule étape restante")
        }
        let plan = try Self.plan(file, snapshot)
        let written = try #require(plan.writes.first)
        #expect(written.changedKeys == ["message"])
        let plural = try #require(written.template.plural("message", in: "fr"))
        #expect(plural.forms[.one] == "{count} seule étape restante avec {provider} et {app}.")
        #expect(plural.forms[.other] == "{count} étapes restantes avec {provider} et {app}.")
        #expect(written.template.strings(for: "fr")?["message"] == plural.other)
        #expect(written.template.strings(for: "fr")?["title"] == "Vérifier avec {provider}")
        #expect(written.template.plural("message", in: "en") == snapshot.template.plural("message", in: "en"))
        guard case .changed(let from, let to) = Self.outcome(plan) else {
            Issue.record("expected changed, got \(String(describing: Self.outcome(plan)))")
            return
        }
        #expect(from.plural?.forms[.one] == "{count} étape restante avec {provider} et {app}.")
        #expect(to.plural?.forms[.one] == "{count} seule étape restante avec {provider} et {app}.")
        #expect(to.text == plural.other)
    }

    @Test(
        "forms that do not fit the locale are refused (plural), the file's other strings imported",
        arguments: [
            ("one {{count} étape restante", "two {{count} étape restante", "fr has no plural category two"),
            (
                "one {{count} étape restante avec {provider} et {app}.} other {{count} étapes restantes avec {provider} et {app}.}}</target>",
                "one {{count} étape restante avec {provider} et {app}.}}</target>", "no other form"
            ),
            (
                "other {{count} étapes restantes avec {provider} et {app}.}}</target>",
                "other {{count} étapes}</target>", "not closed"
            ),
            ("<target>{count, plural,", "<target>{n, plural,", "the plural's number is {n}, but in en it is {count}"),
        ]
    )
    func importRefusesForms(_ find: String, _ replacement: String, _ reason: String) throws {
        let snapshot = TranslationExportTests.snapshot(Self.template())
        let file = try Self.xliff(Self.document()) {
            $0.replacingOccurrences(of: find, with: replacement)
                .replacingOccurrences(of: "Vérifier avec", with: "Vérifiez avec")
        }
        let plan = try Self.plan(file, snapshot)
        let rejections = Self.reasons(plan)
        #expect(rejections.map(\.reason) == [.plural])
        #expect(rejections.first?.message.contains(reason) == true, "\(rejections)")
        #expect(plan.hasRejections)
        #expect(plan.writes.first?.changedKeys == ["title"])
        #expect(
            plan.writes.first?.template.plural("message", in: "fr") == snapshot.template.plural("message", in: "fr")
        )
    }

    @Test("one text for a plural string, and forms for a plain one, are refused (plural)")
    func importRefusesShape() throws {
        let snapshot = TranslationExportTests.snapshot(Self.template())
        let file = try Self.xliff(Self.document()) {
            $0.replacingOccurrences(
                of:
                    "<target>{count, plural, one {{count} étape restante avec {provider} et {app}.} other {{count} étapes restantes avec {provider} et {app}.}}</target>",
                with: "<target>{count} étapes avec {provider} et {app}.</target>"
            )
            .replacingOccurrences(
                of: "<target>Plus tard</target>",
                with: "<target>{count, plural, one {Plus tard} other {Plus tard}}</target>"
            )
        }
        let plan = try Self.plan(file, snapshot)
        #expect(
            Self.reasons(plan).first?.message.contains("is a plural string in en: give fr's forms (one, many, other)")
                == true
        )
        #expect(
            Self.reasons(plan, "actions.later").first?.message.contains("is not a plural string in en: give one text")
                == true
        )
    }

    @Test("a form with another placeholder than the source's is refused with the 422's pointer")
    func importRefusesPlaceholders() throws {
        let snapshot = TranslationExportTests.snapshot(Self.template())
        let file = try Self.xliff(Self.document()) {
            $0.replacingOccurrences(
                of: "one {{count} étape restante avec {provider}",
                with: "one {{count} étape restante avec {fournisseur}"
            )
        }
        let plan = try Self.plan(file, snapshot)
        let rejection = try #require(Self.reasons(plan).first)
        #expect(rejection.reason == .copyRule)
        #expect(rejection.pointer == "/strings/fr/message/one")
        #expect(plan.writes.isEmpty)
    }

    @Test("a change of one source form makes the translation stale, and an older file sourceChanged")
    func staleness() throws {
        let old = TranslationExportTests.snapshot(Self.template())
        let file = try Self.xliff(Self.document(old)) {
            $0.replacingOccurrences(of: "one {{count} étape restante", with: "one {{count} seule étape restante")
        }
        let changed = Self.template(
            en:
                #"{ "plural": "count", "one": "Only one step left with {provider} & {app}.", "other": "{count} steps left with {provider} & {app}." }"#
        )
        var snapshot = TranslationExportTests.snapshot(changed)
        snapshot.revisions = ["en": ["message": 5], "fr": ["message": 4]]
        #expect(Self.document(snapshot).units[1].state == .stale)
        #expect(try Self.xliff(Self.document(snapshot)).units[1].state == .stale)
        let rejections = Self.reasons(try Self.plan(file, snapshot))
        #expect(rejections.map(\.reason) == [.sourceChanged])
        #expect(rejections.first?.message.contains("one {Only one step left") == true)
    }

    @Test("a stale plural confirmed unchanged (final) becomes current")
    func confirm() throws {
        var snapshot = TranslationExportTests.snapshot(Self.template())
        snapshot.revisions = ["en": ["message": 5], "fr": ["message": 4]]
        let file = try Self.xliff(Self.document(snapshot)) {
            $0.replacingOccurrences(of: #"state="initial" subState="empty-state:stale""#, with: #"state="final""#)
        }
        let plan = try Self.plan(file, snapshot)
        #expect(Self.outcome(plan) == .confirmed(.final))
        #expect(plan.writes.first?.marks == ["message": .final])
        #expect(plan.writes.first?.changedKeys == [])
    }

    @Test("a new locale gets its own categories (ru: one, few, many, other)")
    func newLocale() throws {
        let snapshot = TranslationExportTests.snapshot(Self.template())
        var document = Self.document(target: "ru")
        #expect(document.units.map(\.state) == [.missing, .missing, .missing, .missing])
        let targets = ["Подтвердите через {provider}", "", "Открыть {provider}", "Не сейчас"]
        for index in document.units.indices {
            document.units[index].state = .translated
            document.units[index].target = targets[index]
        }
        document.units[1].targetPlural = PluralText(
            variable: "count",
            forms: [
                .one: "Остался {count} шаг с {provider} и {app}.", .few: "Осталось {count} шага с {provider} и {app}.",
                .many: "Осталось {count} шагов с {provider} и {app}.",
                .other: "Осталось {count} шага с {provider} и {app}.",
            ]
        )
        document.units[1].target = document.units[1].targetPlural?.other
        let file = try Self.xliff(document)
        #expect(file.units == document.units)
        let plan = try Self.plan(file, snapshot)
        guard case .new(let text) = Self.outcome(plan) else {
            Issue.record("expected new, got \(String(describing: Self.outcome(plan))), \(plan.entries)")
            return
        }
        #expect(text.plural?.orderedForms.map(\.category) == [.one, .few, .many, .other])
        #expect(
            plan.writes.first?.template.plural("message", in: "ru")?.forms[.few]
                == "Осталось {count} шага с {provider} и {app}."
        )
    }
}
