import EmptyStateCore
import Foundation
import Testing

@testable import EmptyStateWeb

@Suite("Icon set")
struct IconSetTests {
    @Test("the whole Lucide set is compiled in, sorted, each name once")
    func wholeSet() {
        let icons = IconSet.lucide
        #expect(icons.count == 1745)
        #expect(icons.names == icons.names.sorted())
        #expect(Set(icons.names).count == icons.count)
    }

    @Test("every web icon of the built-in catalogue is in the set")
    func builtinsResolve() throws {
        let catalogue = try CatalogueLoader.load(directory: Fixtures.templatesDirectory)
        for template in catalogue.templates {
            guard case .icon(let symbols) = template.visual else { continue }
            #expect(IconSet.lucide.contains(symbols[.web]!), "\(template.id): \(symbols[.web]!)")
        }
    }

    @Test("an icon is inline SVG that is hidden from assistive technology, in currentColor, and inert")
    func svgMarkup() throws {
        let svg = try #require(IconSet.lucide.svg(named: "wifi-off"))
        #expect(svg.hasPrefix("<svg xmlns=\"http://www.w3.org/2000/svg\""))
        #expect(svg.hasSuffix("</svg>"))
        #expect(svg.contains(#"aria-hidden="true""#))
        #expect(svg.contains(#"focusable="false""#))
        #expect(svg.contains(#"stroke="currentColor""#))
        #expect(svg.contains("<path d=\"m2 2 20 20\"/>"))
        #expect(IconSet.lucide.svg(named: "no-such-icon") == nil)
    }

    @Test("no icon carries anything but drawing: no script, title, style, link or event attribute")
    func nothingButDrawing() {
        let forbidden = [
            "<script", "<title", "style=", "href", "<a", "<image", "<use", "<foreign", "url(", "javascript",
        ]
        for name in IconSet.lucide.names {
            let svg = IconSet.lucide.svg(named: name)!
            for word in forbidden { #expect(!svg.contains(word), "\(name) contains \(word)") }
            #expect(!svg.contains(" on"), "\(name) has an event attribute")
        }
    }

    @Test("search: every word must match, names that start with the first word first")
    func search() {
        let icons = IconSet.lucide
        #expect(icons.search("wifi").first == "wifi")
        #expect(icons.search("wifi off").contains("wifi-off"))
        #expect(icons.search("WIFI").allSatisfy { $0.contains("wifi") })
        #expect(icons.search("zzzz").isEmpty)
        #expect(icons.search("", limit: 5) == Array(icons.names.prefix(5)))
        #expect(icons.search("arrow", limit: 3).count == 3)
    }

    @Test("the parser skips comments and malformed lines")
    func parsing() {
        let set = IconSet(parsing: Array("# header\nb\t<path d=\"M1 1\"/>\nbroken line\na\t<circle r=\"1\"/>\n".utf8))
        #expect(set.names == ["a", "b"])
        #expect(set.svg(named: "a") == IconSet.svgOpen + "<circle r=\"1\"/>" + IconSet.svgClose)
    }
}

/// Paths of the repository the tests run from.
enum Fixtures {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let templatesDirectory = root.appendingPathComponent("config/templates").path
}
