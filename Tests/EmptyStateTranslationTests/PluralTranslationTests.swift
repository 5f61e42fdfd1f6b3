import CLDRPlurals
import EmptyStateCore
import EmptyStateTranslation
import Testing

/// Plural strings in translator files: one unit per plural string with its forms (XLIFF 2.0 as an
/// ICU MessageFormat plural), imported form by form, refused with reason `plural` when the file's
/// forms do not fit the locale; formats that carry no forms leave plural strings out.
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
        target: String = "fr",
        plurals: Bool = true
    ) -> TranslationDocument {
        TranslationExport.document(
            [snapshot],
            sourceLocale: "en",
            targetLocale: target,
            exportedAt: TranslationExportTests.exportedAt,
            plurals: plurals
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

    @Test("a format without plural forms leaves plural strings out of an export")
    func exportWithoutPlurals() {
        #expect(Self.document(plurals: false).units.map(\.id.key) == ["title", "actions.verify", "actions.later"])
        #expect(!TranslationFormat.xliff12.carriesPlurals)
        #expect(TranslationFormat.xliff2.carriesPlurals)
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

    @Test("a format without plural forms: a unit for a plural string is refused (plural)")
    func importFromFormatWithoutPlurals() throws {
        let snapshot = TranslationExportTests.snapshot(Self.template())
        var document = Self.document(plurals: false)
        document.units.append(
            TranslationUnit(
                id: UnitID(template: snapshot.template.id, key: "message"),
                source: "{count} steps left with {provider} & {app}.",
                target: "{count} étapes avec {provider} et {app}.",
                state: .translated
            )
        )
        let plan = try Self.plan(document, snapshot)
        #expect(Self.reasons(plan).map(\.reason) == [.plural])
        #expect(Self.reasons(plan).first?.message.contains("this format does not carry plural forms") == true)
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

/// Plural strings in String Catalogs: `variations.plural`, as Xcode writes it.
@Suite("String Catalogs and plural strings")
struct PluralStringCatalogTests {
    static func catalog(
        _ edit: (String) -> String = { $0 },
        snapshot: TemplateSnapshot? = nil
    ) throws
        -> [TranslationDocument]
    {
        let document = PluralTranslationTests.document(
            snapshot ?? TranslationExportTests.snapshot(PluralTranslationTests.template())
        )
        let text = edit(String(decoding: StringCatalogWriter.write([document]), as: UTF8.self))
        return try StringCatalogReader.read(Array(text.utf8))
    }

    static let frMessage = """
            "verify-identity_2/message" : {
              "comment" : "Template verify-identity_2, category auth\\nmessage, at most 3 lines (140 columns)\\nShown under the heading, as its description\\nPlaceholders {count}, {provider}, {app}: keep them; the app puts values in their place\\nPlural: the number in {count} chooses the form; fr has the forms one, many, other",
              "extractionState" : "manual",
              "localizations" : {
                "en" : {
                  "variations" : {
                    "plural" : {
                      "one" : {
                        "stringUnit" : {
                          "state" : "translated",
                          "value" : "One step left with {provider} & {app}."
                        }
                      },
                      "other" : {
                        "stringUnit" : {
                          "state" : "translated",
                          "value" : "{count} steps left with {provider} & {app}."
                        }
                      }
                    }
                  }
                },
                "fr" : {
                  "variations" : {
                    "plural" : {
                      "one" : {
                        "stringUnit" : {
                          "state" : "translated",
                          "value" : "{count} étape restante avec {provider} et {app}."
                        }
                      },
                      "other" : {
                        "stringUnit" : {
                          "state" : "translated",
                          "value" : "{count} étapes restantes avec {provider} et {app}."
                        }
                      }
                    }
                  }
                }
              }
            },
        """

    static func message(_ documents: [TranslationDocument]) -> TranslationUnit {
        documents[0].units.first { $0.id.key == "message" }!
    }

    /// `text` with `find` replaced in the fr localization of the message only.
    static func editFrench(_ text: String, _ find: String, _ replacement: String) -> String {
        let start = text.range(of: "\"verify-identity_2/message\"")!.upperBound
        let french = text.range(of: "\"fr\" : {", range: start..<text.endIndex)!.lowerBound
        return String(text[..<french])
            + text[french...].replacingOccurrences(of: find, with: replacement)
    }

    @Test("the writer's bytes: variations.plural per locale, each category a stringUnit, Xcode's layout")
    func bytes() {
        let document = PluralTranslationTests.document()
        let text = String(decoding: StringCatalogWriter.write([document]), as: UTF8.self)
        #expect(text.contains(Self.frMessage), "\(text)")
    }

    @Test("write → read → write is byte-identical, and an import of it plans nothing")
    func roundTrip() throws {
        let snapshot = TranslationExportTests.snapshot(PluralTranslationTests.template())
        let document = PluralTranslationTests.document(snapshot)
        let bytes = StringCatalogWriter.write([document])
        let read = try StringCatalogReader.read(bytes)
        #expect(StringCatalogWriter.write(read) == bytes)
        #expect(Self.message(read).targetPlural?.forms[.one] == "{count} étape restante avec {provider} et {app}.")
        let plan = try PluralTranslationTests.plan(read[0], snapshot)
        #expect(plan.isEmpty)
        #expect(PluralTranslationTests.outcome(plan) == .unchanged)
    }

    @Test("Xcode's own save (categories in another order, compact spacing) reads the same")
    func xcodeSave() throws {
        let snapshot = TranslationExportTests.snapshot(PluralTranslationTests.template())
        let read = try Self.catalog {
            $0.replacingOccurrences(
                of: Self.frMessage,
                with: #"""
                          "verify-identity_2/message" : {
                            "extractionState" : "manual",
                            "localizations" : {
                              "fr" : {"variations" : {"plural" : {
                                "other" : {"stringUnit" : {"state" : "translated", "value" : "{count} étapes restantes avec {provider} et {app}."}},
                                "one" : {"stringUnit" : {"state" : "translated", "value" : "{count} étape restante avec {provider} et {app}."}}
                              }}},
                              "en" : {"variations" : {"plural" : {
                                "one" : {"stringUnit" : {"state" : "translated", "value" : "One step left with {provider} & {app}."}},
                                "other" : {"stringUnit" : {"state" : "translated", "value" : "{count} steps left with {provider} & {app}."}}
                              }}}
                            }
                          },
                    """#
            )
        }
        #expect(try PluralTranslationTests.plan(try #require(read.first), snapshot).isEmpty)
    }

    @Test("one changed form: only that string changes; Mark as Reviewed of a stale plural confirms it")
    func changedForm() throws {
        let snapshot = TranslationExportTests.snapshot(PluralTranslationTests.template())
        let read = try Self.catalog {
            $0.replacingOccurrences(of: "\"{count} étape restante avec", with: "\"{count} seule étape restante avec")
        }
        let plan = try PluralTranslationTests.plan(read[0], snapshot)
        #expect(plan.writes.first?.changedKeys == ["message"])
        #expect(
            plan.writes.first?.template.plural("message", in: "fr")?.forms[.one]
                == "{count} seule étape restante avec {provider} et {app}."
        )
        var stale = snapshot
        stale.revisions = ["en": ["message": 5], "fr": ["message": 4]]
        let exported = PluralTranslationTests.document(stale)
        let text = String(decoding: StringCatalogWriter.write([exported]), as: UTF8.self)
        #expect(text.components(separatedBy: "\"state\" : \"needs_review\"").count == 3)
        let reviewed = try StringCatalogReader.read(
            Array(text.replacingOccurrences(of: "needs_review", with: "translated").utf8)
        )
        #expect(
            PluralTranslationTests.outcome(try PluralTranslationTests.plan(reviewed[0], stale))
                == .confirmed(.translated)
        )
    }

    @Test("a form still new leaves the plural a draft; one needing review leaves it stale")
    func formStates() throws {
        let draft = try Self.catalog {
            $0.replacingOccurrences(
                of: "\"state\" : \"translated\",\n                  \"value\" : \"{count} étape restante",
                with: "\"state\" : \"new\",\n                  \"value\" : \"{count} étape restante"
            )
        }
        #expect(Self.message(draft).state == .missing)
        let stale = try Self.catalog {
            $0.replacingOccurrences(
                of: "\"state\" : \"translated\",\n                  \"value\" : \"{count} étape restante",
                with: "\"state\" : \"needs_review\",\n                  \"value\" : \"{count} étape restante"
            )
        }
        #expect(Self.message(stale).state == .stale)
    }

    @Test(
        "forms that do not fit are refused with reason plural, the others imported",
        arguments: [
            ("\"one\" : {", "\"two\" : {", "fr has no plural category two"),
            ("\"one\" : {", "\"single\" : {", "\"single\", which is not a plural category"),
            ("\"other\" : {", "\"many\" : {", "no other form"),
        ]
    )
    func refused(_ find: String, _ replacement: String, _ reason: String) throws {
        let snapshot = TranslationExportTests.snapshot(PluralTranslationTests.template())
        let read = try Self.catalog {
            let edited = Self.editFrench($0, find, replacement)
            #expect(edited != $0)
            return edited.replacingOccurrences(of: "\"Vérifier avec", with: "\"Vérifiez avec")
        }
        let plan = try PluralTranslationTests.plan(read[0], snapshot)
        let rejections = PluralTranslationTests.reasons(plan)
        #expect(rejections.map(\.reason) == [.plural])
        #expect(rejections.first?.message.contains(reason) == true, "\(rejections)")
        #expect(plan.writes.first?.changedKeys == ["title"])
    }
}

/// Plural strings in Android files: `<plurals>` with an `<item quantity>` per category.
@Suite("Android files and plural strings")
struct PluralAndroidTests {
    static func files(
        _ snapshot: TemplateSnapshot = TranslationExportTests.snapshot(PluralTranslationTests.template())
    )
        -> (source: String, target: String)
    {
        let document = PluralTranslationTests.document(snapshot)
        return (
            String(decoding: AndroidStringsWriter.writeSource(document), as: UTF8.self),
            String(decoding: AndroidStringsWriter.write(document), as: UTF8.self)
        )
    }

    static func read(_ target: String, source: String? = nil) throws -> TranslationDocument {
        try AndroidStringsReader.read(Array(target.utf8), locale: "fr", source: source.map { Array($0.utf8) })
    }

    @Test("the writer's <plurals>: an item per category, placeholders as in <string>, examples included")
    func bytes() {
        var template = PluralTranslationTests.template()
        template.examples = ["provider": "BankID"]
        let (source, target) = Self.files(TranslationExportTests.snapshot(template))
        #expect(
            target.contains(
                """
                  <plurals name="verify_1identity_02__message">
                    <item quantity="one"><xliff:g id="count">%2$s</xliff:g> étape restante avec <xliff:g id="provider" example="BankID">%3$s</xliff:g> et <xliff:g id="app">%1$s</xliff:g>.</item>
                    <item quantity="other"><xliff:g id="count">%2$s</xliff:g> étapes restantes avec <xliff:g id="provider" example="BankID">%3$s</xliff:g> et <xliff:g id="app">%1$s</xliff:g>.</item>
                  </plurals>
                """
            ),
            "\(target)"
        )
        #expect(
            source.contains(
                #"<item quantity="one">One step left with <xliff:g id="provider" example="BankID">%3$s</xliff:g> &amp; <xliff:g id="app">%1$s</xliff:g>.</item>"#
            ),
            "\(source)"
        )
    }

    @Test("write → read → write is byte-identical; imported again, nothing changes")
    func roundTrip() throws {
        let snapshot = TranslationExportTests.snapshot(PluralTranslationTests.template())
        let (source, target) = Self.files(snapshot)
        let read = try Self.read(target, source: source)
        #expect(AndroidStringsWriter.write(read) == Array(target.utf8))
        #expect(AndroidStringsWriter.writeSource(read) == Array(source.utf8))
        #expect(try PluralTranslationTests.plan(read, snapshot).isEmpty)
        // The locale file alone, as a tool sends it back: its <xliff:g> names the placeholders.
        #expect(try PluralTranslationTests.plan(try Self.read(target), snapshot).isEmpty)
    }

    @Test("one changed item changes only that string; a stale plural is marked and confirmed by nothing else")
    func changedAndStale() throws {
        let snapshot = TranslationExportTests.snapshot(PluralTranslationTests.template())
        let (_, target) = Self.files(snapshot)
        let edited = target.replacingOccurrences(
            of: "%2$s</xliff:g> étape restante",
            with: "%2$s</xliff:g> seule étape restante"
        )
        let plan = try PluralTranslationTests.plan(try Self.read(edited), snapshot)
        #expect(plan.writes.first?.changedKeys == ["message"])
        #expect(
            plan.writes.first?.template.plural("message", in: "fr")?.forms[.one]
                == "{count} seule étape restante avec {provider} et {app}."
        )
        var stale = snapshot
        stale.revisions = ["en": ["message": 5], "fr": ["message": 4]]
        let (_, staleTarget) = Self.files(stale)
        #expect(
            staleTarget.contains(
                "<!-- \(AndroidStringsReader.staleMarker) -->\n  <plurals name=\"verify_1identity_02__message\">"
            )
        )
        #expect(try Self.read(staleTarget).units.first { $0.id.key == "message" }?.state == .stale)
    }

    @Test(
        "items that do not fit are refused with reason plural, the other strings imported",
        arguments: [
            ("<item quantity=\"one\">", "<item quantity=\"two\">", "fr has no plural category two"),
            (
                "<item quantity=\"one\">", "<item quantity=\"single\">",
                "<item quantity=\"single\"> is not a plural category"
            ),
            ("<item quantity=\"one\">", "<item quantity=\"other\">", "is given twice"),
            ("<item quantity=\"other\">", "<item quantity=\"many\">", "no <item quantity=\"other\">"),
        ]
    )
    func refused(_ find: String, _ replacement: String, _ reason: String) throws {
        let snapshot = TranslationExportTests.snapshot(PluralTranslationTests.template())
        let (_, target) = Self.files(snapshot)
        let edited = target.replacingOccurrences(of: find, with: replacement)
            .replacingOccurrences(of: ">Vérifier avec", with: ">Vérifiez avec")
        let plan = try PluralTranslationTests.plan(try Self.read(edited), snapshot)
        let rejections = PluralTranslationTests.reasons(plan)
        #expect(rejections.map(\.reason) == [.plural])
        #expect(rejections.first?.message.contains(reason) == true, "\(rejections)")
        #expect(plan.writes.first?.changedKeys == ["title"])
    }

    @Test("a <string> for a plural string is refused; a <plurals> for a plain one too")
    func shape() throws {
        let snapshot = TranslationExportTests.snapshot(PluralTranslationTests.template())
        let file = """
            <resources xmlns:xliff="urn:oasis:names:tc:xliff:document:1.2">
              <string name="verify_1identity_02__message"><xliff:g id="count">%2$s</xliff:g> étapes avec <xliff:g id="provider">%3$s</xliff:g> et <xliff:g id="app">%1$s</xliff:g>.</string>
              <plurals name="verify_1identity_02__actions_later"><item quantity="other">Plus tard</item></plurals>
            </resources>
            """
        let document = try AndroidStringsReader.read(Array(file.utf8), locale: "fr", sourceLocale: "en")
        let plan = try PluralTranslationTests.plan(document, snapshot)
        #expect(PluralTranslationTests.reasons(plan).first?.message.contains("is a plural string in en") == true)
        #expect(
            PluralTranslationTests.reasons(plan, "actions.later").first?.message.contains("not a plural string") == true
        )
    }
}
