import CAssets
import EmptyStateCore

/// The icons the service can draw on the web: Lucide's set (ISC licence, see NOTICE), sanitized
/// by `Tools/icons/generate.py` and compiled into the binary (`CAssets_lucideIcons`).
///
/// A template names its web icon; the service writes the SVG. Editors never send SVG text: inline
/// SVG from a writer would be stored XSS on every page that shows the template. A write whose
/// web icon is not in the set is refused (`contains(_:)`).
package struct IconSet: IconDrawing {
    /// The root every icon is drawn in: Lucide's 24-unit grid and stroke, sized to the 64 x 64
    /// icon slot, hidden from assistive technology (the heading carries the meaning) and out of
    /// the tab order (`focusable` is for old Edge and IE, which focused SVGs).
    package static let svgOpen =
        #"<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64" viewBox="0 0 24 24" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" aria-hidden="true" focusable="false">"#
    package static let svgClose = "</svg>"

    /// Icon names in order.
    package let names: [String]
    /// Name → the markup inside the root `<svg>`.
    private let shapes: [String: String]

    /// The built-in set, parsed once.
    package static let lucide: IconSet = {
        var count = 0
        let pointer = CAssets_lucideIcons(&count)
        return IconSet(parsing: Array(UnsafeBufferPointer(start: pointer, count: count)))
    }()

    /// Reads the generated format: `#` comment lines, then `name<TAB>inner markup` lines.
    package init(parsing bytes: [UInt8]) {
        var names: [String] = []
        var shapes: [String: String] = [:]
        for line in bytes.split(separator: UInt8(ascii: "\n")) where line.first != UInt8(ascii: "#") {
            guard let tab = line.firstIndex(of: UInt8(ascii: "\t")) else { continue }
            let name = String(decoding: line[line.startIndex..<tab], as: UTF8.self)
            names.append(name)
            shapes[name] = String(decoding: line[(tab + 1)...], as: UTF8.self)
        }
        self.names = names.sorted()
        self.shapes = shapes
    }

    package var count: Int { names.count }

    package func contains(_ name: String) -> Bool { shapes[name] != nil }

    /// The icon as inline SVG markup, `nil` when the set has no such icon.
    package func svg(named name: String) -> String? {
        shapes[name].map { Self.svgOpen + $0 + Self.svgClose }
    }

    /// Names that contain every word of `query` (case-insensitive; words split on spaces and
    /// hyphens), those that start with the first word first, each group in name order.
    /// An empty query lists every name.
    package func search(_ query: String, limit: Int = .max) -> [String] {
        let words = query.lowercased().split { $0 == " " || $0 == "-" || $0 == "+" }.map(String.init)
        guard let first = words.first else { return Array(names.prefix(limit)) }
        var leading: [String] = []
        var others: [String] = []
        for name in names where words.allSatisfy({ name.contains($0) }) {
            if name.hasPrefix(first) { leading.append(name) } else { others.append(name) }
        }
        return Array((leading + others).prefix(limit))
    }
}
