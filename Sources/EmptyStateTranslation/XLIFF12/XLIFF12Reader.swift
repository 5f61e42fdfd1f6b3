import CLDRPlurals
import EmptyStateCore

/// Reads an XLIFF 1.2 file back into a document: what `XLIFF12Writer` writes, Xcode's and
/// Lokalise's files, and translate-toolkit's.
///
/// Accepted: the 1.2 namespace or none (older tools), several `<file>`s with the same languages,
/// `<group>`s, `<x>`/`<ph>` placeholders named by `equiv-text`, content or id, `<g>` and `<mrk>`
/// (their text is kept), literal `{name}` braces; `translate="no"` units are skipped. Refused with
/// line and column: another root, an unknown `state` or `approved`, begin/end codes (`<bx>`,
/// `<bpt>`…: copy has no formatting), an id that is not `template/key`, a unit twice.
///
/// A `<group restype="x-gettext-plurals">` (translate-toolkit's plural, `XLIFF12Writer`) is one
/// plural string: each `<trans-unit>` a form, its category its `resname` when that is a CLDR
/// category, else the target locale's category at its position (`[0]` the first). The targets
/// are the forms (a form without one is left out), the state the least advanced of theirs; the
/// source's forms are those of the categories the source locale has too (a gettext group gives
/// the source's form per target category, its `other` where the source has no such category),
/// compared with the store's by the import. A form beyond the locale's categories, a category twice, or no
/// `other` is the unit's `pluralIssue`: the import refuses that string alone.
package enum XLIFF12Reader {
    package static let namespace = "urn:oasis:names:tc:xliff:document:1.2"
    /// `<group restype>` of a plural string.
    package static let pluralGroupType = "x-gettext-plurals"
    /// `<file original>`: required by 1.2; names what was exported.
    package static let original = "empty-states"
    package static let codePointPrefix = "cp-"

    package static func read(
        _ bytes: [UInt8],
        limits: XMLReader.Limits = XMLReader.Limits()
    )
        throws(TranslationFormatError) -> TranslationDocument
    {
        let document = try XMLReader.parse(bytes, limits: limits)
        let root = document.root
        let ns = root.name.namespace
        guard root.name.local == "xliff", ns == namespace || ns.isEmpty else {
            let hint = ns == XLIFF2.namespace ? " (this is XLIFF 2.0)" : ""
            throw document.error(
                at: root.offset,
                "the root element is <\(root.qualifiedName)>\(hint); an XLIFF 1.2 file starts with <xliff version=\"1.2\">"
            )
        }
        guard root.attribute("version") == "1.2" else {
            throw document.error(at: root.offset, "XLIFF version \(root.attribute("version") ?? "(none)") is not 1.2")
        }
        var reader = TransUnitCollector(document: document, namespace: ns)
        var languages: (source: String, target: String)?
        // The plural groups' forms are the target locale's categories, known once a <file> is read.
        var exportedAt: String?
        for file in root.elements where file.name.namespace == ns {
            guard file.name.local == "file" else {
                throw document.error(at: file.offset, "unexpected <\(file.qualifiedName)> in <xliff>")
            }
            let fileLanguages = (
                try locale(file, "source-language", document), try locale(file, "target-language", document)
            )
            if let languages, languages != fileLanguages {
                throw document.error(
                    at: file.offset,
                    "this <file> is \(fileLanguages.0) → \(fileLanguages.1), an earlier one \(languages.source) → \(languages.target); one target language per file"
                )
            }
            languages = fileLanguages
            reader.sourceLocale = fileLanguages.0
            reader.targetLocale = fileLanguages.1
            if exportedAt == nil { exportedAt = file.attribute("date") }
            for part in file.elements where part.name.namespace == ns {
                switch part.name.local {
                case "header": continue
                case "body": try reader.collect(in: part)
                default: throw document.error(at: part.offset, "unexpected <\(part.qualifiedName)> in <file>")
                }
            }
        }
        guard let languages else { throw document.error(at: root.offset, "the file has no <file> element") }
        return TranslationDocument(
            sourceLocale: languages.source,
            targetLocale: languages.target,
            exportedAt: exportedAt,
            units: reader.units
        )
    }

    private static func locale(
        _ file: XMLElement,
        _ attribute: String,
        _ document: XMLDocument
    )
        throws(TranslationFormatError) -> String
    {
        guard let value = file.attribute(attribute) else {
            throw document.error(at: file.offset, "<file> has no \(attribute)")
        }
        guard let tag = LocaleTag(value) else {
            throw document.error(at: file.offset, "\(attribute) \"\(value)\" is not a BCP 47 language tag")
        }
        return tag.description
    }
}

