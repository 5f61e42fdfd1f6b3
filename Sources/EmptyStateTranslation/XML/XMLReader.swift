// One job in one file: a recursive-descent XML 1.0 reader over one cursor (`bytes`, `index`,
// `depth`, the namespace `scopes`). Its sections (characters, scanning, prolog, markup, elements)
// all move that cursor through the same private helpers (`peek`, `expect`, `readName`, `error`);
// split by section, the cursor and helpers would have to become internal to the whole module
// instead of private to the reader, and the guarantees below (no DTD, only predefined entities,
// caps checked before the work they bound) could no longer be checked by reading one file.

/// A strict XML 1.0 reader for the translation files an import receives, safe on hostile input.
///
/// Written here rather than Foundation's `XMLParser` so that its guarantees hold by construction
/// on every platform instead of depending on how libxml2 is configured:
/// - **No DTD at all.** A `<!DOCTYPE` is refused where it starts, so no entity can be declared:
///   no expansion ("billion laughs"), no external entity, nothing fetched or opened.
/// - Only the five predefined entities and character references are known; any other `&name;`
///   is an error, never passed through.
/// - Caps on size, nesting depth, attributes per element and name length, checked before the
///   work they bound.
/// - UTF-8 only (a byte-order mark is accepted); malformed UTF-8 and characters XML 1.0 forbids
///   are errors, with their line and column.
/// - CR LF and lone CR become LF, as XML requires; text is otherwise kept scalar for scalar (no
///   Unicode normalization).
///
/// Namespaces are resolved (`xmlns`, `xmlns:p`, the fixed `xml:` prefix). Processing
/// instructions are skipped; comments are kept as nodes (Android notes live in them).
package struct XMLReader {
    package struct Limits: Sendable {
        /// 40 MiB holds one locale of the 10,000-template catalogue in XLIFF 2.0 (28 MB for
        /// 50,000 strings with their notes, about 40 MB at 7 strings a template) and refuses a
        /// 50 MB upload before any of it is parsed.
        package var maximumBytes: Int
        /// XLIFF needs 7 levels (xliff, file, unit, segment, target, and inline elements).
        package var maximumDepth: Int
        package var maximumAttributes: Int
        package var maximumNameLength: Int

        package init(
            maximumBytes: Int = 40 << 20,
            maximumDepth: Int = 32,
            maximumAttributes: Int = 64,
            maximumNameLength: Int = 256
        ) {
            self.maximumBytes = maximumBytes
            self.maximumDepth = maximumDepth
            self.maximumAttributes = maximumAttributes
            self.maximumNameLength = maximumNameLength
        }
    }

    private let bytes: [UInt8]
    private let limits: Limits
    private var index: Int
    private var depth = 0
    /// Prefix → namespace URI in scope; `""` is the default namespace.
    private var scopes: [[String: String]] = [["xml": XMLName.xmlNamespace]]

    private init(bytes: [UInt8], limits: Limits, start: Int) {
        self.bytes = bytes
        self.limits = limits
        self.index = start
    }

    /// Parses one document.
    /// - Throws: `TranslationFormatError` with the line and column of the first fault.
    package static func parse(
        _ bytes: [UInt8],
        limits: Limits = Limits()
    ) throws(TranslationFormatError)
        -> XMLDocument
    {
        guard bytes.count <= limits.maximumBytes else {
            throw TranslationFormatError(
                line: nil,
                column: nil,
                message: "the file is \(bytes.count) bytes; at most \(limits.maximumBytes) are accepted"
            )
        }
        if bytes.starts(with: [0xFE, 0xFF]) || bytes.starts(with: [0xFF, 0xFE]) {
            throw TranslationFormatError(line: 1, column: 1, message: "the file is UTF-16; save it as UTF-8")
        }
        let start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        try validateCharacters(bytes, from: start)
        var reader = XMLReader(bytes: bytes, limits: limits, start: start)
        try reader.parseDeclaration()
        try reader.skipMisc()
        guard reader.index < bytes.count else { throw reader.error("the file has no root element") }
        guard reader.bytes[reader.index] == UInt8(ascii: "<") else {
            throw reader.error("expected the root element; text is not allowed before it")
        }
        let root = try reader.parseElement()
        try reader.skipMisc()
        guard reader.index == bytes.count else { throw reader.error("only one root element is allowed") }
        return XMLDocument(root: root, bytes: bytes)
    }

    // MARK: - Characters

    /// Checks the whole input once: well-formed UTF-8 (no overlong forms, no surrogates) and only
    /// characters XML 1.0 allows. Later stages can then decode bytes without checking.
    private static func validateCharacters(_ bytes: [UInt8], from start: Int) throws(TranslationFormatError) {
        var index = start
        let count = bytes.count
        while index < count {
            let lead = bytes[index]
            if lead < 0x80 {
                if lead < 0x20, lead != 0x09, lead != 0x0A, lead != 0x0D {
                    throw TranslationFormatError(
                        at: index,
                        in: bytes,
                        "the control character U+\(hex4(Unicode.Scalar(lead))) is not allowed in XML"
                    )
                }
                index += 1
                continue
            }
            let length: Int
            var low: UInt8 = 0x80
            var high: UInt8 = 0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; low = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; high = 0x9F
            case 0xF0: length = 4; low = 0x90
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; high = 0x8F
            default: throw TranslationFormatError(at: index, in: bytes, "malformed UTF-8")
            }
            guard index + length <= count else { throw TranslationFormatError(at: index, in: bytes, "malformed UTF-8") }
            for offset in 1..<length {
                let byte = bytes[index + offset]
                let (min, max): (UInt8, UInt8) = offset == 1 ? (low, high) : (0x80, 0xBF)
                guard byte >= min, byte <= max else {
                    throw TranslationFormatError(at: index, in: bytes, "malformed UTF-8")
                }
            }
            // U+FFFE and U+FFFF: EF BF BE, EF BF BF.
            if lead == 0xEF, bytes[index + 1] == 0xBF, bytes[index + 2] >= 0xBE {
                let scalar = bytes[index + 2] == 0xBE ? "FFFE" : "FFFF"
                throw TranslationFormatError(at: index, in: bytes, "U+\(scalar) is not a character XML allows")
            }
            index += length
        }
    }

    // MARK: - Errors and scanning

    private func error(_ message: String, at offset: Int? = nil) -> TranslationFormatError {
        TranslationFormatError(at: offset ?? index, in: bytes, message)
    }

    private func peek(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { return false }
        for offset in 0..<count where bytes[index + offset] != literal.utf8Start[offset] { return false }
        return true
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    @discardableResult
    private mutating func skipWhitespace() -> Bool {
        let start = index
        while index < bytes.count, Self.isWhitespace(bytes[index]) { index += 1 }
        return index > start
    }

    private static func isNameStart(_ byte: UInt8) -> Bool {
        ((byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ":")
            || byte >= 0x80
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        isNameStart(byte) || (byte >= 0x30 && byte <= 0x39) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
    }

    private mutating func readName() throws(TranslationFormatError) -> String {
        let start = index
        guard index < bytes.count, Self.isNameStart(bytes[index]) else { throw error("expected a name") }
        while index < bytes.count, Self.isNameByte(bytes[index]) { index += 1 }
        guard index - start <= limits.maximumNameLength else {
            throw error("a name longer than \(limits.maximumNameLength) bytes", at: start)
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    private mutating func expect(_ byte: UInt8, _ what: String) throws(TranslationFormatError) {
        guard index < bytes.count, bytes[index] == byte else { throw error("expected \(what)") }
        index += 1
    }

    // MARK: - Prolog

    /// `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>`, only at the very start.
    private mutating func parseDeclaration() throws(TranslationFormatError) {
        guard peek("<?xml"), index + 5 < bytes.count, Self.isWhitespace(bytes[index + 5]) else { return }
        index += 5
        var sawVersion = false
        while true {
            let hadSpace = skipWhitespace()
            if peek("?>") {
                index += 2
                break
            }
            guard hadSpace else { throw error("expected '?>' to end the XML declaration") }
            let (name, value, nameOffset) = try readAttribute()
            switch name {
            case "version":
                guard value == "1.0" else {
                    throw error("XML version \(value) is not supported (1.0 is)", at: nameOffset)
                }
                sawVersion = true
            case "encoding":
                guard value.lowercased() == "utf-8" else {
                    throw error("the encoding \(value) is not supported; save the file as UTF-8", at: nameOffset)
                }
            case "standalone":
                guard value == "yes" || value == "no" else {
                    throw error("standalone must be yes or no", at: nameOffset)
                }
            default:
                throw error("unknown \(name) in the XML declaration", at: nameOffset)
            }
        }
        if !sawVersion { throw error("the XML declaration has no version") }
    }

    /// Whitespace, comments and processing instructions around the root element.
    private mutating func skipMisc() throws(TranslationFormatError) {
        while true {
            skipWhitespace()
            if peek("<!--") {
                _ = try parseComment()
            } else if peek("<?") {
                try skipProcessingInstruction()
            } else if peek("<!") {
                throw markupDeclarationError()
            } else {
                return
            }
        }
    }

    /// `<!DOCTYPE`, `<!ENTITY` and the like (comments and CDATA are handled before): refused
    /// wherever they appear.
    private func markupDeclarationError() -> TranslationFormatError {
        guard peek("<!DOCTYPE") else { return error("markup declarations are not accepted") }
        return error(
            "a DOCTYPE is not accepted: no DTD is read, so no entity is declared or expanded and no external file is loaded"
        )
    }

    // MARK: - Markup

    private mutating func parseComment() throws(TranslationFormatError) -> String {
        let start = index
        index += 4
        var text: [UInt8] = []
        while index < bytes.count {
            if peek("--") {
                guard index + 2 < bytes.count, bytes[index + 2] == UInt8(ascii: ">") else {
                    throw error("'--' is not allowed inside a comment")
                }
                index += 3
                return String(decoding: text, as: UTF8.self)
            }
            appendNormalizingLineEnd(&text)
        }
        throw error("the comment is not closed (no '-->')", at: start)
    }

    private mutating func skipProcessingInstruction() throws(TranslationFormatError) {
        let start = index
        index += 2
        let target = try readName()
        if target.lowercased() == "xml" {
            throw error("the XML declaration must be at the very start of the file", at: start)
        }
        while index < bytes.count {
            if peek("?>") {
                index += 2
                return
            }
            index += 1
        }
        throw error("the processing instruction is not closed (no '?>')", at: start)
    }

    /// Appends the byte at `index` (CR LF and a lone CR as one LF) and moves past it.
    private mutating func appendNormalizingLineEnd(_ text: inout [UInt8]) {
        if bytes[index] == 0x0D {
            text.append(0x0A)
            index += index + 1 < bytes.count && bytes[index + 1] == 0x0A ? 2 : 1
        } else {
            text.append(bytes[index])
            index += 1
        }
    }

    /// `name = "value"`, with where the name starts.
    private mutating func readAttribute() throws(TranslationFormatError) -> (name: String, value: String, offset: Int) {
        let offset = index
        let name = try readName()
        skipWhitespace()
        try expect(UInt8(ascii: "="), "'=' after \(name)")
        skipWhitespace()
        return (name, try readAttributeValue(), offset)
    }

    /// A quoted attribute value, references decoded, whitespace normalized (XML 1.0 §3.3.3).
    private mutating func readAttributeValue() throws(TranslationFormatError) -> String {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") || bytes[index] == UInt8(ascii: "'") else {
            throw error("expected a quoted value")
        }
        let start = index
        let quote = bytes[index]
        index += 1
        var value: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case quote:
                index += 1
                return String(decoding: value, as: UTF8.self)
            case UInt8(ascii: "<"):
                throw error("'<' is not allowed in an attribute value; write &lt;")
            case UInt8(ascii: "&"):
                try decodeReference(into: &value)
            case 0x0D:
                value.append(0x20)
                index += index + 1 < bytes.count && bytes[index + 1] == 0x0A ? 2 : 1
            case 0x0A, 0x09:
                value.append(0x20)
                index += 1
            default:
                value.append(byte)
                index += 1
            }
        }
        throw error("the attribute value is not closed", at: start)
    }

    /// `&lt;` `&gt;` `&amp;` `&apos;` `&quot;` `&#N;` `&#xH;`; anything else is refused.
    private mutating func decodeReference(into text: inout [UInt8]) throws(TranslationFormatError) {
        let start = index
        index += 1
        let nameStart = index
        while index < bytes.count, bytes[index] != UInt8(ascii: ";"), index - nameStart <= 32 {
            let byte = bytes[index]
            guard Self.isNameByte(byte) || byte == UInt8(ascii: "#") else { break }
            index += 1
        }
        guard index < bytes.count, bytes[index] == UInt8(ascii: ";"), index > nameStart else {
            throw error("'&' starts a reference that does not end with ';' (write &amp; for an ampersand)", at: start)
        }
        let name = bytes[nameStart..<index]
        index += 1
        if name.first == UInt8(ascii: "#") {
            let digits = name.dropFirst()
            let isHex = digits.first == UInt8(ascii: "x")
            let number = String(decoding: isHex ? digits.dropFirst() : digits, as: UTF8.self)
            guard !number.isEmpty, number.count <= 8, let value = UInt32(number, radix: isHex ? 16 : 10),
                let scalar = Unicode.Scalar(value), isXMLCharacter(scalar)
            else {
                throw error("&\(String(decoding: name, as: UTF8.self)); is not a character XML allows", at: start)
            }
            UTF8.encode(scalar) { text.append($0) }
            return
        }
        switch String(decoding: name, as: UTF8.self) {
        case "lt": text.append(UInt8(ascii: "<"))
        case "gt": text.append(UInt8(ascii: ">"))
        case "amp": text.append(UInt8(ascii: "&"))
        case "apos": text.append(UInt8(ascii: "'"))
        case "quot": text.append(UInt8(ascii: "\""))
        case let other:
            throw error(
                "undefined entity &\(other);: only &lt; &gt; &amp; &apos; &quot; and character references are known (no DTD is read)",
                at: start
            )
        }
    }

    // MARK: - Elements

    private mutating func parseElement() throws(TranslationFormatError) -> XMLElement {
        let start = index
        index += 1
        let qualifiedName = try readName()
        var raw: [(name: String, value: String, offset: Int)] = []
        var declarations: [String: String] = [:]
        var selfClosing = false
        while true {
            let hadSpace = skipWhitespace()
            guard index < bytes.count else { throw error("the file ends inside the start tag <\(qualifiedName)>") }
            if bytes[index] == UInt8(ascii: ">") {
                index += 1
                break
            }
            if peek("/>") {
                index += 2
                selfClosing = true
                break
            }
            guard hadSpace else { throw error("expected whitespace, '>' or '/>' in <\(qualifiedName)>") }
            let (name, value, offset) = try readAttribute()
            if raw.contains(where: { $0.name == name }) {
                throw error("the attribute \(name) repeats in <\(qualifiedName)>", at: offset)
            }
            guard raw.count < limits.maximumAttributes else {
                throw error("more than \(limits.maximumAttributes) attributes in <\(qualifiedName)>", at: offset)
            }
            if name == "xmlns" {
                declarations[""] = value
            } else if name.hasPrefix("xmlns:") {
                let prefix = String(name.dropFirst(6))
                guard !value.isEmpty else { throw error("the prefix \(prefix) cannot be undeclared", at: offset) }
                guard prefix != "xmlns", prefix != "xml" || value == XMLName.xmlNamespace,
                    prefix == "xml" || value != XMLName.xmlNamespace
                else { throw error("\(name) cannot be declared", at: offset) }
                declarations[prefix] = value
            }
            raw.append((name, value, offset))
        }

        depth += 1
        defer { depth -= 1 }
        guard depth <= limits.maximumDepth else {
            throw error("elements nest deeper than \(limits.maximumDepth) levels", at: start)
        }
        let outer = scopes[scopes.count - 1]
        scopes.append(declarations.isEmpty ? outer : outer.merging(declarations) { $1 })
        defer { scopes.removeLast() }

        let name = try resolve(qualifiedName, isAttribute: false, at: start + 1)
        var attributes: [XMLAttribute] = []
        for entry in raw where entry.name != "xmlns" && !entry.name.hasPrefix("xmlns:") {
            let resolved = try resolve(entry.name, isAttribute: true, at: entry.offset)
            if attributes.contains(where: { $0.name == resolved }) {
                throw error("the attribute \(resolved) repeats in <\(qualifiedName)>", at: entry.offset)
            }
            attributes.append(XMLAttribute(name: resolved, qualifiedName: entry.name, value: entry.value))
        }
        let children = selfClosing ? [] : try parseContent(of: qualifiedName, openedAt: start)
        return XMLElement(
            name: name,
            qualifiedName: qualifiedName,
            attributes: attributes,
            children: children,
            offset: start
        )
    }

    private func resolve(
        _ qualifiedName: String,
        isAttribute: Bool,
        at offset: Int
    ) throws(TranslationFormatError)
        -> XMLName
    {
        let scope = scopes[scopes.count - 1]
        guard let colon = qualifiedName.firstIndex(of: ":") else {
            return XMLName(isAttribute ? "" : scope[""] ?? "", qualifiedName)
        }
        let prefix = String(qualifiedName[..<colon])
        let local = String(qualifiedName[qualifiedName.index(after: colon)...])
        guard !prefix.isEmpty, !local.isEmpty, !local.contains(":") else {
            throw error("\(qualifiedName) is not a valid qualified name", at: offset)
        }
        guard let namespace = scope[prefix] else {
            throw error("the prefix \(prefix) of \(qualifiedName) is not declared", at: offset)
        }
        return XMLName(namespace, local)
    }

    private mutating func parseContent(
        of qualifiedName: String,
        openedAt start: Int
    ) throws(TranslationFormatError)
        -> [XMLNode]
    {
        var children: [XMLNode] = []
        var text: [UInt8] = []
        var textOffset = -1
        func flush() {
            if textOffset >= 0 { children.append(.text(String(decoding: text, as: UTF8.self), offset: textOffset)) }
            text.removeAll(keepingCapacity: true)
            textOffset = -1
        }
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "<") {
                if peek("</") {
                    let closeOffset = index
                    index += 2
                    let name = try readName()
                    skipWhitespace()
                    try expect(UInt8(ascii: ">"), "'>' to end </\(name)>")
                    guard name == qualifiedName else {
                        let opened = TextPosition(offset: start, in: bytes)
                        throw error(
                            "</\(name)> does not close <\(qualifiedName)> (opened at line \(opened.line), column \(opened.column))",
                            at: closeOffset
                        )
                    }
                    flush()
                    return children
                } else if peek("<!--") {
                    flush()
                    let offset = index
                    children.append(.comment(try parseComment(), offset: offset))
                } else if peek("<![CDATA[") {
                    if textOffset < 0 { textOffset = index }
                    let cdataStart = index
                    index += 9
                    while true {
                        guard index < bytes.count else {
                            throw error("the CDATA section is not closed", at: cdataStart)
                        }
                        if peek("]]>") {
                            index += 3
                            break
                        }
                        appendNormalizingLineEnd(&text)
                    }
                } else if peek("<?") {
                    try skipProcessingInstruction()
                } else if peek("<!") {
                    throw markupDeclarationError()
                } else {
                    flush()
                    children.append(.element(try parseElement()))
                }
            } else if byte == UInt8(ascii: "&") {
                if textOffset < 0 { textOffset = index }
                try decodeReference(into: &text)
            } else if byte == UInt8(ascii: "]"), peek("]]>") {
                throw error("']]>' is not allowed in text; write ]]&gt;")
            } else if byte == 0x0D {
                if textOffset < 0 { textOffset = index }
                appendNormalizingLineEnd(&text)
            } else {
                // A run of plain text in one append: most of a translation file.
                if textOffset < 0 { textOffset = index }
                let runStart = index
                index += 1
                while index < bytes.count {
                    let next = bytes[index]
                    if next == UInt8(ascii: "<") || next == UInt8(ascii: "&") || next == UInt8(ascii: "]")
                        || next == 0x0D
                    {
                        break
                    }
                    index += 1
                }
                text.append(contentsOf: bytes[runStart..<index])
            }
        }
        let opened = TextPosition(offset: start, in: bytes)
        throw error(
            "the file ends before <\(qualifiedName)> (opened at line \(opened.line), column \(opened.column)) is closed"
        )
    }
}
