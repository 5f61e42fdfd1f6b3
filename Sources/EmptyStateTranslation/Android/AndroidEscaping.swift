import EmptyStateCore

/// A copy string as the content of an Android `<string>` element, and back, by aapt2's rules
/// (`StringBuilder::AppendText` and `ResourceParser::FlattenXmlSubtree` in AOSP's aapt2):
///
/// Reading, in aapt2's order: XML entities are decoded; `<xliff:g>` is unwrapped (it marks a
/// placeholder, it is not a span); leading whitespace of the first text and trailing whitespace
/// of the last are trimmed; then backslash escapes (`\n` `\t` `\'` `\"` `\\` `\@` `\?` `\#`
/// `\uXXXX`), an unescaped `"` toggles a quoted run (whitespace kept, the quote dropped), runs
/// of ASCII whitespace outside quotes become one space, and a bare `'` is an error.
///
/// Writing never relies on quoting: every `'`, `"` and `\` is escaped, newlines and tabs are
/// `\n` and `\t`, a space that would be trimmed or collapsed (first, last, or after another
/// space) is `\u0020`, a leading `@` or `?` (a resource reference to aapt2) is `\@` / `\?`,
/// controls are `\uXXXX`, and `&`, `<`, `>` are XML-escaped.
///
/// Placeholders: `{provider}` is written `<xliff:g id="provider">%1$s</xliff:g>`, numbered in a
/// stable order (the source's placeholder names sorted, then any others the target has, sorted),
/// so a tool that drops the `<xliff:g>` still leaves a reversible `%1$s`. With placeholders,
/// a literal `%` is `%%` (the string is a format string); without any, `%` stays and the element
/// gets `formatted="false"`, so neither lint nor `getString` reads it as a format.
package enum AndroidEscaping {
    /// What goes between `<string …>` and `</string>`.
    package struct Encoded: Sendable, Equatable {
        /// XML content: escaped text and `<xliff:g>` elements.
        package var content: String
        /// `false` when the element needs `formatted="false"`.
        package var formatted: Bool
    }

    /// The positional order of placeholders: `source`'s names sorted, then `target`'s others.
    package static func placeholderOrder(source: String?, target: String?) -> [String] {
        let sourceNames = Set(CopyRules.placeholders(in: source ?? ""))
        let extra = Set(CopyRules.placeholders(in: target ?? "")).subtracting(sourceNames)
        return sourceNames.sorted() + extra.sorted()
    }

    /// - Parameters:
    ///   - order: the placeholders' positional order (`placeholderOrder`).
    ///   - examples: a value per placeholder for `<xliff:g example>` (what Android Studio and
    ///     translation tools show a translator in its place).
    ///   - format: write a format string (`%` as `%%`) even without placeholders: a `<plurals>`
    ///     item, which `getQuantityString` always formats.
    package static func encode(
        _ text: String,
        order: [String],
        examples: [String: String] = [:],
        format: Bool = false
    ) -> Encoded {
        let segments = InlineSegment.segments(of: text)
        let hasPlaceholders =
            format
            || segments.contains {
                if case .placeholder = $0 { return true }
                return false
            }
        var out = ""
        var atStart = true
        var previousWasLiteralSpace = false
        func escapeScalar(_ scalar: Unicode.Scalar) {
            let value = scalar.value
            out +=
                "\\u" + String(repeating: "0", count: max(0, 4 - String(value, radix: 16).count))
                + String(value, radix: 16, uppercase: true)
        }
        for (segmentIndex, segment) in segments.enumerated() {
            switch segment {
            case .placeholder(let name):
                let position = (order.firstIndex(of: name) ?? order.count) + 1
                let example = examples[name].map { " example=\"\(attributeEscaped($0))\"" } ?? ""
                out += "<xliff:g id=\"\(name)\"\(example)>%\(position)$s</xliff:g>"
                previousWasLiteralSpace = false
            case .codePoint(let scalar):
                escapeScalar(scalar)
                previousWasLiteralSpace = false
            case .text(let run):
                let scalars = Array(run.unicodeScalars)
                let isLastSegment = segmentIndex == segments.count - 1
                for (index, scalar) in scalars.enumerated() {
                    let isLast = isLastSegment && index == scalars.count - 1
                    var literalSpace = false
                    switch scalar {
                    case "\\": out += "\\\\"
                    case "'": out += "\\'"
                    case "\"": out += "\\\""
                    case "\n": out += "\\n"
                    case "\t": out += "\\t"
                    case " ":
                        if atStart || isLast || previousWasLiteralSpace {
                            out += "\\u0020"
                        } else {
                            out += " "
                            literalSpace = true
                        }
                    case "@" where atStart, "?" where atStart: out += "\\" + String(scalar)
                    case "%": out += hasPlaceholders ? "%%" : "%"
                    case "&": out += "&amp;"
                    case "<": out += "&lt;"
                    case ">": out += "&gt;"
                    default:
                        // Other controls (CR, VT, FF, DEL, C1) are invisible or collapse as
                        // whitespace: written as escapes so they survive and can be seen.
                        if scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) {
                            escapeScalar(scalar)
                        } else {
                            out.unicodeScalars.append(scalar)
                        }
                    }
                    previousWasLiteralSpace = literalSpace
                    atStart = false
                }
                continue
            }
            atStart = false
        }
        return Encoded(content: out, formatted: hasPlaceholders || !text.contains("%"))
    }

    /// `text` as an XML attribute value in double quotes; characters XML cannot hold are dropped.
    private static func attributeEscaped(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars where isXMLCharacter(scalar) {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "\n": out += "&#10;"
            case "\t": out += "&#9;"
            case "\r": out += "&#13;"
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// One piece of a `<string>`'s content: text, or the text of an `<xliff:g>` with its id.
    package struct Piece: Sendable, Equatable {
        package var text: String
        package var group: String?
        /// Byte offset in the file, for errors.
        package var offset: Int

        package init(text: String, group: String?, offset: Int) {
            self.text = text
            self.group = group
            self.offset = offset
        }
    }

    /// Why a `<string>`'s content cannot be read, at a piece's offset.
    package struct DecodeError: Error, Sendable, Equatable {
        package var offset: Int
        package var message: String
    }

    /// The copy text a `<string>`'s pieces stand for.
    /// - Parameters:
    ///   - formatted: `false` for `formatted="false"`: every `%` is literal.
    ///   - names: the placeholder names in positional order, for a `%2$s` outside an
    ///     `<xliff:g>` (or inside one whose id is not a name).
    package static func decode(_ pieces: [Piece], formatted: Bool, names: [String]?) throws(DecodeError) -> String {
        var pieces = pieces
        // Edge trimming, before escapes (aapt2's S2): `\u0020` survives it, a raw space does not.
        if let first = pieces.indices.first {
            let scalars = pieces[first].text.unicodeScalars
            pieces[first].text = String(String.UnicodeScalarView(scalars.drop(while: isASCIIWhitespace)))
        }
        if let last = pieces.indices.last {
            let scalars = pieces[last].text.unicodeScalars
            let kept = scalars.reversed().drop(while: isASCIIWhitespace).reversed()
            pieces[last].text = String(String.UnicodeScalarView(kept))
        }
        if let first = pieces.first(where: { !$0.text.isEmpty }), first.group == nil,
            first.text.hasPrefix("@") || first.text.hasPrefix("?")
        {
            throw DecodeError(
                offset: first.offset,
                message:
                    "a string starting with an unescaped \(first.text.prefix(1)) is a resource reference to Android; write \\\(first.text.prefix(1))"
            )
        }

        var state = UnescapeState()
        var decoded: [(text: String, group: String?, offset: Int)] = []
        for piece in pieces {
            decoded.append((try state.unescape(piece.text, offset: piece.offset), piece.group, piece.offset))
        }

        let isFormat =
            formatted
            && decoded.contains { piece in
                piece.group != nil ? formatSpecifier(piece.text) != nil : containsPositional(piece.text)
            }
        guard isFormat else { return decoded.map(\.text).joined() }
        var result = ""
        for piece in decoded {
            if let group = piece.group, let position = formatSpecifier(piece.text) {
                if CopyRules.isPlaceholderName(Substring(group)) {
                    result += "{" + group + "}"
                } else {
                    result += "{" + (try name(at: position, names, offset: piece.offset)) + "}"
                }
            } else {
                result += try formatText(piece.text, names: names, offset: piece.offset)
            }
        }
        return result
    }

    /// C's `isspace` in the ASCII range, which aapt2 uses: space, tab, LF, VT, FF, CR.
    fileprivate static func isASCIIWhitespace(_ scalar: Unicode.Scalar) -> Bool {
        scalar == " " || (0x09...0x0D).contains(scalar.value)
    }

    private static func name(at position: Int?, _ names: [String]?, offset: Int) throws(DecodeError) -> String {
        guard let position else {
            throw DecodeError(offset: offset, message: "use positional placeholders (%1$s), not %s")
        }
        guard let names, position >= 1, position <= names.count else {
            throw DecodeError(
                offset: offset,
                message:
                    "%\(position)$s names no placeholder: wrap it in <xliff:g id=\"name\">, or import it with its source"
            )
        }
        return names[position - 1]
    }

    /// `1` for `%1$s` or `%1$d`, `nil` for `%s`; `nil` (outer) when `text` is not one specifier.
    private static func formatSpecifier(_ text: String) -> Int?? {
        let scalars = Array(text.unicodeScalars)
        guard scalars.count >= 2, scalars.first == "%", scalars.last == "s" || scalars.last == "d" else { return nil }
        if scalars.count == 2 { return .some(nil) }
        guard scalars[scalars.count - 2] == "$" else { return nil }
        let digits = String(String.UnicodeScalarView(scalars[1..<(scalars.count - 2)]))
        guard let number = Int(digits), number > 0 else { return nil }
        return .some(number)
    }

    private static func containsPositional(_ text: String) -> Bool {
        var scalars = text.unicodeScalars.makeIterator()
        var previousPercent = false
        while let scalar = scalars.next() {
            if previousPercent {
                if scalar == "%" {
                    previousPercent = false
                    continue
                }
                if ("0"..."9").contains(scalar) || scalar == "s" || scalar == "d" { return true }
            }
            previousPercent = scalar == "%"
        }
        return false
    }

    /// Text of a format string: `%%` is `%`, `%N$s` a placeholder, any other `%` an error.
    private static func formatText(_ text: String, names: [String]?, offset: Int) throws(DecodeError) -> String {
        let scalars = Array(text.unicodeScalars)
        var result = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            guard scalars[index] == "%" else {
                result.append(scalars[index])
                index += 1
                continue
            }
            if index + 1 < scalars.count, scalars[index + 1] == "%" {
                result.append("%")
                index += 2
                continue
            }
            var end = index + 1
            while end < scalars.count, ("0"..."9").contains(scalars[end]) || scalars[end] == "$" { end += 1 }
            guard end < scalars.count, scalars[end] == "s" || scalars[end] == "d",
                let specifier = formatSpecifier(String(String.UnicodeScalarView(scalars[index...end])))
            else {
                throw DecodeError(offset: offset, message: "a literal % in a string with placeholders is written %%")
            }
            result.append(contentsOf: ("{" + (try name(at: specifier, names, offset: offset)) + "}").unicodeScalars)
            index = end + 1
        }
        return String(result)
    }
}