private struct TransUnitCollector {
    let document: XMLDocument
    let namespace: String
    var units: [TranslationUnit] = []
    var ids = UnitIDRegistry()
    var sourceLocale = ""
    var targetLocale = ""

    init(document: XMLDocument, namespace: String) {
        self.document = document
        self.namespace = namespace
    }

    mutating func collect(in container: XMLElement) throws(TranslationFormatError) {
        for child in container.elements where child.name.namespace == namespace {
            switch child.name.local {
            case "trans-unit":
                if let unit = try unit(child) { units.append(unit) }
            case "group" where child.attribute("restype") == XLIFF12Reader.pluralGroupType:
                if let unit = try pluralGroup(child) { units.append(unit) }
            case "group": try collect(in: child)
            case "bin-unit": continue
            default:
                throw document.error(
                    at: child.offset,
                    "unexpected <\(child.qualifiedName)> in <\(container.qualifiedName)>"
                )
            }
        }
    }

    /// A gettext plural group: one unit with a form per `<trans-unit>`.
    private mutating func pluralGroup(_ group: XMLElement) throws(TranslationFormatError) -> TranslationUnit? {
        if group.attribute("translate") == "no" { return nil }
        let forms = group.elements.filter { $0.name == XMLName(namespace, "trans-unit") }
        for child in group.elements where child.name.namespace == namespace {
            guard ["trans-unit", "note", "context-group", "count-group", "prop-group"].contains(child.name.local)
            else {
                throw document.error(at: child.offset, "unexpected <\(child.qualifiedName)> in a plural <group>")
            }
        }
        // The group's id, or (translate-toolkit numbers groups) its first form's without `[0]`.
        let idText =
            group.attribute("id").flatMap { $0.contains("/") ? $0 : nil }
            ?? forms.first?.attribute("id").map { id in String(id.prefix { $0 != "[" }) } ?? ""
        guard let id = UnitID(idText), idText.contains("/") else {
            throw document.error(
                at: group.offset,
                "the plural <group>'s id \"\(idText)\" is not a unit id template/key (e.g. connectionRefused/message)"
            )
        }
        try ids.register(id, at: group, in: document)
        let categories = PluralText.categories(for: targetLocale)
        let sourceCategories = PluralText.categories(for: sourceLocale)
        var notes = group.elements.filter { $0.name == XMLName(namespace, "note") }.map(\.text)
        var sourceForms: [PluralCategory: String] = [:]
        var targetForms: [PluralCategory: String] = [:]
        var seen: Set<PluralCategory> = []
        var state: TranslationState?
        var issue: String?
        for (index, element) in forms.enumerated() {
            guard let form = try unit(element, id: id) else { continue }
            if notes.isEmpty { notes = form.notes }
            let category =
                element.attribute("resname").flatMap { PluralCategory(rawValue: $0) }
                ?? (index < categories.count ? categories[index] : nil)
            guard let category else {
                issue =
                    issue
                    ?? "the plural <group> has \(forms.count) forms, but \(targetLocale) has \(categories.count) (\(categories.map(\.rawValue).joined(separator: ", ")))"
                continue
            }
            if !seen.insert(category).inserted {
                issue = issue ?? "the plural <group> gives the form \(category.rawValue) twice"
            }
            if sourceCategories.contains(category) { sourceForms[category] = form.source }
            // A form without a target, or an empty one (gettext tools write every form), is not
            // given (a plural may lack forms besides `other`); a draft form leaves the whole
            // plural a draft.
            guard let target = form.target, !target.isEmpty else { continue }
            guard form.state != .missing else {
                state = .missing
                continue
            }
            targetForms[category] = target
            state = state.map { Self.leastAdvanced($0, form.state) } ?? form.state
        }
        var unit = TranslationUnit(
            id: id,
            source: sourceForms[.other] ?? sourceForms.values.first,
            target: nil,
            state: .missing,
            notes: notes,
            sourcePlural: sourceForms[.other] == nil ? nil : PluralText(variable: "", forms: sourceForms)
        )
        guard let state, state != .missing, !targetForms.isEmpty else { return unit }
        if targetForms[.other] == nil, issue == nil {
            issue =
                "the plural <group> has no other form: the general form, used for every number without a form of its own"
        }
        unit.state = state
        unit.target = targetForms[.other] ?? targetForms.values.first
        unit.pluralIssue = issue
        if issue == nil { unit.targetPlural = PluralText(variable: "", forms: targetForms) }
        return unit
    }

