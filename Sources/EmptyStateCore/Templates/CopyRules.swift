/// The copy rules of the design systems: truncation limits, descriptive labels, placeholders.
package enum CopyRules {
    /// Heading: 2 lines at 280 pt.
    package static let titleColumns = 60
    /// Description: 3 lines at 280 pt.
    package static let messageColumns = 140
    package static let labelColumns = 32

    /// Labels that say nothing about what the button does, in the shipped languages, compared
    /// after lowercasing and trimming punctuation.
    package static let vagueLabels: Set<String> = [
        "ok", "okay", "go", "click here", "click", "yes", "no", "submit", "continue", "tap here",
        "aceptar", "vale", "ir", "sí", "si", "no", "haz clic aquí", "haga clic aquí", "enviar",
        "d'accord", "d’accord", "oui", "non", "aller", "cliquez ici", "valider", "soumettre",
        "los", "ja", "nein", "hier klicken", "senden", "absenden", "weiter",
        "sim", "não", "clique aqui", "ir",
        "はい", "いいえ", "ここをクリック", "送信", "了解",
        "موافق", "حسنا", "حسنًا", "نعم", "لا", "انقر هنا", "إرسال", "اذهب",
    ]

    /// Why a string may not hold a control character, as a 422 says it.
    package static let controlCharacterRule =
        "no line breaks, tabs or other control characters (the app wraps and truncates the text itself)"

    /// The first control character in `text`, as `U+000A`: a C0 control (line feed and tab
    /// included), DEL, a C1 control, or the line and paragraph separators U+2028 and U+2029.
    ///
    /// None is allowed in copy. The truncation limits count columns of one run of text that the
    /// app wraps (seed 002: heading 2 lines, description 3, at 280 pt); a line break would make
    /// a message that fits 140 columns take more lines than that, and the design systems put
    /// no break in any of their copy (Warp's "multiline" description is wrapped text). The
    /// other controls have no rendering at all, and would reach logs and terminals.
    package static func firstControlCharacter(in text: String) -> String? {
        // Printable ASCII, almost every text checked, has none: its bytes say so, read in place
        // (iterating `utf8` or `unicodeScalars` decodes each element, which took longer).
        let printableASCII = text.utf8.withContiguousStorageIfAvailable { bytes in
            bytes.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
        }
        if printableASCII == true { return nil }
        guard
            let scalar = text.unicodeScalars.first(where: {
                $0.value < 0x20 || (0x7F...0x9F).contains($0.value) || $0.value == 0x2028 || $0.value == 0x2029
            })
        else { return nil }
        let hex = String(scalar.value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
    }

    /// The length of the longest vague label, in Unicode scalars.
    private static let longestVagueLabel = vagueLabels.map(\.unicodeScalars.count).max() ?? 0

    /// Whether `label` is one of the vague labels.
    package static func isVague(_ label: String) -> Bool {
        // A label longer than every vague one once its ends are trimmed is none of them:
        // lowercasing never shortens a text, and what is trimmed (punctuation, spaces) has no
        // case, so trimming before or after lowercasing is the same. Most labels end here, without
        // lowercasing (which was a sixth of validating a catalogue).
        let scalars = label.unicodeScalars
        guard let first = scalars.firstIndex(where: { !isPunctuationOrSpace($0) }),
            let last = scalars.lastIndex(where: { !isPunctuationOrSpace($0) })
        else { return false }
        let core = scalars[first...last]
        if core.count > longestVagueLabel { return false }
        // Lowercasing only the trimmed part, once (building the trimmed text scalar by scalar,
        // twice reversed, was a third of validating a catalogue).
        return vagueLabels.contains(String(core).lowercased())
    }

    private static func isPunctuationOrSpace(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.value < 0x80 { return asciiPunctuationOrSpace[Int(scalar.value)] }
        return scalar.properties.isWhitespace || scalar.properties.generalCategory.isPunctuation
    }

    /// `isPunctuationOrSpace` of the ASCII scalars, looked up once: most labels are ASCII, and
    /// Unicode's property tables are a search each.
    private static let asciiPunctuationOrSpace: [Bool] = (0..<0x80).map { value in
        let scalar = Unicode.Scalar(UInt8(value))
        return scalar.properties.isWhitespace || scalar.properties.generalCategory.isPunctuation
    }

    /// Display columns: wide and full-width characters (CJK, Hangul, full-width forms) count two,
    /// combining marks none.
    package static func columns(_ text: String) -> Int {
        // Text below U+0300 (ASCII and Latin, most copy) is one column a scalar: count the
        // scalars' first bytes in place. A lead byte from 0xCC on starts U+0300 or above.
        let latin = text.utf8.withContiguousStorageIfAvailable { bytes -> Int? in
            var count = 0
            for byte in bytes {
                if byte >= 0xCC { return nil }
                if byte & 0xC0 != 0x80 { count += 1 }
            }
            return count
        }
        if let latin, let count = latin { return count }
        var total = 0
        for scalar in text.unicodeScalars {
            let value = scalar.value
            // Below U+0300 (the combining diacritical marks) no scalar is a mark or wide: one
            // column each, without the general category lookup, which dominated validating a
            // catalogue (it is every Latin letter).
            if value < 0x300 {
                total += 1
                continue
            }
            let category = scalar.properties.generalCategory
            if category == .nonspacingMark || category == .enclosingMark
                || value == 0x200B || (0x200E...0x200F).contains(value) || (0x202A...0x202E).contains(value)
            {
                continue
            }
            let wide =
                (0x1100...0x115F).contains(value) || (0x2E80...0xA4CF).contains(value)
                || (0xAC00...0xD7A3).contains(value)
                || (0xF900...0xFAFF).contains(value) || (0xFE30...0xFE4F).contains(value)
                || (0xFF00...0xFF60).contains(value)
                || (0xFFE0...0xFFE6).contains(value) || (0x1F300...0x1F64F).contains(value)
                || (0x1F900...0x1F9FF).contains(value)
                || (0x20000...0x3FFFD).contains(value)
            total += wide ? 2 : 1
        }
        return total
    }

    /// The `{name}` placeholders in `text`, in order of appearance, without repeats.
    package static func placeholders(in text: String) -> [String] {
        // Most copy has no brace at all: one byte scan instead of a walk by Character.
        guard text.utf8.contains(UInt8(ascii: "{")) else { return [] }
        var names: [String] = []
        var index = text.startIndex
        while let open = text[index...].firstIndex(of: "{") {
            guard let close = text[open...].firstIndex(of: "}") else { break }
            let name = text[text.index(after: open)..<close]
            if isPlaceholderName(name) {
                if !names.contains(String(name)) { names.append(String(name)) }
                index = text.index(after: close)
            } else {
                index = text.index(after: open)
            }
        }
        return names
    }

    /// Letters, digits and `_`, starting with a letter or `_`, at most 32 characters.
    package static func isPlaceholderName(_ name: Substring) -> Bool {
        guard let first = name.utf8.first, name.utf8.count <= 32 else { return false }
        let isLetter = { (b: UInt8) in (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A }
        guard isLetter(first) || first == UInt8(ascii: "_") else { return false }
        return name.utf8.allSatisfy { isLetter($0) || ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: "_") }
    }

    /// Replaces each `{name}` that has a value; the others stay as written.
    package static func fill(_ text: String, with values: [String: String]) -> String {
        guard !values.isEmpty, text.contains("{") else { return text }
        var result = ""
        var index = text.startIndex
        while let open = text[index...].firstIndex(of: "{") {
            result += text[index..<open]
            guard let close = text[open...].firstIndex(of: "}") else {
                index = open
                break
            }
            let name = text[text.index(after: open)..<close]
            if isPlaceholderName(name), let value = values[String(name)] {
                result += value
                index = text.index(after: close)
            } else {
                result += "{"
                index = text.index(after: open)
            }
        }
        result += text[index...]
        return result
    }
}

extension Unicode.GeneralCategory {
    fileprivate var isPunctuation: Bool {
        switch self {
        case .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation, .initialPunctuation,
            .finalPunctuation, .otherPunctuation:
            return true
        default:
            return false
        }
    }
}
