/// Pseudo-locales generated from English copy for layout testing, as Android defines them:
/// `en-XA` (accented, about 40 % longer, bracketed) and `ar-XB` (mirrored, right to left).
package enum PseudoLocale {
    package static let accented = "en-XA"
    package static let bidi = "ar-XB"
    package static let all = [accented, bidi]

    package static func isPseudo(_ tag: String) -> Bool {
        tag.caseInsensitiveEquals(accented) || tag.caseInsensitiveEquals(bidi)
    }

    /// Generates the pseudo-locale's strings from `source` (English, or the default locale).
    package static func strings(_ tag: String, from source: [String: String]) -> [String: String] {
        source.mapValues { tag == accented ? accent($0) : mirror($0) }
    }

    private static let accentMap: [Character: Character] = {
        let plain = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")
        let marked = Array("åƀçðéƒĝĥîĵķļɱñöþǫŕšţûṽŵẋýžÅƁÇÐÉƑĜĤÎĴĶĻṀÑÖÞǪŔŠŢÛṼŴẊÝŽ")
        return Dictionary(uniqueKeysWithValues: zip(plain, marked))
    }()

    private static let padding = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]

    /// `Try again` → `[Ţŕý åĝåîñ one two]`: every letter accented (placeholders kept), padded to
    /// about 140 % of the original length, in brackets so clipping shows.
    static func accent(_ text: String) -> String {
        var result = ""
        forEachSegment(text) { segment, isPlaceholder in
            result += isPlaceholder ? segment : String(segment.map { accentMap[$0] ?? $0 })
        }
        let target = Int((Double(text.count) * 1.4).rounded(.up))
        var index = 0
        while result.count < target {
            result += " " + padding[index % padding.count]
            index += 1
        }
        return "[" + result + "]"
    }

    /// Each word wrapped in RIGHT-TO-LEFT MARK + RIGHT-TO-LEFT OVERRIDE … POP DIRECTIONAL
    /// FORMATTING + RIGHT-TO-LEFT MARK, so English text renders mirrored in an RTL layout.
    static func mirror(_ text: String) -> String {
        var result = ""
        forEachSegment(text) { segment, isPlaceholder in
            if isPlaceholder {
                result += segment
                return
            }
            var word = ""
            for character in segment {
                if character == " " {
                    if !word.isEmpty { result += "\u{200F}\u{202E}" + word + "\u{202C}\u{200F}" }
                    word = ""
                    result.append(character)
                } else {
                    word.append(character)
                }
            }
            if !word.isEmpty { result += "\u{200F}\u{202E}" + word + "\u{202C}\u{200F}" }
        }
        return result
    }

    /// Splits `text` into literal runs and `{placeholder}` runs, left to right in one pass.
    private static func forEachSegment(_ text: String, _ body: (String, Bool) -> Void) {
        var literalStart = text.startIndex
        var index = text.startIndex
        while let open = text[index...].firstIndex(of: "{") {
            guard let close = text[open...].firstIndex(of: "}") else { break }
            if CopyRules.isPlaceholderName(text[text.index(after: open)..<close]) {
                if literalStart < open { body(String(text[literalStart..<open]), false) }
                body(String(text[open...close]), true)
                literalStart = text.index(after: close)
                index = literalStart
            } else {
                index = text.index(after: open)
            }
        }
        if literalStart < text.endIndex { body(String(text[literalStart...]), false) }
    }
}

extension String {
    func caseInsensitiveEquals(_ other: String) -> Bool {
        utf8.count == other.utf8.count && lowercased() == other.lowercased()
    }
}
