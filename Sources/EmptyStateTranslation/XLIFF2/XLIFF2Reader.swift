import EmptyStateCore

/// Reads an XLIFF 2.0 file (2.0 or 2.1) back into a document: what `XLIFF2Writer` writes, and
/// what translation tools make of it.
///
/// Tolerated as tools write them: groups, several `<file>`s, several segments and
/// `<ignorable>`s in a unit (joined in order; the unit's state is the least advanced segment's),
/// `<mrk>` annotations (their text is kept), module and extension elements (skipped), `<ph>`
/// naming its placeholder by `disp`, `equiv` or `id`, and literal `{name}` braces in text.
/// Refused with the line and column: another root, an unknown state, a translated segment
/// without a target, formatting codes (`<pc>`, `<sc>`, `<ec>`: copy has no formatting), a unit
/// id that is not `template.key` (or `template/key`), a unit twice.
package enum XLIFF2Reader {
    package static func read(
        _ bytes: [UInt8],
        limits: XMLReader.Limits = XMLReader.Limits()
    )
        throws(TranslationFormatError) -> TranslationDocument
    {
        let document = try XMLReader.parse(bytes, limits: limits)
        let root = document.root
        guard root.name == XMLName(XLIFF2.namespace, "xliff") else {
            let hint =
                root.name.namespace == XLIFF12Reader.namespace || root.attribute("version") == "1.2"
                ? " (this is XLIFF 1.2)" : ""
            throw document.error(
                at: root.offset,
                "the root element is <\(root.qualifiedName)>\(hint); an XLIFF 2.0 file starts with <xliff xmlns=\"\(XLIFF2.namespace)\">"
            )
        }
        guard let version = root.attribute("version"), version == "2.0" || version == "2.1" else {
            throw document.error(
                at: root.offset,
                "XLIFF version \(root.attribute("version") ?? "(none)") is not 2.0 or 2.1"
            )
        }
        let sourceLocale = try locale(root.attribute("srcLang"), "srcLang", root, document)
        let targetLocale = try locale(root.attribute("trgLang"), "trgLang", root, document)

        var reader = UnitCollector(document: document)
        for child in root.elements {
            guard child.name.namespace == XLIFF2.namespace else { continue }
            guard child.name.local == "file" else {
                throw document.error(at: child.offset, "unexpected <\(child.qualifiedName)> in <xliff>")
            }
            if reader.exportedAt == nil { reader.exportedAt = exportedAt(in: child) }
            try reader.collect(in: child)
        }
        return TranslationDocument(
            sourceLocale: sourceLocale,
            targetLocale: targetLocale,
            exportedAt: reader.exportedAt,
            units: reader.units
        )
    }

    private static func locale(
        _ value: String?,
        _ attribute: String,
        _ root: XMLElement,
        _ document: XMLDocument
    )
        throws(TranslationFormatError) -> String
    {
        guard let value else { throw document.error(at: root.offset, "<xliff> has no \(attribute)") }
        guard let tag = LocaleTag(value) else {
            throw document.error(at: root.offset, "\(attribute) \"\(value)\" is not a BCP 47 language tag")
        }
        return tag.description
    }

    /// `<mda:metadata><mda:metaGroup category="empty-state-service"><mda:meta type="exportedAt">`.
    private static func exportedAt(in file: XMLElement) -> String? {
        for metadata in file.elements where metadata.name == XMLName(XLIFF2.metadataNamespace, "metadata") {
            for group in metadata.elements where group.attribute("category") == XLIFF2.metadataCategory {
                for meta in group.elements where meta.attribute("type") == XLIFF2.exportedAtType {
                    return meta.text
                }
            }
        }
        return nil
    }
}

/// Walks files and groups, turning each `<unit>` into a translation unit.
private struct UnitCollector {
    let document: XMLDocument
    var exportedAt: String?
    var units: [TranslationUnit] = []
    var ids = UnitIDRegistry()

    init(document: XMLDocument) {
        self.document = document
    }

    mutating func collect(in container: XMLElement) throws(TranslationFormatError) {
        for child in container.elements where child.name.namespace == XLIFF2.namespace {
            switch child.name.local {
            case "unit": units.append(try unit(child))
            case "group": try collect(in: child)
            case "notes", "skeleton": continue
            default:
                throw document.error(
                    at: child.offset,
                    "unexpected <\(child.qualifiedName)> in <\(container.qualifiedName)>"
                )
            }
        }
    }

