import CLDRPlurals
import EmptyStateCore

/// A plural string as ICU MessageFormat, the plural syntax XLIFF 2.0 files carry in their text
/// (Crowdin, Phrase and Lokalise read it): `{count, plural, one {{count} result} other {{count}
/// results}}`.
///
/// Written: one whole-message plural, each form a complete text (ICU's own advice), placeholders
/// as ICU arguments `{name}` (the number too: `{count}` reads the same as `#`), literal `{`, `}`
/// and `#` quoted (`'{'`), an apostrophe doubled only where ICU would otherwise start a quote
/// (before `{`, `}`, `#`, `|`, `'` and at a form's end), so French keeps its `l'écran`.
///
/// Read: that, and what tools and translators write besides: `#` for the number, text before
/// and after the plural (added to every form), ICU's quoting. Refused with a reason: explicit
/// values (`=0`), `offset:`, a nested `plural` or `select`, typed arguments (`{n, number}`), an
/// unknown category, unbalanced braces.
package enum ICUPlural {
    /// The ICU message of `plural`.
    package static func format(_ plural: PluralText) -> String {
        var out = "{" + plural.variable + ", plural,"
        for (category, text) in plural.orderedForms {
            out += " " + category.rawValue + " {" + quote(text) + "}"
        }
        return out + "}"
    }

    /// Whether `text` holds an ICU plural (`{name, plural, …`): only then is it read as one. A
    /// placeholder name holds no comma, so no `{name}` looks like it; a plain text that spells
    /// `{name, plural,` literally would be taken for a plural (and refused if it is not one).
    package static func isPlural(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                if bytes[offset] == UInt8(ascii: "{"), header(in: bytes, at: offset) != nil { return true }
                offset += 1
            }
            return false
        }
    }

    /// The plural `text` holds.
    /// - Throws: the reason, when `text` holds an ICU plural this service cannot take.
    package static func parse(_ text: String) throws(ICUPluralError) -> PluralText {
        var scanner = Scanner(Array(text))
        return try scanner.message()
    }

    /// `{name, plural,` at `open`: the variable and where the selectors start.
    fileprivate static func header(in text: String, at open: String.Index) -> (String, String.Index)? {
        var copy = text
        let start = text.utf8.distance(from: text.utf8.startIndex, to: open)
        guard let found = copy.withUTF8({ header(in: $0, at: start) }) else { return nil }
        let utf8 = text.utf8
        let name = String(
            text[
                utf8.index(
                    utf8.startIndex,
                    offsetBy: found.name.lowerBound
                )..<utf8.index(utf8.startIndex, offsetBy: found.name.upperBound)
            ]
        )
        return (name, utf8.index(utf8.startIndex, offsetBy: found.end))
    }

    /// The same on UTF-8 bytes: the name's byte range and the offset after the second comma.
    ///
    /// Read byte by byte and given up at the first byte that cannot continue the header, so a
    /// text of many `{` (a hostile file's) costs a few steps per brace: linear, not quadratic.
    private static func header(in bytes: UnsafeBufferPointer<UInt8>, at open: Int) -> (name: Range<Int>, end: Int)? {
        var index = open + 1
        func skipSpaces() {
            while index < bytes.count {
                let byte = bytes[index]
                guard byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D else { return }
                index += 1
            }
        }
        skipSpaces()
        let nameStart = index
        while index < bytes.count, index - nameStart < 33 {
            let byte = bytes[index]
            let letter = (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A
            guard letter || byte == UInt8(ascii: "_") || (index > nameStart && byte >= 0x30 && byte <= 0x39) else {
                break
            }
            index += 1
        }
        let name = nameStart..<index
        // A placeholder name: 1 to 32 of those bytes (`CopyRules.isPlaceholderName`).
        guard !name.isEmpty, name.count <= 32 else { return nil }
        skipSpaces()
        guard index < bytes.count, bytes[index] == UInt8(ascii: ",") else { return nil }
        index += 1
        skipSpaces()
        for byte in "plural".utf8 {
            guard index < bytes.count, bytes[index] == byte else { return nil }
            index += 1
        }
        skipSpaces()
        guard index < bytes.count, bytes[index] == UInt8(ascii: ",") else { return nil }
        return (name, index + 1)
    }

    /// A form's text in ICU: placeholders as arguments, literal syntax quoted. A run of `{`,
    /// `}`, `#`, `|` is one quoted run (`'{#}'`), an apostrophe inside it doubled; elsewhere an
    /// apostrophe is doubled only where ICU would otherwise read it as the start of a quote or
    /// the end of the form (before syntax, another apostrophe, a placeholder or the form's end).
    private static func quote(_ text: String) -> String {
        enum Atom {
            case character(Character)
            case placeholder(String)
        }
        var atoms: [Atom] = []
        for segment in InlineSegment.segments(of: text) {
            switch segment {
            case .placeholder(let name): atoms.append(.placeholder(name))
            case .codePoint(let scalar): atoms.append(.character(Character(scalar)))
            case .text(let run): atoms += run.map(Atom.character)
            }
        }
        let syntax: Set<Character> = ["{", "}", "#", "|"]
        var out = ""
        var quoted = false
        for (index, atom) in atoms.enumerated() {
            switch atom {
            case .placeholder(let name):
                if quoted { out += "'" }
                quoted = false
                out += "{" + name + "}"
            case .character(let character) where syntax.contains(character):
                if !quoted { out += "'" }
                quoted = true
                out.append(character)
            case .character("'"):
                if quoted {
                    out += "''"
                    continue
                }
                let next: Character?
                switch index + 1 < atoms.count ? atoms[index + 1] : nil {
                case .character(let character)?: next = character
                case .placeholder?, nil: next = nil
                }
                out += next.map { syntax.contains($0) || $0 == "'" } ?? true ? "''" : "'"
            case .character(let character):
                if quoted { out += "'" }
                quoted = false
                out.append(character)
            }
        }
        if quoted { out += "'" }
        return out
    }
}

