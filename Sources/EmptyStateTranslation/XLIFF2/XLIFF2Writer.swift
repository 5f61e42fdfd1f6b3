/// XLIFF 2.0 (OASIS; Crowdin, Phrase): one file per target locale.
///
/// ```xml
/// <xliff xmlns="urn:oasis:names:tc:xliff:document:2.0" version="2.0" srcLang="en" trgLang="fr">
///   <file id="empty-states">
///     <unit id="verifyIdentity.title" name="verifyIdentity/title">
///       <notes><note>title, at most 2 lines (60 columns)</note>…</notes>
///       <segment state="translated">
///         <source>Sign in with <ph id="provider" disp="{provider}" equiv="{provider}"/></source>
///         <target>Connectez-vous avec <ph id="provider" disp="{provider}" equiv="{provider}"/></target>
/// ```
/// - `<unit id>` is `xs:NMTOKEN`, which has no `/`: it is `template.key` (`UnitID.tokenForm`), and
///   `name` (free text) carries `template/key`.
/// - States: `missing` → `initial` (a draft target is kept), `stale` → `initial` with
///   `subState="empty-state:stale"`; the others by name.
/// - When the export was taken goes in the Metadata module at file level
///   (`<mda:meta type="exportedAt">`), the standard place for tool data.
/// - Characters XML cannot hold are `<cp hex="0001"/>`.
/// - A plural string is one ICU MessageFormat message in the source and in the target
///   (`{count, plural, one {{count} result} other {{count} results}}`, `ICUPlural`), the target
///   with the target locale's categories, its placeholders as ICU's `{name}` (text, not `<ph>`:
///   the tools that read ICU in XLIFF 2.0 — Crowdin, Phrase — parse the text).
package enum XLIFF2Writer {
    package static func write(_ document: TranslationDocument) -> [UInt8] {
        var writer = XMLWriter(capacity: 256 + document.units.count * 512)
        var rootAttributes = [("xmlns", XLIFF2.namespace)]
        if document.exportedAt != nil { rootAttributes.append(("xmlns:mda", XLIFF2.metadataNamespace)) }
        rootAttributes += [("version", "2.0"), ("srcLang", document.sourceLocale), ("trgLang", document.targetLocale)]
        writer.open("xliff", rootAttributes, depth: 0)
        writer.open("file", [("id", XLIFF2.fileID)], depth: 1)
        if let exportedAt = document.exportedAt {
            writer.open("mda:metadata", depth: 2)
            writer.open("mda:metaGroup", [("category", XLIFF2.metadataCategory)], depth: 3)
            writer.line("mda:meta", [("type", XLIFF2.exportedAtType)], depth: 4, text: exportedAt)
            writer.close("mda:metaGroup", depth: 3)
            writer.close("mda:metadata", depth: 2)
        }
        for unit in document.units { write(unit, into: &writer) }
        writer.close("file", depth: 1)
        writer.close("xliff", depth: 0)
        return writer.finish()
    }

    private static func write(_ unit: TranslationUnit, into writer: inout XMLWriter) {
        writer.open("unit", [("id", unit.id.tokenForm), ("name", unit.id.description)], depth: 2)
        if !unit.notes.isEmpty {
            writer.open("notes", depth: 3)
            for note in unit.notes { writer.line("note", depth: 4, text: XMLWriter.xmlSafe(note)) }
            writer.close("notes", depth: 3)
        }
        var segment: [(String, String)]
        switch unit.state {
        case .missing: segment = [("state", "initial")]
        case .stale: segment = [("state", "initial"), ("subState", XLIFF2.staleSubState)]
        case .translated, .reviewed, .final: segment = [("state", unit.state.rawValue)]
        }
        writer.open("segment", segment, depth: 3)
        if let sourcePlural = unit.sourcePlural {
            inline("source", ICUPlural.format(sourcePlural), placeholders: false, into: &writer)
            // A translation that is still one text (allowed while the default locale's is a
            // plural) is written as it is, and read back as the same text.
            if let target = unit.targetPlural.map(ICUPlural.format) ?? unit.target {
                inline("target", target, placeholders: false, into: &writer)
            }
        } else {
            inline("source", unit.source ?? "", into: &writer)
            if let target = unit.target { inline("target", target, into: &writer) }
        }
        writer.close("segment", depth: 3)
        writer.close("unit", depth: 2)
    }

    /// - Parameter placeholders: `false` writes `{name}` as text (an ICU message's arguments).
    private static func inline(
        _ element: String,
        _ text: String,
        placeholders: Bool = true,
        into writer: inout XMLWriter
    ) {
        let attributes = XMLWriter.whitespaceMatters(text) ? [("xml:space", "preserve")] : []
        writer.line(element, attributes, depth: 4) { writer in
            var ids = InlineIDs()
            for segment in InlineSegment.segments(of: text) {
                switch segment {
                case .text(let run):
                    writer.text(run)
                case .placeholder(let name) where !placeholders:
                    writer.text("{" + name + "}")
                case .placeholder(let name):
                    let marker = "{" + name + "}"
                    writer.emptyElement("ph", [("id", ids.next(name)), ("disp", marker), ("equiv", marker)])
                case .codePoint(let scalar):
                    writer.emptyElement("cp", [("hex", hex4(scalar))])
                }
            }
        }
    }
}

/// The names XLIFF 2.0 files use, shared by the writer and the reader.
package enum XLIFF2 {
    package static let namespace = "urn:oasis:names:tc:xliff:document:2.0"
    package static let metadataNamespace = "urn:oasis:names:tc:xliff:metadata:2.0"
    package static let fileID = "empty-states"
    package static let metadataCategory = "empty-state-service"
    package static let exportedAtType = "exportedAt"
    /// `subState` values are `prefix:value`; the prefix names who defined the value.
    package static let staleSubState = "empty-state:stale"
}