/// aapt2's escape pass, with its state carried across pieces (an `<xliff:g>` does not reset it).
private struct UnescapeState {
    var quoted = false
    var lastWasSpace = false

    mutating func unescape(_ text: String, offset: Int) throws(AndroidEscaping.DecodeError) -> String {
        var result = String.UnicodeScalarView()
        var scalars = Array(text.unicodeScalars)[...]
        while let scalar = scalars.popFirst() {
            if !quoted, AndroidEscaping.isASCIIWhitespace(scalar) {
                if !lastWasSpace { result.append(" ") }
                lastWasSpace = true
                continue
            }
            lastWasSpace = false
            switch scalar {
            case "\\":
                guard let next = scalars.popFirst() else {
                    throw AndroidEscaping.DecodeError(offset: offset, message: "a backslash ends the string")
                }
                switch next {
                case "n": result.append("\n")
                case "t": result.append("\t")
                case "#", "@", "?", "\"", "'", "\\": result.append(next)
                case "u":
                    let hex = String(String.UnicodeScalarView(scalars.prefix(4)))
                    guard hex.count == 4, hex.unicodeScalars.allSatisfy(\.properties.isASCIIHexDigit),
                        let value = UInt32(hex, radix: 16), let decoded = Unicode.Scalar(value)
                    else {
                        throw AndroidEscaping.DecodeError(
                            offset: offset,
                            message: "invalid unicode escape \\u\(hex): exactly four hex digits"
                        )
                    }
                    scalars = scalars.dropFirst(4)
                    result.append(decoded)
                default:
                    // aapt2 drops the backslash silently (`\r` becomes `r`); an import refuses instead.
                    throw AndroidEscaping.DecodeError(
                        offset: offset,
                        message: "\\\(next) is not an Android escape (\\n \\t \\' \\\" \\\\ \\@ \\? \\# \\uXXXX)"
                    )
                }
            case "\"":
                quoted.toggle()
            case "'" where !quoted:
                throw AndroidEscaping.DecodeError(offset: offset, message: "unescaped apostrophe: write \\'")
            default:
                result.append(scalar)
            }
        }
        return String(result)
    }
}
