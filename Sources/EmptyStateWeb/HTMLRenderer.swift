import EmptyStateCore

/// How a template is rendered as HTML, beyond its copy: what a page asks for.
package struct HTMLOptions: Sendable, Hashable {
    /// The heading's level, 1–6: `h3` by default (the spec's web heading); a page with its own
    /// `h1`/`h2` structure picks the level that fits its outline.
    package var headingLevel: Int
    /// Paints with this style instead of the template's (the gallery compares both).
    package var style: Template.Style?
    /// Where illustrations are: `{name}` in it is replaced by the asset name, otherwise the name
    /// is appended (`https://cdn.example.com/illustrations/{name}.svg`). `nil`: an illustration
    /// is left out (the heading still says what the state is).
    package var illustrationBaseURL: String?
    /// The experiment and variant this copy is, written on the root element as
    /// `data-experiment-id` and `data-variant` (so the page's events can name them).
    package var experiment: ExperimentMark?

    package init(
        headingLevel: Int = 3,
        style: Template.Style? = nil,
        illustrationBaseURL: String? = nil,
        experiment: ExperimentMark? = nil
    ) {
        self.headingLevel = min(max(headingLevel, 1), 6)
        self.style = style
        self.illustrationBaseURL = illustrationBaseURL
        self.experiment = experiment
    }
}

/// Writes a template as HTML: the markup `empty-state.css` styles and `empty-state.js` writes
/// too. Pure functions of the template, its copy and the options, so the snapshot can render a
/// representation once and serve its bytes (and ETag) to every request that asks for it.
///
/// Every string from the template is escaped (text and attributes alike); actions are
/// `<button type="button">` carrying their id, type and target as data attributes, never links,
/// so a `javascript:` target stays an inert string; nothing empty is written (no `<p>` without a
/// message, no actions row without actions).
package enum HTMLRenderer {
    /// One template as an HTML fragment (a `<section>`), for server-side includes and
    /// `fetch` + insert. `platform` other than web draws the native symbol's name in a box (the
    /// gallery shows what iOS and Android get).
    package static func fragment(
        _ template: Template,
        copy: LocalizedCopy,
        platform: Platform = .web,
        parameters: [String: String] = [:],
        options: HTMLOptions = HTMLOptions(),
        icons: IconSet = .lucide
    ) -> [UInt8] {
        var html = HTMLWriter(capacity: 2048)
        write(
            template,
            copy: copy,
            platform: platform,
            parameters: parameters,
            options: options,
            icons: icons,
            into: &html
        )
        return html.bytes
    }

    /// A standalone page showing one template, filling the window: a preview, or a page a web
    /// view can load as it is. Its heading is an `h1` unless `options` says otherwise: it is the
    /// page's only heading.
    /// - Parameter stylesheet: the stylesheet's URL (the hashed one: the page's ETag changes with it).
    package static func page(
        _ template: Template,
        copy: LocalizedCopy,
        parameters: [String: String] = [:],
        options: HTMLOptions = HTMLOptions(headingLevel: 1),
        stylesheet: String = WebAssets.stylesheetPath,
        icons: IconSet = .lucide
    ) -> [UInt8] {
        var html = HTMLWriter(capacity: 4096)
        let title = copy.text("title", parameters: parameters) ?? template.id
        html.raw("<!doctype html>\n<html lang=\"")
        html.text(copy.locale)
        html.raw("\" dir=\"")
        html.raw(copy.isRightToLeft ? "rtl" : "ltr")
        html.raw("\">\n<head>\n<meta charset=\"utf-8\">\n")
        html.raw("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>")
        html.text(title)
        html.raw("</title>\n<link rel=\"stylesheet\" href=\"")
        html.text(stylesheet)
        html.raw("\">\n</head>\n<body class=\"es-page\">\n<main class=\"es-frame\">\n")
        write(template, copy: copy, platform: .web, parameters: parameters, options: options, icons: icons, into: &html)
        html.raw("\n</main>\n</body>\n</html>\n")
        return html.bytes
    }

    /// Writes the fragment of `template` into `html`.
    package static func write(
        _ template: Template,
        copy: LocalizedCopy,
        platform: Platform,
        parameters: [String: String],
        options: HTMLOptions,
        icons: IconSet,
        into html: inout HTMLWriter
    ) {
        func text(_ key: String) -> String? {
            // A plural string takes the form of its number (`param.count`), as in the JSON API.
            copy.text(key, parameters: parameters)
        }
        let style = options.style ?? template.style
        html.raw("<section class=\"es\" data-template=\"")
        html.text(template.id)
        html.raw("\" data-style=\"")
        html.raw(style.rawValue)
        if let experiment = options.experiment {
            html.raw("\" data-experiment-id=\"")
            html.text(experiment.experimentID)
            html.raw("\" data-variant=\"")
            html.text(experiment.variant)
        }
        html.raw("\" lang=\"")
        html.text(copy.locale)
        html.raw("\" dir=\"")
        html.raw(copy.isRightToLeft ? "rtl" : "ltr")
        html.raw("\"><div class=\"es-body\">")

        let label = text("visual.label")
        switch template.visual {
        case .icon(let symbols):
            let name = symbols[platform] ?? ""
            if platform == .web {
                // A name the set lacks (a template stored before names were checked) draws
                // nothing rather than an empty box.
                if let svg = icons.svg(named: name) {
                    html.raw("<div class=\"es-visual\">")
                    if let label {
                        // Not decorative: the icon is announced with its label.
                        html.raw("<span role=\"img\" aria-label=\"")
                        html.text(label)
                        html.raw("\">")
                        html.raw(svg)
                        html.raw("</span>")
                    } else {
                        html.raw(svg)
                    }
                    html.raw("</div>")
                }
            } else if !name.isEmpty {
                html.raw("<div class=\"es-visual\"><span class=\"es-symbol\" aria-hidden=\"true\">")
                html.text(name)
                html.raw("</span></div>")
            }
        case .illustration(let asset):
            if let url = illustrationURL(asset, base: options.illustrationBaseURL) {
                html.raw("<div class=\"es-visual\"><img src=\"")
                html.text(url)
                html.raw("\" alt=\"")
                html.text(label ?? "")
                html.raw("\" width=\"360\" height=\"230\" decoding=\"async\"></div>")
            }
        }

        let level = "h" + String(options.headingLevel)
        html.raw("<" + level + " class=\"es-title\">")
        html.text(text("title") ?? template.id)
        html.raw("</" + level + ">")
        if let message = text("message"), !message.isEmpty {
            html.raw("<p class=\"es-message\">")
            html.text(message)
            html.raw("</p>")
        }

        if !template.actions.isEmpty {
            html.raw("<div class=\"es-actions\">")
            // The primary first: in the DOM, so in the tab order and for screen readers too.
            for action in template.actions.sorted(by: { $0.role == .primary && $1.role != .primary }) {
                html.raw("<button type=\"button\" class=\"es-action\" data-role=\"")
                html.raw(action.role.rawValue)
                html.raw("\" data-action-id=\"")
                html.text(action.id)
                html.raw("\" data-action-type=\"")
                html.raw(action.kind.rawValue)
                if let target = action.target {
                    html.raw("\" data-action-target=\"")
                    html.text(target)
                }
                html.raw("\">")
                html.text(text(Template.labelKey(action.id)) ?? action.id)
                html.raw("</button>")
            }
            html.raw("</div>")
        }
        html.raw("</div></section>")
    }

    /// The illustration's URL: `{name}` in `base` replaced by the percent-encoded asset name,
    /// or the name appended.
    package static func illustrationURL(_ asset: String, base: String?) -> String? {
        guard let base, !base.isEmpty else { return nil }
        let name = percentEncoded(asset)
        if base.contains("{name}") { return base.replacingOccurrences(of: "{name}", with: name) }
        return base.hasSuffix("/") ? base + name : base + "/" + name
    }

    /// `text` with every byte outside RFC 3986's unreserved set percent-encoded.
    static func percentEncoded(_ text: String) -> String {
        var result = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                result.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".utf8)
                result += "%"
                result.unicodeScalars.append(Unicode.Scalar(hex[Int(byte >> 4)]))
                result.unicodeScalars.append(Unicode.Scalar(hex[Int(byte & 0xF)]))
            }
        }
        return result
    }
}