    private mutating func unit(_ element: XMLElement) throws(TranslationFormatError) -> TranslationUnit {
        let id = try ids.id(
            of: element,
            attribute: "id",
            in: document,
            parse: UnitID.init,
            expected: "template.key (e.g. connectionRefused.title)"
        )
        var notes: [String] = []
        var source = ""
        var target = ""
        var segments = 0
        var targets = 0
        var state: TranslationState?
        for child in element.elements where child.name.namespace == XLIFF2.namespace {
            switch child.name.local {
            case "notes":
                for note in child.elements where note.name == XMLName(XLIFF2.namespace, "note") {
                    notes.append(note.text)
                }
            case "originalData":
                continue
            case "segment", "ignorable":
                var partSource = ""
                var partTarget: String?
                for part in child.elements where part.name.namespace == XLIFF2.namespace {
                    switch part.name.local {
                    case "source": partSource += try inlineText(part, unit: id)
                    case "target": partTarget = (partTarget ?? "") + (try inlineText(part, unit: id))
                    default:
                        throw document.error(
                            at: part.offset,
                            unitID: id.description,
                            "unexpected <\(part.qualifiedName)>"
                        )
                    }
                }
                source += partSource
                guard child.name.local == "segment" else {
                    // Whitespace or markup between segments: the target keeps the source's unless it has its own.
                    target += partTarget ?? partSource
                    continue
                }
                target += partTarget ?? ""
                segments += 1
                if partTarget != nil { targets += 1 }
                let segmentState = try self.state(of: child, hasTarget: partTarget != nil, unit: id)
                state = state.map { Self.leastAdvanced($0, segmentState) } ?? segmentState
            default:
                throw document.error(at: child.offset, unitID: id.description, "unexpected <\(child.qualifiedName)>")
            }
        }
        guard segments > 0, let state else {
            throw document.error(at: element.offset, unitID: id.description, "the unit has no <segment>")
        }
        // A target in some segments only is an unfinished translation.
        let complete = targets == segments
        var unit = TranslationUnit(
            id: id,
            source: source,
            target: complete ? target : nil,
            state: complete ? state : .missing,
            notes: notes
        )
        // An ICU plural in the source or the target: its forms, its text its `other` form. One
        // that cannot be read is the unit's `pluralIssue`, refused by the import on its own.
        if ICUPlural.isPlural(source) {
            do throws(ICUPluralError) {
                let plural = try ICUPlural.parse(source)
                unit.sourcePlural = plural
                unit.source = plural.other
            } catch {
                unit.pluralIssue = "the source's ICU plural cannot be read: \(error.message)"
            }
        }
        if let target = unit.target, ICUPlural.isPlural(target) {
            do throws(ICUPluralError) {
                let plural = try ICUPlural.parse(target)
                unit.targetPlural = plural
                unit.target = plural.other
            } catch {
                unit.pluralIssue = unit.pluralIssue ?? "the target's ICU plural cannot be read: \(error.message)"
            }
        }
        return unit
    }

    private func state(
        of segment: XMLElement,
        hasTarget: Bool,
        unit: UnitID
    ) throws(TranslationFormatError)
        -> TranslationState
    {
        let value = segment.attribute("state") ?? "initial"
        switch value {
        case "initial":
            return segment.attribute("subState") == XLIFF2.staleSubState && hasTarget ? .stale : .missing
        case "translated", "reviewed", "final":
            guard hasTarget else {
                throw document.error(
                    at: segment.offset,
                    unitID: unit.description,
                    "the segment is \(value) but has no <target>"
                )
            }
            return TranslationState(rawValue: value)!
        default:
            throw document.error(
                at: segment.offset,
                unitID: unit.description,
                "state \"\(value)\" is not one of initial, translated, reviewed, final"
            )
        }
    }

    private static let progress: [TranslationState] = [.missing, .stale, .translated, .reviewed, .final]

    private static func leastAdvanced(_ a: TranslationState, _ b: TranslationState) -> TranslationState {
        progress.firstIndex(of: a)! <= progress.firstIndex(of: b)! ? a : b
    }

    /// The text of a `<source>` or `<target>`, placeholders as `{name}`.
    private func inlineText(_ element: XMLElement, unit: UnitID) throws(TranslationFormatError) -> String {
        try document.inlineText(of: element, namespace: XLIFF2.namespace, unit: unit) {
            (inline) throws(TranslationFormatError) -> String in
            switch inline.name.local {
            case "ph":
                return "{" + (try placeholderName(inline, unit: unit)) + "}"
            case "cp":
                guard let hex = inline.attribute("hex"), hex.count <= 6, let value = UInt32(hex, radix: 16),
                    let scalar = Unicode.Scalar(value)
                else {
                    throw document.error(at: inline.offset, unitID: unit.description, "<cp> needs a hex code point")
                }
                return String(Character(scalar))
            case "mrk":
                return try inlineText(inline, unit: unit)
            default:
                throw document.unsupportedInline(inline, unit: unit)
            }
        }
    }

    private func placeholderName(_ ph: XMLElement, unit: UnitID) throws(TranslationFormatError) -> String {
        for candidate in [ph.attribute("disp"), ph.attribute("equiv")] {
            if let candidate, let name = bracedName(candidate) { return name }
        }
        if let id = ph.attribute("id"), CopyRules.isPlaceholderName(Substring(InlineIDs.base(of: id))) {
            return InlineIDs.base(of: id)
        }
        throw document.error(
            at: ph.offset,
            unitID: unit.description,
            "<ph> does not name a placeholder (disp=\"{name}\", equiv=\"{name}\" or id=\"name\")"
        )
    }
}

/// `provider` from `{provider}`, when it is a valid placeholder name.
package func bracedName(_ text: String) -> String? {
    guard text.hasPrefix("{"), text.hasSuffix("}"), text.count > 2 else { return nil }
    let name = text.dropFirst().dropLast()
    return CopyRules.isPlaceholderName(name) ? String(name) : nil
}
