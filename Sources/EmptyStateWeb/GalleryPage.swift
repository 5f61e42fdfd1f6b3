import EmptyStateCore

/// The container sizes the gallery offers: the spec's two vectors (400×400, 200×150), a phone's
/// list area and a wide panel.
package enum GallerySize: String, Sendable, CaseIterable {
    case square = "400x400"
    case small = "200x150"
    case phone = "360x640"
    case panel = "640x360"

    package var width: Int { Int(rawValue.split(separator: "x")[0])! }
    package var height: Int { Int(rawValue.split(separator: "x")[1])! }
}

/// What the gallery shows: one locale, style, platform and container size for every template.
package struct GalleryOptions: Sendable, Equatable {
    package var locale: String
    /// `nil`: each template's own style.
    package var style: Template.Style?
    package var platform: Platform
    package var size: GallerySize

    package init(locale: String, style: Template.Style? = nil, platform: Platform = .web, size: GallerySize = .square) {
        self.locale = locale
        self.style = style
        self.platform = platform
        self.size = size
    }
}

/// `/preview`: every template side by side in frames of one size, so a designer or ops can look
/// before shipping (and `make screenshots` can photograph it). A plain page: the choices are a
/// form that reloads it, no script.
package enum GalleryPage {
    /// One template of the gallery: its copy resolved for the gallery's locale.
    package struct Item {
        package var template: Template
        package var copy: LocalizedCopy

        package init(template: Template, copy: LocalizedCopy) {
            self.template = template
            self.copy = copy
        }
    }

    /// - Parameters:
    ///   - locales: the locales to offer (the catalogue's, pseudo-locales included).
    ///   - illustrationBaseURL: as in `HTMLOptions`.
    package static func render(
        _ items: [Item],
        options: GalleryOptions,
        locales: [String],
        illustrationBaseURL: String?,
        stylesheet: String = WebAssets.stylesheetPath,
        icons: IconSet = .lucide
    ) -> [UInt8] {
        var html = HTMLWriter(capacity: 8192 + items.count * 2048)
        html.raw("<!doctype html>\n<html lang=\"en\" dir=\"ltr\">\n<head>\n<meta charset=\"utf-8\">\n")
        html.raw("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
        html.raw("<title>Empty states: gallery</title>\n<link rel=\"stylesheet\" href=\"")
        html.text(stylesheet)
        html.raw("\">\n<style>\n")
        html.raw(galleryCSS)
        html.raw(".gallery-frame { inline-size: \(options.size.width)px; block-size: \(options.size.height)px; }\n")
        html.raw("</style>\n</head>\n<body class=\"gallery\">\n<header>\n<h1>Empty states</h1>\n")
        html.raw("<form method=\"get\" action=\"/preview\" class=\"gallery-controls\">\n")
        select(
            "locale",
            label: "Locale",
            values: locales.map { ($0, $0) },
            selected: options.locale,
            into: &html
        )
        select(
            "style",
            label: "Style",
            values: [("template", "as the template says")] + Template.Style.allCases.map { ($0.rawValue, $0.rawValue) },
            selected: options.style?.rawValue ?? "template",
            into: &html
        )
        select(
            "platform",
            label: "Platform",
            values: Platform.allCases.map { ($0.rawValue, $0.rawValue) },
            selected: options.platform.rawValue,
            into: &html
        )
        select(
            "size",
            label: "Container",
            values: GallerySize.allCases.map { ($0.rawValue, $0.rawValue.replacing("x", with: " × ")) },
            selected: options.size.rawValue,
            into: &html
        )
        html.raw("<button type=\"submit\">Show</button>\n</form>\n</header>\n<main>\n<ul class=\"gallery-grid\">\n")
        for item in items {
            let renderOptions = HTMLOptions(
                headingLevel: 3,
                style: options.style,
                illustrationBaseURL: illustrationBaseURL
            )
            html.raw("<li class=\"gallery-item\">\n<h2 class=\"gallery-name\"><code>")
            html.text(item.template.id)
            html.raw("</code> <span class=\"gallery-meta\">")
            html.text(item.copy.locale)
            html.raw(" · ")
            html.raw((options.style ?? item.template.style).rawValue)
            html.raw("</span></h2>\n<div class=\"es-frame gallery-frame\">")
            HTMLRenderer.write(
                item.template,
                copy: item.copy,
                platform: options.platform,
                parameters: [:],
                options: renderOptions,
                icons: icons,
                into: &html
            )
            html.raw("</div>\n</li>\n")
        }
        html.raw("</ul>\n</main>\n</body>\n</html>\n")
        return html.bytes
    }

    private static func select(
        _ name: String,
        label: String,
        values: [(value: String, text: String)],
        selected: String,
        into html: inout HTMLWriter
    ) {
        html.raw("<label>")
        html.text(label)
        html.raw(" <select name=\"")
        html.raw(name)
        html.raw("\">")
        for (value, text) in values {
            html.raw("<option value=\"")
            html.text(value)
            html.raw(value == selected ? "\" selected>" : "\">")
            html.text(text)
            html.raw("</option>")
        }
        html.raw("</select></label>\n")
    }

    /// The gallery's own layout (the empty states are styled by `empty-state.css`).
    private static let galleryCSS = """
        .gallery { margin: 0; padding: 1rem; font-family: system-ui, "DejaVu Sans", sans-serif; color: #0a2757;
          background: #e9eef6; }
        .gallery h1 { margin: 0 0 0.75rem; font-size: 1.5rem; }
        .gallery-controls { display: flex; flex-wrap: wrap; gap: 0.75rem; align-items: end; margin-block-end: 1rem; }
        .gallery-controls label { display: flex; flex-direction: column; gap: 0.25rem; font-size: 0.875rem; }
        .gallery-controls select, .gallery-controls button { font: inherit; min-block-size: 2rem; }
        .gallery-grid { display: flex; flex-wrap: wrap; gap: 1rem; margin: 0; padding: 0; list-style: none; }
        .gallery-item { display: flex; flex-direction: column; gap: 0.25rem; }
        .gallery-name { margin: 0; font-size: 0.875rem; font-weight: 600; }
        .gallery-meta { font-weight: 400; color: #3d5580; }
        .gallery-frame { outline: 1px solid #b8c6dd; }
        @media (prefers-color-scheme: dark) {
          .gallery { background: #060f1f; color: #e8eef8; }
          .gallery-meta { color: #a9b8d3; }
          .gallery-frame { outline-color: #2a3f63; }
        }

        """
}