/// An HTML byte buffer: `raw` for the renderer's own markup, `text` for anything else, escaped
/// for both text content and quoted attribute values.
package struct HTMLWriter {
    package private(set) var bytes: [UInt8] = []

    package init(capacity: Int = 1024) {
        bytes.reserveCapacity(capacity)
    }

    /// Markup the renderer wrote itself (never a template's string).
    package mutating func raw(_ markup: String) {
        bytes.append(contentsOf: markup.utf8)
    }

    package mutating func raw(_ markup: [UInt8]) {
        bytes.append(contentsOf: markup)
    }

    /// Text from anywhere else: `&`, `<`, `>`, `"` and `'` become references, so it can neither
    /// open a tag nor end an attribute value.
    package mutating func text(_ value: String) {
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "&"): bytes.append(contentsOf: "&amp;".utf8)
            case UInt8(ascii: "<"): bytes.append(contentsOf: "&lt;".utf8)
            case UInt8(ascii: ">"): bytes.append(contentsOf: "&gt;".utf8)
            case UInt8(ascii: "\""): bytes.append(contentsOf: "&quot;".utf8)
            case UInt8(ascii: "'"): bytes.append(contentsOf: "&#39;".utf8)
            default: bytes.append(byte)
            }
        }
    }

    /// `value` escaped, as a string.
    package static func escaped(_ value: String) -> String {
        var writer = HTMLWriter(capacity: value.utf8.count + 16)
        writer.text(value)
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}