    /// A draft form leaves the plural a draft; a stale one, stale.
    private static func leastAdvanced(_ lhs: TranslationState, _ rhs: TranslationState) -> TranslationState {
        let order: [TranslationState] = [.missing, .stale, .translated, .reviewed, .final]
        return order.firstIndex(of: lhs)! <= order.firstIndex(of: rhs)! ? lhs : rhs
    }

    private mutating func unit(
        _ element: XMLElement,
        id formOf: UnitID? = nil
    ) throws(TranslationFormatError)
        -> TranslationUnit?
    {
        if element.attribute("translate") == "no" { return nil }
        let id: UnitID
        if let formOf {
            id = formOf
        } else {
            id = try ids.id(
                of: element,
                attribute: "id",
                in: document,
                parse: { $0.contains("/") ? UnitID($0) : nil },
                expected: "template/key (e.g. connectionRefused/title)"
            )
        }
        let approved: Bool
        switch element.attribute("approved") {
        case nil, "no": approved = false
        case "yes": approved = true
        case let other?:
            throw document.error(at: element.offset, unitID: id.description, "approved=\"\(other)\" is not yes or no")
        }
        var source: String?
        var target: (text: String, element: XMLElement)?
        var notes: [String] = []
        for child in element.elements where child.name.namespace == namespace {
            switch child.name.local {
            case "source": source = try inlineText(child, unit: id)
            case "target": target = (try inlineText(child, unit: id), child)
            case "note": notes.append(child.text)
            default: continue  // seg-source, alt-trans, context-group…: not copy
            }
        }
        guard let source else { throw document.error(at: element.offset, unitID: id.description, "no <source>") }
        guard let target else {
            return TranslationUnit(id: id, source: source, target: nil, state: .missing, notes: notes)
        }
        let state: TranslationState
        switch target.element.attribute("state") {
        case nil, "translated": state = approved ? .reviewed : .translated
        case "signed-off": state = .reviewed
        case "final": state = .final
        case "new", "needs-translation", "needs-adaptation", "needs-l10n": state = .missing
        case "needs-review-translation", "needs-review-adaptation", "needs-review-l10n": state = .stale
        case let other?:
            throw document.error(
                at: target.element.offset,
                unitID: id.description,
                "state \"\(other)\" is not an XLIFF 1.2 state this import understands (new, needs-translation, needs-review-translation, translated, signed-off, final)"
            )
        }
        return TranslationUnit(id: id, source: source, target: target.text, state: state, notes: notes)
    }

    private func inlineText(_ element: XMLElement, unit: UnitID) throws(TranslationFormatError) -> String {
        try document.inlineText(of: element, namespace: namespace, unit: unit) {
            (inline) throws(TranslationFormatError) -> String in
            switch inline.name.local {
            case "x", "ph": return try placeholder(inline, unit: unit)
            case "g", "mrk": return try inlineText(inline, unit: unit)
            default: throw document.unsupportedInline(inline, unit: unit)
            }
        }
    }

    /// `{name}` for a placeholder, or the character an `x-codepoint` stands for.
    private func placeholder(_ element: XMLElement, unit: UnitID) throws(TranslationFormatError) -> String {
        let id = element.attribute("id") ?? ""
        if element.attribute("ctype") == "x-codepoint", id.hasPrefix(XLIFF12Reader.codePointPrefix) {
            let hex = id.dropFirst(XLIFF12Reader.codePointPrefix.count).prefix { $0 != "-" }
            guard hex.count <= 6, let value = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(value) else {
                throw document.error(at: element.offset, unitID: unit.description, "\(id) is not a code point")
            }
            return String(Character(scalar))
        }
        for candidate in [element.attribute("equiv-text"), element.name.local == "ph" ? element.text : nil] {
            if let candidate, let name = bracedName(candidate) { return "{" + name + "}" }
        }
        let base = InlineIDs.base(of: id)
        if CopyRules.isPlaceholderName(Substring(base)) { return "{" + base + "}" }
        throw document.error(
            at: element.offset,
            unitID: unit.description,
            "<\(element.qualifiedName)> does not name a placeholder (equiv-text=\"{name}\" or id=\"name\")"
        )
    }
}
