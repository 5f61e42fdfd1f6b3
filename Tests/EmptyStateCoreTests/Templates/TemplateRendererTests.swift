import EmptyStateCore
import JSONCoding
import Testing

@Suite("TemplateRenderer")
struct TemplateRendererTests {
    private let sample: Template
    private let labelled: Template
    private let illustrated: Template

    init() throws {
        sample = try #require(Documents.template(Documents.sample))
        labelled = try #require(
            Documents.template(
                Documents.sample
                    .setting("/strings/en/visual.label", to: .string("No connection to {provider}"))
                    .setting("/strings/fr/visual.label", to: .string("Pas de connexion à {provider}"))
            )
        )
        illustrated = try #require(Documents.template(Documents.minimal))
    }

    /// Renders and parses back, so every test also checks the output is JSON.
    private func render(
        _ template: Template,
        locale: String = "en",
        platform: Platform = .web,
        parameters: [String: String] = [:]
    ) throws -> JSONValue {
        let copy = TemplateRenderer.copy(of: template, in: locale)
        let bytes = TemplateRenderer.render(template, copy: copy, platform: platform, parameters: parameters)
        return try JSONParser.parse(bytes)
    }

    @Test("the body carries the store revision after the id; none for a template served from files")
    func revision() throws {
        let copy = TemplateRenderer.copy(of: sample, in: "en")
        let stored = try JSONParser.parse(TemplateRenderer.render(sample, copy: copy, platform: .ios, revision: 7))
        #expect(Array(stored.keys.prefix(2)) == ["id", "revision"])
        #expect(stored["revision"] == .number(7))
        let fromFiles = try JSONParser.parse(TemplateRenderer.render(sample, copy: copy, platform: .ios))
        #expect(fromFiles["revision"] == nil)
    }

    @Test("writes valid JSON with the members in a fixed order")
    func shape() throws {
        let json = try render(sample)
        #expect(
            json.keys == [
                "id", "category", "style", "locale", "direction", "platform", "visual", "title", "message",
                "actions", "placeholders",
            ]
        )
        #expect(json["id"] == .string("sample"))
        #expect(json["category"] == .string("error"))
        #expect(json["style"] == .string("default"))
        #expect(json["title"] == .string("You're offline"))
    }

    @Test("names the locale, direction and platform", arguments: Platform.allCases)
    func localeDirectionPlatform(platform: Platform) throws {
        let json = try render(sample, locale: "fr", platform: platform)
        #expect(json["locale"] == .string("fr"))
        #expect(json["direction"] == .string("ltr"))
        #expect(json["platform"] == .string(platform.rawValue))
        #expect(json["title"] == .string("Vous êtes hors ligne"))
    }

    @Test(
        "the icon's name is the platform's own symbol",
        arguments: [(Platform.ios, "wifi.slash"), (.android, "wifi_off"), (.web, "wifi-off")]
    )
    func iconPerPlatform(platform: Platform, name: String) throws {
        let visual = try #require(try render(sample, platform: platform)["visual"])
        #expect(visual["type"] == .string("icon"))
        #expect(visual["name"] == .string(name))
        #expect(visual["width"] == .number(64))
        #expect(visual["height"] == .number(64))
    }

    @Test("an illustration has the same asset on every platform, 360×230", arguments: Platform.allCases)
    func illustration(platform: Platform) throws {
        let visual = try #require(try render(illustrated, platform: platform)["visual"])
        #expect(visual["type"] == .string("illustration"))
        #expect(visual["name"] == .string("empty_box"))
        #expect(visual["width"] == .number(360))
        #expect(visual["height"] == .number(230))
    }

    @Test("a visual without a label is decorative")
    func decorative() throws {
        let visual = try #require(try render(sample)["visual"])
        #expect(visual["decorative"] == .bool(true))
        #expect(visual["label"] == nil)
    }

    @Test("a visual with a label is announced with it")
    func announced() throws {
        let visual = try #require(try render(labelled, parameters: ["provider": "BankID"])["visual"])
        #expect(visual["decorative"] == .bool(false))
        #expect(visual["label"] == .string("No connection to BankID"))
    }

    @Test("unfilled placeholders stay in the copy and are listed once")
    func unfilled() throws {
        let json = try render(labelled)
        #expect(json["placeholders"] == .array([.string("provider")]))
        #expect(json["message"]?.stringValue?.contains("{provider}") == true)
    }

    @Test("filled placeholders are replaced and the list is empty")
    func filled() throws {
        let json = try render(labelled, locale: "fr", parameters: ["provider": "BankID", "unused": "x"])
        #expect(json["placeholders"] == .array([]))
        #expect(json["message"] == .string("Vérifiez votre connexion à BankID, puis réessayez."))
    }

    @Test("actions carry id, role, type, label and target")
    func actions() throws {
        let template = try #require(
            Documents.template(
                Documents.sample
                    .setting("/actions/0/type", to: .string("openURL"))
                    .setting("/actions/0/target", to: .string("https://example.com/status"))
            )
        )
        let actions = try #require(try render(template, locale: "fr")["actions"]?.arrayValue)
        try #require(actions.count == 2)
        #expect(actions[0].keys == ["id", "role", "type", "label", "target"])
        #expect(actions[0]["label"] == .string("Réessayer"))
        #expect(actions[0]["target"] == .string("https://example.com/status"))
        #expect(actions[1]["role"] == .string("secondary"))
        #expect(actions[1]["type"] == .string("navigateBack"))
        #expect(actions[1]["target"] == nil)
    }

    @Test("the same input always gives the same bytes")
    func deterministic() {
        let copy = TemplateRenderer.copy(of: labelled, in: "fr")
        let first = TemplateRenderer.render(labelled, copy: copy, platform: .ios, parameters: ["provider": "A"])
        let second = TemplateRenderer.render(labelled, copy: copy, platform: .ios, parameters: ["provider": "A"])
        #expect(first == second)
        #expect(
            first != TemplateRenderer.render(labelled, copy: copy, platform: .android, parameters: ["provider": "A"])
        )
    }

    @Test("a locale the template lacks falls back to the default locale's copy")
    func fallbackCopy() throws {
        let json = try render(sample, locale: "de")
        #expect(json["title"] == .string("You're offline"))
    }

    @Test("the pseudo-locales are generated from English: en-XA ltr, ar-XB rtl")
    func pseudoLocales() throws {
        let accented = try render(sample, locale: "en-xa")
        #expect(accented["locale"] == .string("en-XA"))
        #expect(accented["direction"] == .string("ltr"))
        #expect(accented["title"]?.stringValue?.hasPrefix("[Ýöû'ŕé öƒƒļîñé") == true)
        let mirrored = try render(sample, locale: "ar-XB")
        #expect(mirrored["locale"] == .string("ar-XB"))
        #expect(mirrored["direction"] == .string("rtl"))
        #expect(mirrored["title"]?.stringValue?.contains("\u{202E}offline\u{202C}") == true)
    }

    @Test("Arabic copy is right to left")
    func arabic() throws {
        let template = try #require(
            Documents.template(
                Documents.sample.setting(
                    "/strings/ar",
                    to: .object([
                        ("title", .string("أنت غير متصل")),
                        ("message", .string("تحقّق من اتصالك بـ {provider}.")),
                        ("actions.retry", .string("إعادة المحاولة")),
                        ("actions.back", .string("رجوع")),
                    ])
                )
            )
        )
        let json = try render(template, locale: "ar")
        #expect(json["direction"] == .string("rtl"))
        #expect(json["locale"] == .string("ar"))
    }

    @Test("the locale set of a template is its locales, then the pseudo-locales")
    func localeSet() {
        let set = TemplateRenderer.localeSet(of: sample)
        #expect(set.tags == ["en", "fr", "en-XA", "ar-XB"])
        #expect(set.fallback == "en")
    }

    @Test("a bundle holds every template resolved from one locale, and the aliases")
    func bundle() throws {
        let catalogue = try Catalogue(templates: [sample, illustrated])
        let bytes = TemplateRenderer.renderBundle(catalogue, locale: "fr", platform: .ios)
        let json = try JSONParser.parse(bytes)
        #expect(json.keys == ["locale", "direction", "platform", "templates", "aliases"])
        #expect(json["locale"] == .string("fr"))
        #expect(json["direction"] == .string("ltr"))
        let templates = try #require(json["templates"]?.arrayValue)
        #expect(templates.map { $0["id"] } == [.string("minimal"), .string("sample")])
        // `minimal` has no French: it falls back to its default locale.
        #expect(templates.map { $0["locale"] } == [.string("en"), .string("fr")])
        #expect(json["aliases"] == .object([("sampleAlias", .string("sample"))]))
        #expect(bytes == TemplateRenderer.renderBundle(catalogue, locale: "fr", platform: .ios))
    }

    @Test("an ar-XB bundle is right to left")
    func bundleDirection() throws {
        let catalogue = try Catalogue(templates: [sample])
        let json = try JSONParser.parse(TemplateRenderer.renderBundle(catalogue, locale: "ar-XB", platform: .web))
        #expect(json["direction"] == .string("rtl"))
    }
}
