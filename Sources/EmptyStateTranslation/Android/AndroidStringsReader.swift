import CLDRPlurals
import EmptyStateCore

/// Reads Android `strings.xml` files back into a document.
///
/// A locale file is read on its own (its header comment names the locales and the export time;
/// its placeholders are named by their `<xliff:g id>`). Given the `values/strings.xml` it was
/// translated from, the units also get their source text, the strings the locale lacks come
/// back `missing`, and a bare `%2$s` is named from the source's placeholders. Refused with line
/// and column: another root, a `<string>` whose name is not a unit id, one twice, styled text
/// (`<b>`…: copy has no formatting), arrays, the escapes aapt2 rejects (a bare apostrophe, a
/// bad `\u`) and those it would silently change (`\r`, an unescaped leading `@`). A string
/// right below `staleMarker` reads back `stale`.
///
/// A `<plurals>` is a plural string: its `<item quantity>`s are its forms (read as format
/// strings, as `getQuantityString` reads them). A quantity that is no CLDR category, one given
/// twice, or no `other` is the unit's `pluralIssue`: the import refuses that string alone.
package enum AndroidStringsReader {
    /// The first word of the header comment `AndroidStringsWriter` writes.
    package static let headerMarker = "empty-state-service"
    /// The comment right above a stale translation in a locale file: read back as that string's
    /// state (`stale`), not as a note.
    package static let staleMarker = "needs review: its source changed after this translation was written"

    /// - Parameters:
    ///   - bytes: the locale's `strings.xml`.
    ///   - locale: its locale, from its folder (`AndroidLocaleFolder.locale(forFolder:)`); when
    ///     `nil`, the header comment's `targetLocale`.
    ///   - source: the `values/strings.xml` it was translated from, when at hand.
    ///   - sourceLocale: when the header comment does not name it.
    ///   - placeholderNames: names in positional order for a unit whose target has a bare `%1$s`
    ///     (an import passes the store's: `AndroidEscaping.placeholderOrder`).
    package static func read(
        _ bytes: [UInt8],
        locale: String? = nil,
        source: [UInt8]? = nil,
        sourceLocale: String? = nil,
        placeholderNames: (UnitID) -> [String]? = { _ in nil },
        limits: XMLReader.Limits = XMLReader.Limits()
    ) throws(TranslationFormatError) -> TranslationDocument {
        let sourceFile = try source.map { bytes throws(TranslationFormatError) in
            try parse(bytes, limits: limits) { id in placeholderNames(id) }
        }
        let sourceTexts = Dictionary(
            (sourceFile?.strings ?? []).map { ($0.id, $0.text) },
            uniquingKeysWith: { first, _ in first }
        )
        let targetFile = try parse(bytes, limits: limits) { id in
            if let names = placeholderNames(id) { return names }
            return sourceTexts[id].map { AndroidEscaping.placeholderOrder(source: $0, target: nil) }
        }

        let header = targetFile.header
        let headerLocale = header["targetLocale"].flatMap { LocaleTag($0)?.description }
        if let locale, let headerLocale, LocaleTag(locale)?.description != headerLocale {
            throw TranslationFormatError(
                at: targetFile.headerOffset,
                in: bytes,
                "the file says it is \(headerLocale), but its folder is for \(locale)"
            )
        }
        guard let targetLocale = locale.flatMap({ LocaleTag($0)?.description }) ?? headerLocale else {
            throw TranslationFormatError(
                line: nil,
                column: nil,
                message: "the file's locale is unknown: give its folder (values-fr) or keep its header comment"
            )
        }
        let sourceHeader = header["sourceLocale"] ?? sourceFile?.header["sourceLocale"] ?? sourceLocale
        guard let sourceTag = sourceHeader.flatMap({ LocaleTag($0)?.description }) else {
            throw TranslationFormatError(
                line: nil,
                column: nil,
                message: "the source locale is unknown: keep the header comment or name it"
            )
        }

        func unit(source: Resource?, target: Resource?) -> TranslationUnit {
            let id = (source ?? target)!.id
            var unit = TranslationUnit(
                id: id,
                source: source?.text,
                target: target?.text,
                state: target == nil ? .missing : target!.stale ? .stale : .translated,
                // A tool that rewrote the locale file may have dropped its comments.
                notes: target.map { $0.notes.isEmpty ? (source?.notes ?? []) : $0.notes } ?? source?.notes ?? [],
                sourcePlural: source?.plural,
                targetPlural: target?.plural
            )
            unit.pluralIssue = target?.pluralIssue ?? source?.pluralIssue
            return unit
        }
        var units: [TranslationUnit] = []
        if let sourceFile {
            let targets = Dictionary(targetFile.strings.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
            for entry in sourceFile.strings { units.append(unit(source: entry, target: targets[entry.id])) }
            let known = Set(sourceFile.strings.map(\.id))
            for entry in targetFile.strings where !known.contains(entry.id) {
                units.append(unit(source: nil, target: entry))
            }
        } else {
            units = targetFile.strings.map { unit(source: nil, target: $0) }
        }
        return TranslationDocument(
            sourceLocale: sourceTag,
            targetLocale: targetLocale,
            exportedAt: header["exportedAt"] ?? sourceFile?.header["exportedAt"],
            units: units
        )
    }

    private struct File {
        var header: [String: String] = [:]
        var headerOffset = 0
        var strings: [Resource] = []
    }

    /// A `<string>`, or a `<plurals>` (`text` is then its `other` item).
    private struct Resource {
        var id: UnitID
        var text: String
        var notes: [String]
        /// The stale marker was right above it.
        var stale: Bool
        /// A `<plurals>`' forms; the number's placeholder is left empty (the file does not name
        /// it: the import takes the template's).
        var plural: PluralText? = nil
        var pluralIssue: String? = nil
    }

    private static func parse(
        _ bytes: [UInt8],
        limits: XMLReader.Limits,
        names: (UnitID) -> [String]?
    ) throws(TranslationFormatError) -> File {
        let document = try XMLReader.parse(bytes, limits: limits)
        let root = document.root
        guard root.name == XMLName("", "resources") else {
            throw document.error(
                at: root.offset,
                "the root element is <\(root.qualifiedName)>; an Android strings file starts with <resources>"
            )
        }
        var file = File()
        var ids = UnitIDRegistry()
        var notes: [String] = []
        var stale = false
        for child in root.children {
            switch child {
            case .text(let text, let offset):
                guard text.allSatisfy(\.isWhitespace) else {
                    throw document.error(at: offset, "text outside a <string> element")
                }
            case .comment(let text, let offset):
                let comment = trimmedComment(text)
                if file.strings.isEmpty, notes.isEmpty, comment.hasPrefix(headerMarker + " ") {
                    file.header = headerFields(comment)
                    file.headerOffset = offset
                } else if comment == staleMarker {
                    stale = true
                } else {
                    notes.append(comment)
                }
            case .element(let element):
                guard element.name == XMLName("", "string") || element.name == XMLName("", "plurals") else {
                    throw document.error(
                        at: element.offset,
                        "<\(element.qualifiedName)> is not supported: only <string> and <plurals> (the copy has no arrays)"
                    )
                }
                let id = try ids.id(
                    of: element,
                    attribute: "name",
                    in: document,
                    parse: AndroidResourceName.unitID(forName:),
                    expected: "a unit id (template__key, e.g. connectionRefused__actions_retry)"
                )
                let formatted: Bool
                switch element.attribute("formatted") {
                case nil, "true": formatted = true
                case "false": formatted = false
                case let other?:
                    throw document.error(
                        at: element.offset,
                        unitID: id.description,
                        "formatted=\"\(other)\" is not true or false"
                    )
                }
                if element.attribute("translatable") == "false" {
                    notes = []
                    stale = false
                    continue
                }
                if element.name.local == "plurals" {
                    var resource = try plural(element, id: id, document: document, names: names(id))
                    resource.notes = notes
                    resource.stale = stale
                    file.strings.append(resource)
                    notes = []
                    stale = false
                    continue
                }
                let pieces = try pieces(of: element, document: document, unit: id)
                let text: String
                do {
                    text = try AndroidEscaping.decode(pieces, formatted: formatted, names: names(id))
                } catch {
                    throw document.error(at: error.offset, unitID: id.description, error.message)
                }
                file.strings.append(Resource(id: id, text: text, notes: notes, stale: stale))
                notes = []
                stale = false
            }
        }
        return file
    }

    /// A `<plurals>`: each `<item quantity>` decoded as a format string.
    private static func plural(
        _ element: XMLElement,
        id: UnitID,
        document: XMLDocument,
        names: [String]?
    ) throws(TranslationFormatError) -> Resource {
        var forms: [PluralCategory: String] = [:]
        var issue: String?
        for child in element.children {
            switch child {
            case .text(let text, let offset):
                guard text.allSatisfy(\.isWhitespace) else {
                    throw document.error(at: offset, unitID: id.description, "text outside an <item> of <plurals>")
                }
            case .comment:
                continue
            case .element(let item):
                guard item.name == XMLName("", "item") else {
                    throw document.error(
                        at: item.offset,
                        unitID: id.description,
                        "<\(item.qualifiedName)> is not supported in <plurals>: only <item quantity>"
                    )
                }
                let quantity = item.attribute("quantity") ?? ""
                let itemPieces = try pieces(of: item, document: document, unit: id)
                let text: String
                do {
                    text = try AndroidEscaping.decode(itemPieces, formatted: true, names: names)
                } catch {
                    throw document.error(at: error.offset, unitID: id.description, error.message)
                }
                guard let category = PluralCategory(rawValue: quantity) else {
                    issue =
                        issue
                        ?? "<item quantity=\"\(quantity)\"> is not a plural category (zero, one, two, few, many, other)"
                    continue
                }
                if forms[category] != nil { issue = issue ?? "<item quantity=\"\(quantity)\"> is given twice" }
                forms[category] = text
            }
        }
        if forms[.other] == nil {
            issue =
                issue
                ?? "<plurals> has no <item quantity=\"other\">: the general form, used for every number without a form of its own"
        }
        return Resource(
            id: id,
            text: forms[.other] ?? "",
            notes: [],
            stale: false,
            plural: issue == nil ? PluralText(variable: "", forms: forms) : nil,
            pluralIssue: issue
        )
    }

    /// The text and `<xliff:g>` pieces of a `<string>`.
    private static func pieces(
        of element: XMLElement,
        document: XMLDocument,
        unit: UnitID
    )
        throws(TranslationFormatError) -> [AndroidEscaping.Piece]
    {
        var pieces: [AndroidEscaping.Piece] = []
        for child in element.children {
            switch child {
            case .text(let text, let offset):
                pieces.append(AndroidEscaping.Piece(text: text, group: nil, offset: offset))
            case .comment:
                continue
            case .element(let inline):
                guard inline.name == XMLName(XLIFF12Reader.namespace, "g") else {
                    throw document.error(
                        at: inline.offset,
                        unitID: unit.description,
                        "<\(inline.qualifiedName)> is not supported: copy has no formatting, only placeholders in <xliff:g>"
                    )
                }
                guard inline.elements.isEmpty else {
                    throw document.error(at: inline.offset, unitID: unit.description, "<xliff:g> holds text only")
                }
                pieces.append(
                    AndroidEscaping.Piece(text: inline.text, group: inline.attribute("id") ?? "", offset: inline.offset)
                )
            }
        }
        return pieces
    }

    /// The comment's text without the one space on each side the writer puts.
    private static func trimmedComment(_ text: String) -> String {
        var text = Substring(text)
        if text.hasPrefix(" ") { text = text.dropFirst() }
        if text.hasSuffix(" ") { text = text.dropLast() }
        return String(text)
    }

    /// `empty-state-service sourceLocale=en targetLocale=fr exportedAt=…` → its fields.
    private static func headerFields(_ comment: String) -> [String: String] {
        var fields: [String: String] = [:]
        for word in comment.split(separator: " ").dropFirst() {
            guard let equals = word.firstIndex(of: "=") else { continue }
            fields[String(word[..<equals])] = String(word[word.index(after: equals)...])
        }
        return fields
    }
}