/// Why an ICU plural cannot be read.
package struct ICUPluralError: Error, Sendable, Equatable {
    package var message: String
}

/// Reads one ICU message holding a plural.
private struct Scanner {
    let characters: [Character]
    var index = 0

    init(_ characters: [Character]) {
        self.characters = characters
    }

    mutating func message() throws(ICUPluralError) -> PluralText {
        let text = String(characters)
        var prefixEnd: String.Index?
        var scan = text.startIndex
        while let open = text[scan...].firstIndex(of: "{") {
            if ICUPlural.header(in: text, at: open) != nil {
                prefixEnd = open
                break
            }
            scan = text.index(after: open)
        }
        guard let prefixEnd, let (variable, selectors) = ICUPlural.header(in: text, at: prefixEnd) else {
            throw ICUPluralError(message: "no {name, plural, …} in the text")
        }
        var prefixScanner = Scanner(Array(text[..<prefixEnd]))
        let prefix = try prefixScanner.literal(variable: nil, until: nil)
        index = text.distance(from: text.startIndex, to: selectors)
        var forms: [PluralCategory: String] = [:]
        while true {
            skipSpaces()
            guard index < characters.count else { throw ICUPluralError(message: "the plural is not closed with }") }
            if characters[index] == "}" {
                index += 1
                break
            }
            var selector = ""
            while index < characters.count, !characters[index].isWhitespace, characters[index] != "{" {
                selector.append(characters[index])
                index += 1
            }
            if selector.hasPrefix("=") {
                throw ICUPluralError(
                    message: "explicit values (\(selector)) are not supported: give the locale's plural categories"
                )
            }
            if selector.hasPrefix("offset:") { throw ICUPluralError(message: "offset: is not supported") }
            guard let category = PluralCategory(rawValue: selector) else {
                throw ICUPluralError(
                    message:
                        "\(selector.isEmpty ? "a form without a category" : "\"\(selector)\"") is not a plural category (zero, one, two, few, many, other)"
                )
            }
            guard forms[category] == nil else { throw ICUPluralError(message: "the form \(selector) is given twice") }
            skipSpaces()
            guard index < characters.count, characters[index] == "{" else {
                throw ICUPluralError(message: "the form \(selector) has no {text}")
            }
            index += 1
            forms[category] = try literal(variable: variable, until: "}")
            index += 1  // the form's }
        }
        let suffix = try literal(variable: nil, until: nil)
        guard forms[.other] != nil else { throw ICUPluralError(message: "the plural has no other form") }
        return PluralText(variable: variable, forms: forms.mapValues { prefix + $0 + suffix })
    }

    private mutating func skipSpaces() {
        while index < characters.count, characters[index].isWhitespace { index += 1 }
    }

    /// Text up to `end` (not consumed) or the end: quoting undone, `{name}` kept, `#` → the
    /// variable inside a form.
    mutating func literal(variable: String?, until end: Character?) throws(ICUPluralError) -> String {
        var out = ""
        while index < characters.count {
            let character = characters[index]
            if let end, character == end { return out }
            switch character {
            case "'":
                let next = index + 1 < characters.count ? characters[index + 1] : nil
                if next == "'" {
                    out.append("'")
                    index += 2
                } else if let next, "{}#|".contains(next) {
                    // A quoted run, up to the next lone apostrophe ('' inside is one).
                    index += 1
                    while index < characters.count {
                        if characters[index] == "'" {
                            if index + 1 < characters.count, characters[index + 1] == "'" {
                                out.append("'")
                                index += 2
                                continue
                            }
                            index += 1
                            break
                        }
                        out.append(characters[index])
                        index += 1
                    }
                } else {
                    out.append("'")
                    index += 1
                }
            case "#" where variable != nil:
                out += "{" + variable! + "}"
                index += 1
            case "{":
                guard let close = characters[index...].firstIndex(of: "}") else {
                    throw ICUPluralError(message: "a { is not closed")
                }
                let inner = String(characters[(index + 1)..<close]).trimmingSpaces
                if inner.contains(",") {
                    let kind = inner.split(separator: ",").dropFirst().first.map { String($0).trimmingSpaces } ?? ""
                    throw ICUPluralError(
                        message: kind == "plural" || kind == "select" || kind == "selectordinal"
                            ? "a \(kind) inside a plural is not supported" : "{\(inner)} is not supported: write {name}"
                    )
                }
                guard CopyRules.isPlaceholderName(Substring(inner)) else {
                    throw ICUPluralError(message: "{\(inner)} is not a placeholder")
                }
                out += "{" + inner + "}"
                index = close + 1
            case "}":
                throw ICUPluralError(message: "a } closes nothing")
            default:
                out.append(character)
                index += 1
            }
        }
        if end != nil { throw ICUPluralError(message: "a form is not closed with }") }
        return out
    }
}

extension StringProtocol {
    fileprivate var trimmed: Substring {
        var text = Substring(self)
        while text.first?.isWhitespace == true { text = text.dropFirst() }
        while text.last?.isWhitespace == true { text = text.dropLast() }
        return text
    }
}

extension String {
    fileprivate var trimmingSpaces: String { String(trimmed) }
}
