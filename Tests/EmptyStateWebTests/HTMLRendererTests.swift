import EmptyStateCore
import JSONCoding
import Testing

@testable import EmptyStateWeb

@Suite("HTML renderer")
struct HTMLRendererTests {
    static func template(_ json: String) throws -> Template {
        try TemplateParser.parse(try JSONParser.parse(Array(json.utf8))).get()
    }

    static let offline = #"""
        {"id": "offline", "category": "offline", "style": "default", "defaultLocale": "en",
         "visual": {"icon": {"ios": "wifi.slash", "android": "wifi_off", "web": "wifi-off"}},
         "actions": [{"id": "back", "role": "secondary", "type": "navigateBack"},
                     {"id": "retry", "role": "primary", "type": "retry"},
                     {"id": "help", "role": "secondary", "type": "openURL", "target": "https://example.com/help?a=1&b=2"}],
         "strings": {"en": {"title": "You're offline", "message": "Check {network}, then try again.",
                            "actions.retry": "Try again", "actions.back": "Go back", "actions.help": "Get help"},
                     "ar": {"title": "أنت غير متصل", "message": "تحقق من {network}", "actions.retry": "أعد المحاولة",
                            "actions.back": "رجوع", "actions.help": "مساعدة"}}}
        """#

    static func html(
        _ template: Template,
        locale: String = "en",
        parameters: [String: String] = [:],
        options: HTMLOptions = HTMLOptions()
    ) -> String {
        let copy = TemplateRenderer.copy(of: template, in: locale)
        return String(
            decoding: HTMLRenderer.fragment(template, copy: copy, parameters: parameters, options: options),
            as: UTF8.self
        )
    }

    @Test("the fragment: lang, dir, icon, h3, message, buttons with data attributes, primary first")
    func fragment() throws {
        let html = Self.html(try Self.template(Self.offline), parameters: ["network": "Wi-Fi"])
        #expect(
            html.hasPrefix(#"<section class="es" data-template="offline" data-style="default" lang="en" dir="ltr">"#)
        )
        #expect(html.contains(IconSet.lucide.svg(named: "wifi-off")!))
        #expect(html.contains(#"<h3 class="es-title">You&#39;re offline</h3>"#))
        #expect(html.contains(#"<p class="es-message">Check Wi-Fi, then try again.</p>"#))
        let retry = try #require(html.range(of: #"data-action-id="retry""#))
        let back = try #require(html.range(of: #"data-action-id="back""#))
        let help = try #require(html.range(of: #"data-action-id="help""#))
        #expect(retry.lowerBound < back.lowerBound && back.lowerBound < help.lowerBound)
        #expect(
            html.contains(
                #"<button type="button" class="es-action" data-role="primary" data-action-id="retry" data-action-type="retry">Try again</button>"#
            )
        )
        #expect(
            html.contains(#"data-action-type="openURL" data-action-target="https://example.com/help?a=1&amp;b=2">"#)
        )
        #expect(html.hasSuffix("</div></div></section>"))
    }

    @Test("right-to-left copy sets dir=rtl; unfilled placeholders stay visible")
    func rightToLeft() throws {
        let html = Self.html(try Self.template(Self.offline), locale: "ar")
        #expect(html.contains(#"lang="ar" dir="rtl""#))
        #expect(html.contains("{network}"))
        let pseudo = Self.html(try Self.template(Self.offline), locale: PseudoLocale.bidi)
        #expect(pseudo.contains(#"lang="ar-XB" dir="rtl""#))
    }

    @Test("heading level and style are options")
    func options() throws {
        let template = try Self.template(Self.offline)
        let html = Self.html(template, options: HTMLOptions(headingLevel: 2, style: .subtle))
        #expect(html.contains(#"<h2 class="es-title">"#) && html.contains("</h2>"))
        #expect(html.contains(#"data-style="subtle""#))
        #expect(HTMLOptions(headingLevel: 9).headingLevel == 6)
        #expect(HTMLOptions(headingLevel: 0).headingLevel == 1)
    }

    @Test("nothing empty: no message means no <p>, no actions means no actions row")
    func nothingEmpty() throws {
        let template = try Self.template(
            #"""
            {"id": "bare", "category": "loading", "style": "subtle", "defaultLocale": "en",
             "visual": {"icon": {"ios": "hourglass", "android": "hourglass_empty", "web": "hourglass"}},
             "strings": {"en": {"title": "Loading"}}}
            """#
        )
        let html = Self.html(template)
        #expect(!html.contains("<p "))
        #expect(!html.contains("es-actions"))
        #expect(!html.contains("<button"))
        #expect(html.contains("<svg") && html.contains(#"<h3 class="es-title">Loading</h3>"#))
    }

    @Test("hostile copy and targets are text: no tag, attribute or bidi control escapes")
    func hostileCopy() throws {
        let template = try Self.template(
            #"""
            {"id": "hostile", "category": "error", "style": "default", "defaultLocale": "en",
             "visual": {"icon": {"ios": "x", "android": "x", "web": "triangle-alert"}},
             "actions": [{"id": "go", "role": "primary", "type": "navigate", "target": "javascript:alert(1)//\"><img src=x onerror=alert(2)>"},
                         {"id": "back", "role": "secondary", "type": "navigateBack"}],
             "strings": {"en": {"title": "<script>alert(1)</script>", "message": "\"><img src=x onerror=alert(1)> \u202Egnp.exe",
                                "actions.go": "<b onmouseover=alert(3)>Open</b>", "actions.back": "Go 'back'"}}}
            """#
        )
        let html = Self.html(template)
        #expect(!html.contains("<script"))
        #expect(!html.contains("<img"))
        #expect(!html.contains("<b "))
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(html.contains("&quot;&gt;&lt;img src=x onerror=alert(1)&gt; \u{202E}gnp.exe"))
        #expect(
            html.contains(#"data-action-target="javascript:alert(1)//&quot;&gt;&lt;img src=x onerror=alert(2)&gt;""#)
        )
        #expect(html.contains("Go &#39;back&#39;"))
        // Attribute values never close early: every quote in the output is the renderer's own.
        let tags = html.split(separator: "<").dropFirst()
        for tag in tags { #expect(tag.filter { $0 == "\"" }.count % 2 == 0, "unbalanced quotes in <\(tag)") }
    }

    @Test("illustrations: from the configured base URL, alt=\"\" when decorative, left out without a base")
    func illustrations() throws {
        let decorative = try Self.template(
            #"""
            {"id": "docs", "category": "firstUse", "style": "default", "defaultLocale": "en",
             "visual": {"illustration": {"asset": "empty documents"}},
             "actions": [{"id": "create", "role": "primary", "type": "custom", "target": "create"}],
             "strings": {"en": {"title": "No documents", "actions.create": "Create a document"}}}
            """#
        )
        let base = HTMLOptions(illustrationBaseURL: "https://cdn.example.com/ill/{name}.svg")
        let html = Self.html(decorative, options: base)
        #expect(
            html.contains(
                #"<img src="https://cdn.example.com/ill/empty%20documents.svg" alt="" width="360" height="230""#
            )
        )
        #expect(!Self.html(decorative).contains("<img"))
        #expect(!Self.html(decorative).contains("es-visual"))
        #expect(HTMLRenderer.illustrationURL("a/b", base: "https://x.test/i") == "https://x.test/i/a%2Fb")
        #expect(HTMLRenderer.illustrationURL("a", base: "https://x.test/i/") == "https://x.test/i/a")

        let labelled = try Self.template(
            #"""
            {"id": "fav", "category": "firstUse", "style": "subtle", "defaultLocale": "en",
             "visual": {"illustration": {"asset": "fav"}},
             "strings": {"en": {"title": "No favourites", "visual.label": "A \"heart\" <3"}}}
            """#
        )
        #expect(Self.html(labelled, options: base).contains(#"alt="A &quot;heart&quot; &lt;3""#))
    }

    @Test("other platforms name their symbol in the gallery, hidden from assistive technology")
    func nativeSymbols() throws {
        let template = try Self.template(Self.offline)
        let copy = TemplateRenderer.copy(of: template, in: "en")
        let html = String(decoding: HTMLRenderer.fragment(template, copy: copy, platform: .ios), as: UTF8.self)
        #expect(html.contains(#"<span class="es-symbol" aria-hidden="true">wifi.slash</span>"#))
        #expect(!html.contains("<svg"))
    }

    @Test("the page: a document with lang, dir, title, the hashed stylesheet, and an h1")
    func page() throws {
        let template = try Self.template(Self.offline)
        let copy = TemplateRenderer.copy(of: template, in: "ar")
        let html = String(decoding: HTMLRenderer.page(template, copy: copy), as: UTF8.self)
        #expect(html.hasPrefix("<!doctype html>\n<html lang=\"ar\" dir=\"rtl\">"))
        #expect(html.contains("<title>أنت غير متصل</title>"))
        #expect(
            html.contains(
                #"<link rel="stylesheet" href="/v1/web/assets/empty-state."# + WebAssets.stylesheet.hash + #".css">"#
            )
        )
        #expect(html.contains(#"<h1 class="es-title">"#))
        #expect(html.contains(#"<main class="es-frame">"#))
    }

    @Test("the same input gives the same bytes (the ETag is their hash)")
    func deterministic() throws {
        let template = try Self.template(Self.offline)
        #expect(Self.html(template) == Self.html(template))
    }
}

@Suite("Web assets")
struct WebAssetsTests {
    @Test("the stylesheet and component are compiled in, with hashed names")
    func assets() throws {
        let css = WebAssets.stylesheet
        #expect(String(decoding: css.bytes, as: UTF8.self).contains(".es-frame"))
        #expect(css.hashedName == "empty-state.\(css.hash).css")
        #expect(css.hash == ContentHash.hex(css.bytes))
        #expect(String(decoding: WebAssets.component.bytes, as: UTF8.self).contains("customElements.define"))
        #expect(WebAssets.asset(named: "empty-state.css")?.hashed == false)
        #expect(WebAssets.asset(named: css.hashedName)?.hashed == true)
        #expect(WebAssets.asset(named: "empty-state.0000000000000000.css") == nil)
        #expect(WebAssets.asset(named: WebAssets.component.hashedName)?.asset.name == "empty-state.js")
    }

    @Test("the stylesheet uses logical properties only, so right-to-left mirrors without a second sheet")
    func logicalProperties() {
        let css = String(decoding: WebAssets.stylesheet.bytes, as: UTF8.self)
        let physical: Set<String> = [
            "width", "height", "min-width", "max-width", "min-height", "max-height", "left", "right", "top", "bottom",
            "margin-left", "margin-right", "margin-top", "margin-bottom", "padding-left", "padding-right",
            "padding-top", "padding-bottom", "border-left", "border-right", "border-top", "border-bottom", "float",
        ]
        var declarations = 0
        for line in css.split(separator: "\n") {
            let trimmed = line.drop { $0 == " " }
            guard let colon = trimmed.firstIndex(of: ":"), !trimmed.hasPrefix("/*"), !trimmed.hasPrefix("*") else {
                continue
            }
            let property = String(trimmed[..<colon])
            declarations += 1
            #expect(!physical.contains(property), "\(line)")
            #expect(!trimmed.hasSuffix("left;") && !trimmed.hasSuffix("right;"), "\(line)")
        }
        #expect(declarations > 50)
    }
}
