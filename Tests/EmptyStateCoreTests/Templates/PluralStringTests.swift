import CLDRPlurals
import EmptyStateCore
import JSONCoding
import Testing

/// Plural strings (`PluralText`): the document shape, the rules (CLDR's categories per locale,
/// `other` required, the number shown unless a category holds one number alone), and how the
/// JSON renderer chooses a form or hands the forms to the client.
@Suite("Plural strings")
struct PluralStringTests {
    /// A noResults template whose message is a plural in en, fr, ru and ja.
    static let hidden = Documents.document(
        #"""
        {
          "id": "hidden",
          "category": "noResults",
          "style": "default",
          "defaultLocale": "en",
          "visual": { "icon": { "ios": "magnifyingglass", "android": "search_off", "web": "search-x" } },
          "strings": {
            "en": {
              "title": "Nothing matches {query}",
              "message": { "plural": "count", "one": "One result is hidden by filters.", "other": "{count} results are hidden by filters." }
            },
            "fr": {
              "title": "Rien ne correspond à {query}",
              "message": { "plural": "count", "one": "{count} résultat est masqué par les filtres.", "many": "{count} de résultats sont masqués par les filtres.", "other": "{count} résultats sont masqués par les filtres." }
            },
            "ru": {
              "title": "Ничего не найдено по запросу {query}",
              "message": { "plural": "count", "one": "{count} результат скрыт фильтрами.", "few": "{count} результата скрыты фильтрами.", "many": "{count} результатов скрыто фильтрами.", "other": "{count} результата скрыто фильтрами." }
            },
            "ja": {
              "title": "{query} に一致するものはありません",
              "message": { "plural": "count", "other": "{count} 件の結果がフィルターで非表示になっています。" }
            },
            "de": {
              "title": "Nichts passt zu {query}",
              "message": "{count} Ergebnisse sind durch Filter ausgeblendet."
            }
          }
        }
        """#
    )

    private static func issues(_ document: JSONValue) -> [ValidationIssue] {
        switch TemplateParser.parse(document, expectedID: "hidden") {
        case .success: []
        case .failure(let error): error.issues
        }
    }

    @Test("a plural string parses: its forms, its variable, and its other form as the key's text")
    func parses() throws {
        let template = try TemplateParser.parse(Self.hidden, expectedID: "hidden").get()
        let english = try #require(template.plural("message", in: "en"))
        #expect(english.variable == "count")
        #expect(
            english.forms == [
                .one: "One result is hidden by filters.", .other: "{count} results are hidden by filters.",
            ]
        )
        #expect(template.strings(for: "en")?["message"] == "{count} results are hidden by filters.")
        #expect(template.plural("message", in: "ru")?.forms.keys.sorted() == [.one, .few, .many, .other])
        // A translation may stay a plain string: it serves every number.
        #expect(template.plural("message", in: "de") == nil)
        #expect(template.plural("title", in: "en") == nil)
    }

    @Test("the document writes a plural back as its object, forms in CLDR's order, and parses to the same")
    func documentRoundTrip() throws {
        let template = try TemplateParser.parse(Self.hidden, expectedID: "hidden").get()
        let written = template.document
        #expect(written["strings"]?["fr"]?["message"]?.keys == ["plural", "one", "many", "other"])
        #expect(try TemplateParser.parse(written, expectedID: "hidden").get() == template)
        // Stored, the row of a plural holds every form, so a change of one form restamps it.
        #expect(english(template).storedText.contains("One result is hidden by filters."))
    }

    private func english(_ template: Template) -> PluralText { template.plural("message", in: "en")! }

    @Test("a change of one form is a change of the string's field")
    func diff() throws {
        let old = try TemplateParser.parse(Self.hidden, expectedID: "hidden").get()
        let new = try TemplateParser.parse(
            Self.hidden.setting("/strings/fr/message/one", to: .string("{count} résultat masqué par les filtres.")),
            expectedID: "hidden"
        ).get()
        #expect(TemplateDiff.changedFields(from: old, to: new) == ["/strings/fr/message"])
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var pointer: String
        var value: JSONValue?
        var expected: [String]
        var rule: String
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "other is required",
            pointer: "/strings/fr/message/other",
            value: nil,
            expected: ["/strings/fr/message/other"],
            rule: "is required: the general form"
        ),
        Case(
            name: "plural is required",
            pointer: "/strings/ja/message/plural",
            value: nil,
            expected: ["/strings/ja/message/plural"],
            rule: "is required: the placeholder whose number chooses the form"
        ),
        Case(
            name: "a category the locale does not have",
            pointer: "/strings/ja/message/one",
            value: .string("{count} 件"),
            expected: ["/strings/ja/message/one"],
            rule: "ja has no plural category one (CLDR's categories of ja: other)"
        ),
        Case(
            name: "English has no few",
            pointer: "/strings/en/message/few",
            value: .string("{count} results"),
            expected: ["/strings/en/message/few"],
            rule: "en has no plural category few"
        ),
        Case(
            name: "an unknown member",
            pointer: "/strings/en/message/several",
            value: .string("{count} results"),
            expected: ["/strings/en/message/several"],
            rule: "unknown field (expected plural and en's plural categories: one, other)"
        ),
        Case(
            name: "the variable is a placeholder name",
            pointer: "/strings/en/message/plural",
            value: .string("the count"),
            expected: ["/strings/en/message/plural"],
            rule: "must be the name of the placeholder"
        ),
        Case(
            name: "a translation keeps the default locale's variable",
            pointer: "/strings/fr/message/plural",
            value: .string("n"),
            expected: ["/strings/fr/message/plural"],
            rule: "must be \"count\", as in en"
        ),
        Case(
            name: "the general form shows the number",
            pointer: "/strings/ja/message/other",
            value: .string("結果がフィルターで非表示になっています。"),
            expected: ["/strings/ja/message"],
            rule: "uses placeholders {} but en uses {count}"
        ),
        Case(
            name: "the default locale's general form shows the number",
            pointer: "/strings/en/message/other",
            value: .string("Results are hidden by filters."),
            // Every translation that shows the number differs from it too, as for any placeholder.
            expected: [
                "/strings/fr/message", "/strings/ru/message", "/strings/ja/message", "/strings/de/message",
                "/strings/en/message/other",
            ],
            rule: "must show {count}: the general form is used for every number"
        ),
        Case(
            name: "French one holds 0, 1 and 1.5: its form must show the number",
            pointer: "/strings/fr/message/one",
            value: .string("Un résultat est masqué par les filtres."),
            expected: ["/strings/fr/message/one"],
            rule: "must show {count}: in fr, one is the form of more than one number (0, 1, 0.5…)"
        ),
        Case(
            name: "Russian one holds 1, 21, 31…",
            pointer: "/strings/ru/message/one",
            value: .string("Один результат скрыт фильтрами."),
            expected: ["/strings/ru/message/one"],
            rule: "in ru, one is the form of more than one number (1, 21, 31…)"
        ),
        Case(
            name: "a form with a placeholder the general form lacks",
            pointer: "/strings/ru/message/few",
            value: .string("{count} результата скрыты фильтром {query}."),
            expected: ["/strings/ru/message/few"],
            rule: "uses placeholders {query} but en's general form uses {} (besides {count})"
        ),
        Case(
            name: "a form over the message's length",
            pointer: "/strings/en/message/one",
            value: .string(String(repeating: "One result is hidden. ", count: 10)),
            expected: ["/strings/en/message/one"],
            rule: "a message must fit 3 lines"
        ),
        Case(
            name: "a plural starts in the default locale",
            pointer: "/strings/fr/title",
            value: .object([("plural", .string("query")), ("one", .string("{query}")), ("other", .string("{query}"))]),
            expected: ["/strings/fr/title"],
            rule: "is a plural, but en's is not"
        ),
        Case(
            name: "a form is a string",
            pointer: "/strings/en/message/one",
            value: .number(1),
            expected: ["/strings/en/message/one"],
            rule: "expected a string"
        ),
    ]

    @Test("each broken plural rule is reported at its JSON pointer", arguments: cases)
    func rules(_ rule: Case) {
        let issues = Self.issues(Self.hidden.setting(rule.pointer, to: rule.value))
        #expect(issues.map(\.pointer) == rule.expected)
        #expect(issues.contains { $0.rule.contains(rule.rule) }, "\(issues.map(\.rule))")
    }

    @Test("a button label is a plain string, never a plural")
    func buttonLabel() {
        let document = Self.hidden
            .setting(
                "/actions",
                to: .array([
                    .object([
                        ("id", .string("clear")), ("role", .string("primary")), ("type", .string("custom")),
                        ("target", .string("clearFilters")),
                    ])
                ])
            )
            .setting(
                "/strings/en/actions.clear",
                to: .object([("plural", .string("count")), ("other", .string("Clear {count} filters"))])
            )
        let issues = Self.issues(document)
        #expect(
            issues.contains {
                $0.pointer == "/strings/en/actions.clear" && $0.rule.contains("a button label is a plain string")
            }
        )
    }

    @Test("English one holds 1 alone: its form may leave the number out")
    func englishOneWithoutNumber() {
        #expect(Self.issues(Self.hidden).isEmpty)
    }

    @Test("a stored plural is read as accepted, even with a category its locale no longer has")
    func storedLeniency() throws {
        let document = Self.hidden.setting("/strings/ja/message/one", to: .string("{count} 件"))
        let template = try TemplateParser.parse(document, expectedID: "hidden", origin: .stored).get()
        #expect(template.plural("message", in: "ja")?.forms[.one] == "{count} 件")
    }

    // MARK: - Rendering

    private func render(_ locale: String, _ parameters: [String: String] = [:]) throws -> JSONValue {
        let template = try TemplateParser.parse(Self.hidden, expectedID: "hidden").get()
        let copy = TemplateRenderer.copy(of: template, in: locale)
        return try JSONParser.parse(
            TemplateRenderer.render(template, copy: copy, platform: .ios, parameters: parameters)
        )
    }

    @Test(
        "with the number sent, the message is the form CLDR's rules choose in the locale",
        arguments: [
            ("en", "1", "One result is hidden by filters."),
            ("en", "3", "3 results are hidden by filters."),
            ("en", "1.0", "1.0 results are hidden by filters."),
            ("fr", "0", "0 résultat est masqué par les filtres."),
            ("fr", "1000000", "1000000 de résultats sont masqués par les filtres."),
            ("ru", "21", "21 результат скрыт фильтрами."),
            ("ru", "3", "3 результата скрыты фильтрами."),
            ("ru", "11", "11 результатов скрыто фильтрами."),
            ("ru", "2.5", "2.5 результата скрыто фильтрами."),
            ("ja", "1", "1 件の結果がフィルターで非表示になっています。"),
            ("de", "1", "1 Ergebnisse sind durch Filter ausgeblendet."),
            ("en", "many", "many results are hidden by filters."),
        ]
    )
    func chosen(_ locale: String, _ count: String, _ expected: String) throws {
        let body = try render(locale, ["count": count, "query": "shoes"])
        #expect(body["message"] == .string(expected))
        #expect(body["plurals"] == nil)
        #expect(body["placeholders"] == .array([]))
    }

    @Test("without the number, the message is the general form and the forms are served for the client to choose")
    func unchosen() throws {
        let body = try render("ru", ["query": "shoes"])
        #expect(body["message"] == .string("{count} результата скрыто фильтрами."))
        #expect(body["placeholders"] == .array([.string("count")]))
        let plural = try #require(body["plurals"]?["message"])
        #expect(plural.keys == ["plural", "one", "few", "many", "other"])
        #expect(plural["plural"] == .string("count"))
        #expect(plural["few"] == .string("{count} результата скрыты фильтрами."))
        // A template without plurals, and a locale whose string is plain, are written as before.
        #expect(try render("de")["plurals"] == nil)
    }

    @Test("a locale that falls back to the default locale chooses by the default locale's rules")
    func fallbackRules() throws {
        let template = try TemplateParser.parse(Self.hidden, expectedID: "hidden").get()
        let copy = TemplateRenderer.copy(of: template, in: "pl")
        #expect(copy.pluralLocale == "en")
        #expect(copy.text("message", parameters: ["count": "1"]) == "One result is hidden by filters.")
    }

    @Test("a pseudo-locale pseudo-localizes each form")
    func pseudo() throws {
        let template = try TemplateParser.parse(Self.hidden, expectedID: "hidden").get()
        let copy = TemplateRenderer.copy(of: template, in: PseudoLocale.accented)
        let one = try #require(copy.text("message", parameters: ["count": "1"]))
        #expect(one != "One result is hidden by filters.")
        #expect(one != copy.text("message", parameters: ["count": "2"]))
    }
}
