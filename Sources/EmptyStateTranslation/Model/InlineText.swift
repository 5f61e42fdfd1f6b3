import EmptyStateCore

/// A text cut into what a file format writes differently: plain runs, `{name}` placeholders, and
/// characters XML 1.0 cannot hold at all (C0 controls other than tab, LF and CR; U+FFFE, U+FFFF).
///
/// Joining the segments back (`text`) gives the original scalars exactly.
package enum InlineSegment: Sendable, Equatable {
    case text(String)
    case placeholder(String)
    /// A scalar no XML 1.0 document can contain, not even as a character reference.
    case codePoint(Unicode.Scalar)

    /// Cuts `text`, finding placeholders exactly as `CopyRules.placeholders(in:)` does (the same
    /// scan, by `Character`): a `{`, a valid name, a `}`; any other brace is text.
    package static func segments(of text: String) -> [InlineSegment] {
        var result: [InlineSegment] = []
        func appendText(_ run: Substring) {
            var scalars = String.UnicodeScalarView()
            for scalar in run.unicodeScalars {
                if isXMLCharacter(scalar) {
                    scalars.append(scalar)
                    continue
                }
                if !scalars.isEmpty { result.append(.text(String(scalars))) }
                scalars = String.UnicodeScalarView()
                result.append(.codePoint(scalar))
            }
            if !scalars.isEmpty { result.append(.text(String(scalars))) }
        }
        var index = text.startIndex
        var runStart = text.startIndex
        while let open = text[index...].firstIndex(of: "{") {
            guard let close = text[open...].firstIndex(of: "}") else { break }
            let name = text[text.index(after: open)..<close]
            if CopyRules.isPlaceholderName(name) {
                appendText(text[runStart..<open])
                result.append(.placeholder(String(name)))
                index = text.index(after: close)
                runStart = index
            } else {
                index = text.index(after: open)
            }
        }
        appendText(text[runStart...])
        return result
    }

    /// The text the segments stand for.
    package static func text(_ segments: [InlineSegment]) -> String {
        var result = String.UnicodeScalarView()
        for segment in segments {
            switch segment {
            case .text(let text): result.append(contentsOf: text.unicodeScalars)
            case .placeholder(let name): result.append(contentsOf: ("{" + name + "}").unicodeScalars)
            case .codePoint(let scalar): result.append(scalar)
            }
        }
        return String(result)
    }
}

/// XML 1.0's `Char` production: tab, LF, CR, U+0020–U+D7FF, U+E000–U+FFFD, U+10000–U+10FFFF.
package func isXMLCharacter(_ scalar: Unicode.Scalar) -> Bool {
    let value = scalar.value
    return value == 0x09 || value == 0x0A || value == 0x0D || (0x20...0xD7FF).contains(value)
        || (0xE000...0xFFFD).contains(value) || value >= 0x10000
}

/// A placeholder name with a `-2`, `-3`… suffix for its second and later occurrences: inline
/// element ids must be unique within a unit, and `-` cannot occur in a placeholder name.
package struct InlineIDs {
    private var seen: [String: Int] = [:]

    package init() {}

    package mutating func next(_ base: String) -> String {
        let count = (seen[base] ?? 0) + 1
        seen[base] = count
        return count == 1 ? base : base + "-\(count)"
    }

    /// The name an id was made from: the id without its occurrence suffix.
    package static func base(of id: String) -> String {
        guard let dash = id.lastIndex(of: "-"), id[id.index(after: dash)...].allSatisfy(\.isASCIIDigit) else {
            return id
        }
        return String(id[..<dash])
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}

/// `0001`, `FFFE`: the hex spelling of a scalar, at least four digits, uppercase.
package func hex4(_ scalar: Unicode.Scalar) -> String {
    let hex = String(scalar.value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, 4 - hex.count)) + hex
}
