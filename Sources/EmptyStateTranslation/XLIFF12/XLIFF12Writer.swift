/// XLIFF 1.2 in the shape Xcode's export and Lokalise use: one `<file>`, a `<trans-unit>` per
/// string with its `template/key` id, `<source>`, `<target state>`, then the `<note>`s.
///
/// - States: `translated` → `translated`; `reviewed` → `signed-off` and `final` → `final`, both
///   with `approved="yes"` (translate-toolkit reads a unit without it as fuzzy); `stale` →
///   `needs-review-translation`; `missing` writes no target, or a draft as `needs-translation`.
/// - Placeholders are `<x id="provider" equiv-text="{provider}"/>`; a character XML cannot hold
///   is `<x id="cp-0001" ctype="x-codepoint"/>`.
/// - `xml:space="preserve"` on the unit when its whitespace matters (as translate-toolkit puts it).
/// - When the export was taken: the file's `date`.
package enum XLIFF12Writer {
    package static func write(_ document: TranslationDocument) -> [UInt8] {
        var writer = XMLWriter(capacity: 256 + document.units.count * 448)
        writer.open("xliff", [("xmlns", XLIFF12Reader.namespace), ("version", "1.2")], depth: 0)
        var file = [
            ("original", XLIFF12Reader.original), ("source-language", document.sourceLocale),
            ("target-language", document.targetLocale), ("datatype", "plaintext"),
        ]
        if let exportedAt = document.exportedAt { file.append(("date", exportedAt)) }
        writer.open("file", file, depth: 1)
        writer.open("body", depth: 2)
        for unit in document.units { write(unit, into: &writer) }
        writer.close("body", depth: 2)
        writer.close("file", depth: 1)
        writer.close("xliff", depth: 0)
        return writer.finish()
    }

    private static func write(_ unit: TranslationUnit, into writer: inout XMLWriter) {
        var attributes = [("id", unit.id.description)]
        if unit.state == .reviewed || unit.state == .final { attributes.append(("approved", "yes")) }
        if XMLWriter.whitespaceMatters(unit.source ?? "") || unit.target.map(XMLWriter.whitespaceMatters) == true {
            attributes.append(("xml:space", "preserve"))
        }
        writer.open("trans-unit", attributes, depth: 3)
        inline("source", [], unit.source ?? "", into: &writer)
        if let target = unit.target {
            let state: String
            switch unit.state {
            case .missing: state = "needs-translation"
            case .translated: state = "translated"
            case .reviewed: state = "signed-off"
            case .final: state = "final"
            case .stale: state = "needs-review-translation"
            }
            inline("target", [("state", state)], target, into: &writer)
        }
        for note in unit.notes { writer.line("note", depth: 4, text: XMLWriter.xmlSafe(note)) }
        writer.close("trans-unit", depth: 3)
    }

    private static func inline(
        _ element: String,
        _ attributes: [(String, String)],
        _ text: String,
        into writer: inout XMLWriter
    ) {
        writer.line(element, attributes, depth: 4) { writer in
            var ids = InlineIDs()
            for segment in InlineSegment.segments(of: text) {
                switch segment {
                case .text(let run):
                    writer.text(run)
                case .placeholder(let name):
                    writer.emptyElement("x", [("id", ids.next(name)), ("equiv-text", "{" + name + "}")])
                case .codePoint(let scalar):
                    writer.emptyElement(
                        "x",
                        [("id", ids.next(XLIFF12Reader.codePointPrefix + hex4(scalar))), ("ctype", "x-codepoint")]
                    )
                }
            }
        }
    }
}
