import EmptyStateCore
import Testing

@testable import EmptyStateWeb

@Suite("Gallery page")
struct GalleryPageTests {
    static func items(locale: String) throws -> [GalleryPage.Item] {
        try CatalogueLoader.load(directory: Fixtures.templatesDirectory).templates.map { template in
            let set = TemplateRenderer.localeSet(of: template)
            let resolved = LocaleTag(locale).flatMap { set.resolve($0) } ?? set.fallback
            return GalleryPage.Item(template: template, copy: TemplateRenderer.copy(of: template, in: resolved))
        }
    }

    @Test("every template in a frame of the chosen size, an h1, an h2 per template, h3 headings inside")
    func layout() throws {
        let items = try Self.items(locale: "de")
        let html = String(
            decoding: GalleryPage.render(
                items,
                options: GalleryOptions(locale: "de", style: .subtle, platform: .web, size: .small),
                locales: ["en", "de", "ar"],
                illustrationBaseURL: nil
            ),
            as: UTF8.self
        )
        #expect(html.components(separatedBy: "<h1>").count == 2)
        #expect(html.components(separatedBy: "<h2 class=\"gallery-name\">").count == items.count + 1)
        #expect(html.components(separatedBy: "<h3 class=\"es-title\">").count == items.count + 1)
        #expect(html.components(separatedBy: "<div class=\"es-frame gallery-frame\">").count == items.count + 1)
        #expect(html.contains(".gallery-frame { inline-size: 200px; block-size: 150px; }"))
        #expect(html.contains(#"<option value="de" selected>de</option>"#))
        #expect(html.contains(#"<option value="subtle" selected>subtle</option>"#))
        #expect(html.contains(#"<option value="200x150" selected>200 × 150</option>"#))
        #expect(!html.contains(#"data-style="default""#))
    }

    @Test("other platforms show the native symbol's name instead of an SVG")
    func platforms() throws {
        let html = String(
            decoding: GalleryPage.render(
                try Self.items(locale: "en"),
                options: GalleryOptions(locale: "en", platform: .android),
                locales: ["en"],
                illustrationBaseURL: nil
            ),
            as: UTF8.self
        )
        #expect(html.contains(#"<span class="es-symbol" aria-hidden="true">wifi_off</span>"#))
        #expect(!html.contains("<svg"))
    }

    @Test("sizes parse into width and height")
    func sizes() {
        for size in GallerySize.allCases {
            #expect("\(size.width)x\(size.height)" == size.rawValue)
        }
    }
}
