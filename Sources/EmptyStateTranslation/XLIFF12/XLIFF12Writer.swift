import EmptyStateCore

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
/// - A plural string is a gettext plural group, as translate-toolkit's `po2xliff` writes and its
///   `poxliff` reads (Weblate, Pootle): `<group id="template/key" restype="x-gettext-plurals">`,
///   its notes, then a `<trans-unit id="template/key[0]" resname="one">` per CLDR category of the
///   target locale in CLDR's order (`resname` names the category, the index is its position),
///   each with the source's form of that category (its `other` where the source locale has no
///   such category) and the target's form.
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
        for unit in document.units { write(unit, targetLocale: document.targetLocale, into: &writer) }
        writer.close("body", depth: 2)
        writer.close("file", depth: 1)
        writer.close("xliff", depth: 0)
        return writer.finish()
    }

    private static func write(_ unit: TranslationUnit, targetLocale: String, into writer: inout XMLWriter) {
        guard let sourcePlural = unit.sourcePlural else {
            write(unit, id: unit.id.description, into: &writer, depth: 3)
            return
        }
        writer.open(
            "group",
            [("id", unit.id.description), ("restype", XLIFF12Reader.pluralGroupType)],
            depth: 3
        )
        for note in unit.notes { writer.line("note", depth: 4, text: XMLWriter.xmlSafe(note)) }
        for (index, category) in PluralText.categories(for: targetLocale).enumerated() {
            var form = unit
            form.source = sourcePlural.forms[category] ?? sourcePlural.other
            // A translation still one text (its source became a plural) gives every form.
            form.target = unit.target.map { unit.targetPlural?.forms[category] ?? (unit.targetPlural == nil ? $0 : "") }
            if form.target?.isEmpty == true { form.target = nil }
            form.notes = []
            write(form, id: unit.id.description + "[\(index)]", resname: category.rawValue, into: &writer, depth: 4)
        }
        writer.close("group", depth: 3)
    }

    private static func write(
        _ unit: TranslationUnit,
        id: String,
        resname: String? = nil,
        into writer: inout XMLWriter,
        depth: Int
    ) {
        var attributes = [("id", id)]
        if let resname { attributes.append(("resname", resname)) }
        if unit.state == .reviewed || unit.state == .final { attributes.append(("approved", "yes")) }
        if XMLWriter.whitespaceMatters(unit.source ?? "") || unit.target.map(XMLWriter.whitespaceMatters) == true {
            attributes.append(("xml:space", "preserve"))
        }
        writer.open("trans-unit", attributes, depth: depth)
        inline("source", [], unit.source ?? "", depth: depth + 1, into: &writer)
        if let target = unit.target {
            let state: String
            switch unit.state {
            case .missing: state = "needs-translation"
            case .translated: state = "translated"
            case .reviewed: state = "signed-off"
            case .final: state = "final"
            case .stale: state = "needs-review-translation"
            }
            inline("target", [("state", state)], target, depth: depth + 1, into: &writer)
        }
        for note in unit.notes { writer.line("note", depth: depth + 1, text: XMLWriter.xmlSafe(note)) }
        writer.close("trans-unit", depth: depth)
    }

    private static func inline(
        _ element: String,
        _ attributes: [(String, String)],
        _ text: String,
        depth: Int,
        into writer: inout XMLWriter
    ) {
        writer.line(element, attributes, depth: depth) { writer in
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
