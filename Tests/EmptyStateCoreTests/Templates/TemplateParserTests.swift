import EmptyStateCore
import JSONCoding
import Testing

/// One broken rule: the document that breaks it and where the parser must say so.
struct RuleCase: Sendable, CustomTestStringConvertible {
    var name: String
    var document: JSONValue
    var expectedID: String? = "sample"
    /// Every issue's pointer, in report order.
    var pointers: [String]
    /// Text the first issue's rule must contain.
    var rule: String

    var testDescription: String { name }
}

private let sample = Documents.sample

/// A Japanese locale for the sample, so copy rules can be checked in a wide script.
private let japanese = Documents.document(
    #"""
    {
      "title": "オフラインです",
      "message": "{provider}への接続を確認してから、もう一度お試しください。",
      "actions.retry": "再試行",
      "actions.back": "戻る"
    }
    """#
)

/// 39 characters, 78 columns: under the limit counted in characters, over it in columns.
private let longJapaneseTitle = "ネットワークに接続できませんでした。通信環境の良い場所でもう一度お試しください"

private let fourActions = Documents.document(
    #"""
    [
      { "id": "retry", "role": "primary", "type": "retry" },
      { "id": "back", "role": "secondary", "type": "navigateBack" },
      { "id": "settings", "role": "secondary", "type": "openSettings" },
      { "id": "later", "role": "secondary", "type": "dismiss" }
    ]
    """#
)

private let ruleCases: [RuleCase] = [
    RuleCase(
        name: "an example of a placeholder the default locale does not have",
        document: sample.setting("/examples", to: .object([("count", .string("3"))])),
        pointers: ["/examples/count"],
        rule: "no string of the default locale has the placeholder {count}"
    ),
    RuleCase(
        name: "an example longer than a label",
        document: sample.setting("/examples", to: .object([("provider", .string(String(repeating: "B", count: 33)))])),
        pointers: ["/examples/provider"],
        rule: "an example is at most 32 columns"
    ),
    RuleCase(
        name: "examples that are not an object",
        document: sample.setting("/examples", to: .string("BankID")),
        pointers: ["/examples"],
        rule: "expected an object of placeholder name → example"
    ),
    RuleCase(
        name: "unknown top-level field",
        document: sample.setting("/colour", to: .string("blue")),
        pointers: ["/colour"],
        rule: "unknown field"
    ),
    RuleCase(
        name: "id not matching the pattern",
        document: sample.setting("/id", to: .string("1sample")),
        expectedID: nil,
        pointers: ["/id"],
        rule: "must match ^[A-Za-z][A-Za-z0-9_-]{0,63}$"
    ),
    RuleCase(
        name: "id with a character unsafe in a URL",
        document: sample.setting("/id", to: .string("sample/../x")),
        expectedID: nil,
        pointers: ["/id"],
        rule: "must match"
    ),
    RuleCase(
        name: "id different from the file name",
        document: sample,
        expectedID: "other",
        pointers: ["/id"],
        rule: "must equal \"other\""
    ),
    RuleCase(
        name: "both an icon and an illustration",
        document: sample.setting("/visual/illustration", to: .object([("asset", .string("box"))])),
        pointers: ["/visual"],
        rule: "has both an icon and an illustration"
    ),
    RuleCase(
        name: "neither an icon nor an illustration",
        document: sample.setting("/visual", to: .object([])),
        pointers: ["/visual"],
        rule: "needs an icon or an illustration"
    ),
    RuleCase(
        name: "no visual at all",
        document: sample.setting("/visual", to: nil),
        pointers: ["/visual"],
        rule: "is required"
    ),
    RuleCase(
        name: "icon without its web symbol",
        document: sample.setting("/visual/icon/web", to: nil),
        pointers: ["/visual/icon/web"],
        rule: "is required"
    ),
    RuleCase(
        name: "icon with an empty Android symbol",
        document: sample.setting("/visual/icon/android", to: .string("")),
        pointers: ["/visual/icon/android"],
        rule: "must not be empty"
    ),
    RuleCase(
        name: "icon for an unknown platform",
        document: sample.setting("/visual/icon/windows", to: .string("wifi")),
        pointers: ["/visual/icon/windows"],
        rule: "unknown platform"
    ),
    RuleCase(
        name: "four actions",
        document: sample.setting("/actions", to: fourActions)
            .setting("/strings/en/actions.settings", to: .string("Open settings"))
            .setting("/strings/en/actions.later", to: .string("Not now"))
            .setting("/strings/fr/actions.settings", to: .string("Ouvrir les réglages"))
            .setting("/strings/fr/actions.later", to: .string("Plus tard")),
        pointers: ["/actions"],
        rule: "at most 3 actions (found 4)"
    ),
    RuleCase(
        name: "no primary action",
        document: sample.setting("/actions/0/role", to: .string("secondary")),
        pointers: ["/actions"],
        rule: "exactly one action must have role primary (found 0)"
    ),
    RuleCase(
        name: "two primary actions",
        document: sample.setting("/actions/1/role", to: .string("primary")),
        pointers: ["/actions"],
        rule: "exactly one action must have role primary (found 2)"
    ),
    RuleCase(
        name: "duplicate action ids",
        document: sample.setting("/actions/1/id", to: .string("retry"))
            .setting("/strings/en/actions.back", to: nil)
            .setting("/strings/fr/actions.back", to: nil),
        pointers: ["/actions/1/id"],
        rule: "repeats action id \"retry\""
    ),
    RuleCase(
        name: "action id not matching its pattern",
        document: sample.setting("/actions/1/id", to: .string("Back"))
            .setting("/strings/en/actions.back", to: nil)
            .setting("/strings/fr/actions.back", to: nil)
            .setting("/strings/en/actions.Back", to: .string("Go back"))
            .setting("/strings/fr/actions.Back", to: .string("Retour")),
        pointers: ["/actions/1/id"],
        rule: "must match ^[a-z][A-Za-z0-9]{0,31}$"
    ),
    RuleCase(
        name: "openURL to an http:// target",
        document: sample.setting("/actions/0/type", to: .string("openURL"))
            .setting("/actions/0/target", to: .string("http://example.com/help")),
        pointers: ["/actions/0/target"],
        rule: "openURL needs an https:// URL"
    ),
    RuleCase(
        name: "openURL without a target",
        document: sample.setting("/actions/0/type", to: .string("openURL")),
        pointers: ["/actions/0/target"],
        rule: "openURL needs an https:// target"
    ),
    RuleCase(
        name: "openURL to https:// and nothing else",
        document: sample.setting("/actions/0/type", to: .string("openURL"))
            .setting("/actions/0/target", to: .string("https://")),
        pointers: ["/actions/0/target"],
        rule: "https://"
    ),
    RuleCase(
        name: "navigate without a route",
        document: sample.setting("/actions/0/type", to: .string("navigate")),
        pointers: ["/actions/0/target"],
        rule: "navigate needs a target"
    ),
    RuleCase(
        name: "custom without an event name",
        document: sample.setting("/actions/0/type", to: .string("custom")),
        pointers: ["/actions/0/target"],
        rule: "custom needs a target"
    ),
    RuleCase(
        name: "a target on a retry action",
        document: sample.setting("/actions/0/target", to: .string("app://retry")),
        pointers: ["/actions/0/target"],
        rule: "retry takes no target"
    ),
    RuleCase(
        name: "an unknown category",
        document: sample.setting("/category", to: .string("oops")),
        pointers: ["/category"],
        rule: "must be one of firstUse, noResults, error"
    ),
    RuleCase(
        name: "an unknown style",
        document: sample.setting("/style", to: .string("loud")),
        pointers: ["/style"],
        rule: "must be one of default, subtle"
    ),
    RuleCase(
        name: "a malformed alias",
        document: sample.setting("/aliases", to: .array([.string("ok"), .string("no way")])),
        pointers: ["/aliases/1"],
        rule: "must match"
    ),
    RuleCase(
        name: "an alias equal to the id",
        document: sample.setting("/aliases", to: .array([.string("sample")])),
        pointers: ["/aliases/0"],
        rule: "repeats \"sample\""
    ),
    RuleCase(
        name: "no title in the default locale",
        document: sample.setting("/strings/fr", to: nil).setting("/strings/en/title", to: nil),
        pointers: ["/strings/en/title"],
        rule: "is required"
    ),
    RuleCase(
        name: "no strings for the default locale",
        document: sample.setting("/defaultLocale", to: .string("de")),
        pointers: ["/strings"],
        rule: "has no strings for the default locale de"
    ),
    RuleCase(
        name: "a malformed default locale",
        document: sample.setting("/defaultLocale", to: .string("english-")),
        pointers: ["/defaultLocale"],
        rule: "is not a well-formed BCP 47 language tag"
    ),
    RuleCase(
        name: "a title over 60 columns",
        document: sample.setting("/strings/en/title", to: .string(String(repeating: "a", count: 61))),
        pointers: ["/strings/en/title"],
        rule: "61 columns; a title must fit 2 lines (at most 60)"
    ),
    RuleCase(
        name: "a Japanese title under 60 characters but over 60 columns",
        document: sample.setting("/strings/ja", to: japanese)
            .setting("/strings/ja/title", to: .string(longJapaneseTitle)),
        pointers: ["/strings/ja/title"],
        rule: "78 columns"
    ),
    RuleCase(
        name: "a message over 140 columns",
        document: sample.setting(
            "/strings/fr/message",
            to: .string("{provider} " + String(repeating: "é", count: 130))
        ),
        pointers: ["/strings/fr/message"],
        rule: "141 columns; a message must fit 3 lines"
    ),
    RuleCase(
        name: "an action label over 32 columns",
        document: sample.setting("/strings/en/actions.back", to: .string("Go back to the page you were on before")),
        pointers: ["/strings/en/actions.back"],
        rule: "a button label must be at most 32"
    ),
    RuleCase(
        name: "a locale missing the message en has",
        document: sample.setting("/strings/fr/message", to: nil),
        pointers: ["/strings/fr/message"],
        rule: "is missing (en has it"
    ),
    RuleCase(
        name: "a locale missing an action label",
        document: sample.setting("/strings/fr/actions.back", to: nil),
        pointers: ["/strings/fr/actions.back"],
        rule: "is required: a label for action back"
    ),
    RuleCase(
        name: "a key the default locale does not have",
        document: sample.setting("/strings/fr/visual.label", to: .string("Pas de réseau")),
        pointers: ["/strings/fr/visual.label"],
        rule: "is not in the default locale en"
    ),
    RuleCase(
        name: "an unknown string key",
        document: sample.setting("/strings/en/subtitle", to: .string("Hello")),
        pointers: ["/strings/en/subtitle"],
        rule: "unknown key"
    ),
    RuleCase(
        name: "placeholders that differ between locales",
        document: sample.setting(
            "/strings/fr/message",
            to: .string("Vérifiez votre connexion à {fournisseur}, puis réessayez.")
        ),
        pointers: ["/strings/fr/message"],
        rule: "uses placeholders {fournisseur} but en uses {provider}"
    ),
    RuleCase(
        name: "a placeholder the default locale does not use",
        document: sample.setting("/strings/fr/title", to: .string("{name}, vous êtes hors ligne")),
        pointers: ["/strings/fr/title"],
        rule: "uses placeholders {name} but en uses {}"
    ),
    RuleCase(
        name: "a malformed locale tag as a key",
        document: sample.setting("/strings/fr--CA", to: sample["strings"]?["fr"]),
        pointers: ["/strings/fr--CA"],
        rule: "\"fr--CA\" is not a well-formed BCP 47 language tag"
    ),
    RuleCase(
        name: "a pseudo-locale as a key",
        document: sample.setting("/strings/en-XA", to: sample["strings"]?["en"]),
        pointers: ["/strings/en-XA"],
        rule: "en-XA is a pseudo-locale the service generates"
    ),
    RuleCase(
        name: "a pseudo-locale in another case as a key",
        document: sample.setting("/strings/ar-xb", to: sample["strings"]?["en"]),
        pointers: ["/strings/ar-xb"],
        rule: "pseudo-locale"
    ),
    RuleCase(
        name: "the same locale twice in different case",
        document: sample.setting("/strings/FR", to: sample["strings"]?["fr"]),
        pointers: ["/strings/FR"],
        rule: "repeats locale fr"
    ),
    RuleCase(
        name: "a document that is not an object",
        document: .array([]),
        pointers: [""],
        rule: "a template must be a JSON object, found an array"
    ),
]

@Suite("TemplateParser")
struct TemplateParserTests {
    /// Every issue the parser reports for `document` (none when it parses).
    private func issues(_ document: JSONValue, expectedID: String? = "sample") -> [ValidationIssue] {
        switch TemplateParser.parse(document, expectedID: expectedID) {
        case .success: return []
        case .failure(let error): return error.issues
        }
    }

    @Test("a minimal document parses")
    func minimal() throws {
        let template = try TemplateParser.parse(Documents.minimal, expectedID: "minimal").get()
        #expect(template.id == "minimal")
        #expect(template.aliases.isEmpty)
        #expect(template.category == .loading)
        #expect(template.style == .subtle)
        #expect(template.visual == .illustration(asset: "empty_box"))
        #expect(template.actions.isEmpty)
        #expect(template.strings.map(\.locale) == ["en"])
        #expect(template.strings(for: "en") == ["title": "Loading your files"])
    }

    @Test("the full sample parses with every field")
    func sampleParses() throws {
        let template = try TemplateParser.parse(Documents.sample, expectedID: "sample").get()
        #expect(template.aliases == ["sampleAlias"])
        #expect(template.category == .error)
        #expect(template.style == .default)
        #expect(template.defaultLocale == "en")
        #expect(template.visual == .icon([.ios: "wifi.slash", .android: "wifi_off", .web: "wifi-off"]))
        #expect(template.actions.map(\.id) == ["retry", "back"])
        #expect(template.actions.map(\.role) == [.primary, .secondary])
        #expect(template.actions.map(\.kind) == [.retry, .navigateBack])
        #expect(template.actions.allSatisfy { $0.target == nil })
        #expect(template.strings.map(\.locale) == ["en", "fr"])
        #expect(template.strings(for: "fr")?["actions.back"] == "Retour")
    }

    @Test("locale keys and the default locale are stored in canonical case")
    func canonicalLocales() throws {
        let document = Documents.minimal
            .setting("/defaultLocale", to: .string("pt-br"))
            .setting("/strings/en", to: nil)
            .setting("/strings/pt_br", to: .object([("title", .string("Carregando seus arquivos"))]))
        let template = try TemplateParser.parse(document).get()
        #expect(template.defaultLocale == "pt-BR")
        #expect(template.strings.map(\.locale) == ["pt-BR"])
    }

    @Test("openURL, openStore, navigate and custom keep their targets")
    func targets() throws {
        // Not an error state: an open-URL remedy and an open-store secondary are no way out.
        let document = Documents.sample
            .setting("/category", to: .string("noResults"))
            .setting("/actions/0/type", to: .string("openURL"))
            .setting("/actions/0/target", to: .string("https://example.com/help"))
            .setting("/actions/1/type", to: .string("openStore"))
        let template = try TemplateParser.parse(document).get()
        #expect(template.actions.map(\.target) == ["https://example.com/help", nil])
        #expect(template.actions.map(\.kind) == [.openURL, .openStore])
    }

    @Test("examples of placeholders are kept, in the document the server returns")
    func examples() throws {
        let document = sample.setting("/examples", to: .object([("provider", .string("BankID"))]))
        guard case .success(let template) = TemplateParser.parse(document, expectedID: "sample") else {
            Issue.record("the document with examples is refused")
            return
        }
        #expect(template.examples == ["provider": "BankID"])
        #expect(template.document["examples"] == .object([("provider", .string("BankID"))]))
        guard case .success(let without) = TemplateParser.parse(sample, expectedID: "sample") else { return }
        #expect(without.examples.isEmpty && without.document["examples"] == nil)
        #expect(TemplateDiff.changedFields(from: without, to: template) == ["/examples"])
    }

    @Test("each broken rule is reported at its JSON pointer", arguments: ruleCases)
    func brokenRule(_ rule: RuleCase) throws {
        let issues = issues(rule.document, expectedID: rule.expectedID)
        #expect(issues.map(\.pointer) == rule.pointers, "\(issues)")
        let first = try #require(issues.first)
        #expect(first.rule.contains(rule.rule), "\(first.rule)")
    }

    @Test(
        "vague action labels are refused in any shipped language",
        arguments: [
            ("/strings/en/actions.retry", "OK"),
            ("/strings/fr/actions.retry", "Aceptar"),
            ("/strings/fr/actions.back", "はい"),
            ("/strings/en/actions.back", "Click here!"),
            ("/strings/fr/actions.retry", "D'accord"),
        ]
    )
    func vagueLabel(pointer: String, label: String) {
        let issues = issues(Documents.sample.setting(pointer, to: .string(label)))
        #expect(issues.map(\.pointer) == [pointer])
        #expect(issues.first?.rule.contains("is not descriptive") == true)
    }

    @Test("a descriptive label passes, including Go back")
    func descriptiveLabel() {
        #expect(issues(Documents.sample.setting("/strings/en/actions.retry", to: .string("Go back"))).isEmpty)
    }

    @Test("a Japanese title within 60 columns passes; the long one is short in characters only")
    func japaneseWithinLimit() {
        #expect(issues(Documents.sample.setting("/strings/ja", to: japanese)).isEmpty)
        #expect(longJapaneseTitle.count < CopyRules.titleColumns)
        #expect(CopyRules.columns(longJapaneseTitle) > CopyRules.titleColumns)
    }

    @Test("reports every broken rule at once, in document order")
    func severalIssues() {
        let document = Documents.sample
            .setting("/colour", to: .string("blue"))
            .setting("/category", to: .string("oops"))
            .setting("/actions/1/role", to: .string("primary"))
            .setting("/strings/en/actions.retry", to: .string("OK"))
            .setting("/strings/fr/message", to: nil)
        #expect(
            issues(document).map(\.pointer) == [
                "/colour", "/category", "/actions", "/strings/en/actions.retry", "/strings/fr/message",
            ]
        )
    }

    @Test(
        "a bad action type or role is reported first, at its pointer",
        arguments: [
            ("/actions/1/type", "goBack", "must be one of retry, navigateBack, navigate, openURL"),
            ("/actions/1/role", "tertiary", "must be one of primary, secondary"),
        ]
    )
    func badActionField(pointer: String, value: String, rule: String) throws {
        let issues = issues(Documents.sample.setting(pointer, to: .string(value)))
        let first = try #require(issues.first)
        #expect(first.pointer == pointer)
        #expect(first.rule.contains(rule), "\(first.rule)")
    }

    /// One broken action must not make the parser call the labels of the other, valid, actions
    /// "unknown keys": the report would send the author to fix strings that are right.
    @Test(
        "a broken action does not turn the labels of the valid actions into unknown keys",
        arguments: [("/actions/1/type", "goBack"), ("/actions/1/role", "tertiary")]
    )
    func brokenActionDoesNotCascade(pointer: String, value: String) {
        let issues = issues(Documents.sample.setting(pointer, to: .string(value)))
        #expect(issues.first?.pointer == pointer)
        let aboutValidAction = issues.filter { $0.pointer.hasSuffix("/actions.retry") }
        #expect(aboutValidAction.isEmpty, "\(aboutValidAction)")
    }

    /// config/templates/README.md, Copy rules: "First-use states have one primary action only."
    @Test("a first-use state with a secondary action is refused")
    func firstUseHasOnePrimaryOnly() {
        let firstUse = Documents.sample.setting("/category", to: .string("firstUse"))
        let issues = issues(firstUse)
        #expect(issues.map(\.pointer) == ["/actions"], "\(issues)")
        let single = firstUse.setting("/actions/1", to: nil)
            .setting("/strings/en/actions.back", to: nil)
            .setting("/strings/fr/actions.back", to: nil)
        #expect(self.issues(single).isEmpty)
    }

    /// config/templates/README.md, Copy rules (Workday's "Errors"): a remedy as the primary action
    /// and a way out as the secondary; where there is no remedy, "Go back" is the primary.
    @Test("an error state offers a way out, and its remedy is the primary action")
    func errorRemedyAndWayOut() {
        #expect(issues(Documents.sample).isEmpty, "retry (primary) and back (secondary)")
        let backOnly = Documents.sample.setting("/actions/0", to: nil)
            .setting("/actions/0/role", to: .string("primary"))
            .setting("/strings/en/actions.retry", to: nil).setting("/strings/fr/actions.retry", to: nil)
        #expect(issues(backOnly).isEmpty, "no remedy: go back is the primary")
        let retryOnly = Documents.sample.setting("/actions/1", to: nil)
            .setting("/strings/en/actions.back", to: nil).setting("/strings/fr/actions.back", to: nil)
        #expect(issues(retryOnly).map(\.pointer) == ["/actions"], "a remedy without a way out")
        #expect(issues(retryOnly).first?.rule.contains("way out") == true)
        let inverted = Documents.sample.setting("/actions/0/role", to: .string("secondary"))
            .setting("/actions/1/role", to: .string("primary"))
        #expect(issues(inverted).map(\.pointer) == ["/actions"], "the way out as primary, the remedy secondary")
        let none = Documents.sample.setting("/actions", to: .array([]))
            .setting("/strings/en/actions.retry", to: nil).setting("/strings/fr/actions.retry", to: nil)
            .setting("/strings/en/actions.back", to: nil).setting("/strings/fr/actions.back", to: nil)
        #expect(issues(none).map(\.pointer) == ["/actions"], "no action at all")
        let offline = retryOnly.setting("/category", to: .string("offline"))
        #expect(issues(offline).map(\.pointer) == ["/actions"], "offline is an error state too")
        let noResults = retryOnly.setting("/category", to: .string("noResults"))
        #expect(issues(noResults).isEmpty, "other categories are not held to the rule")
        // A document the store accepted before the rule existed still loads.
        #expect((try? TemplateParser.parse(retryOnly, expectedID: "sample", origin: .stored).get()) != nil)
    }

    @Test(
        "control characters are refused in copy and in every other string, at the string's pointer",
        arguments: [
            ("/strings/en/title", "You're\noffline", "U+000A"),
            ("/strings/en/message", "Check\tyour connection to {provider}.", "U+0009"),
            ("/strings/fr/actions.retry", "R\u{1B}[31méessayer", "U+001B"),
            ("/strings/en/actions.back", "Go back\u{0}", "U+0000"),
            ("/strings/en/title", "Offline\r", "U+000D"),
            ("/strings/en/title", "Offline\u{7F}", "U+007F"),
            ("/strings/en/title", "Offline\u{85}", "U+0085"),
            ("/strings/en/title", "Off\u{2028}line", "U+2028"),
            ("/visual/icon/web", "wifi-off\n", "U+000A"),
        ]
    )
    func controlCharacters(pointer: String, text: String, control: String) {
        let document = Documents.sample.setting(pointer, to: .string(text))
        let issues = issues(document)
        #expect(issues.map(\.pointer) == [pointer], "\(issues)")
        #expect(issues.first?.rule.contains("control character \(control)") == true, "\(issues)")
        // A document the store accepted before the rule existed still loads.
        #expect((try? TemplateParser.parse(document, expectedID: "sample", origin: .stored).get()) != nil)
    }

    @Test("text around the control range is copy like any other")
    func nearControlCharacters() {
        // U+00A0 (no-break space) and U+200F (right-to-left mark) are not controls.
        let document = Documents.sample.setting("/strings/en/title", to: .string("You\u{A0}are\u{200F} offline"))
        #expect(issues(document).isEmpty)
    }

    @Test("issue descriptions show the pointer, or / for the document")
    func issueDescription() {
        #expect(ValidationIssue("/id", "is required").description == "/id: is required")
        #expect(ValidationIssue("", "not an object").description == "/: not an object")
    }

    @Test(
        "ids are letters, digits, _ and -, starting with a letter, at most 64",
        arguments: [
            ("a", true), ("noInternetConnection", true), ("a_b-c9", true),
            ("", false), ("9a", false), ("_a", false), ("a b", false), ("a.b", false), ("é", false),
        ]
    )
    func validIDs(id: String, valid: Bool) {
        #expect(TemplateParser.isValidID(id) == valid)
    }

    @Test("an id of 64 characters is valid, 65 is not")
    func idLength() {
        #expect(TemplateParser.isValidID("a" + String(repeating: "b", count: 63)))
        #expect(!TemplateParser.isValidID("a" + String(repeating: "b", count: 64)))
    }
}
