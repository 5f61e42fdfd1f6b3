/// A well-formed BCP 47 language tag (RFC 5646 `langtag`), kept in canonical case:
/// `pt-BR`, `zh-Hant-TW`, `sr-Latn`, `es-419`.
package struct LocaleTag: Sendable, Hashable, CustomStringConvertible {
    /// The subtags in canonical case.
    package let subtags: [String]

    /// The canonical text, computed once: it is a dictionary key on the request path.
    package let description: String
    /// The primary language subtag, lowercased.
    package var language: String { subtags[0] }
    /// The script subtag (`Arab`, `Latn`) when there is one.
    /// Only the subtag in script position counts (after the language and any extlangs): a
    /// four-letter extension or private-use subtag (`ar-u-nu-latn`) is not a script.
    package var script: String? {
        var rest = subtags.dropFirst()
        while let next = rest.first, next.count == 3, next.allSatisfy(\.isLetter) { rest = rest.dropFirst() }
        guard let candidate = rest.first, candidate.count == 4, candidate.allSatisfy(\.isLetter) else { return nil }
        return candidate
    }

    /// The region subtag (`BR`, `419`) when there is one: the subtag in region position (after the
    /// language, extlangs and script), never an extension's.
    package var region: String? {
        var rest = subtags.dropFirst()
        while let next = rest.first, next.count == 3, next.allSatisfy(\.isLetter) { rest = rest.dropFirst() }
        if let next = rest.first, next.count == 4, next.allSatisfy(\.isLetter) { rest = rest.dropFirst() }
        guard let candidate = rest.first,
            (candidate.count == 2 && candidate.allSatisfy(\.isLetter))
                || (candidate.count == 3 && candidate.allSatisfy(\.isNumber))
        else { return nil }
        return candidate
    }

    /// Parses a tag; `nil` when it is not well-formed. `_` is accepted as a separator.
    package init?(_ text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false).flatMap {
            $0.split(separator: "_", omittingEmptySubsequences: false)
        }
        guard !parts.isEmpty, text.utf8.count <= 64 else { return nil }
        var canonical: [String] = []
        var index = 0
        func isAlpha(_ s: Substring) -> Bool { s.utf8.allSatisfy { ($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x7A } }
        func isDigits(_ s: Substring) -> Bool { s.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }
        func isAlnum(_ s: Substring) -> Bool {
            s.utf8.allSatisfy { (($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) }
        }

        // language: 2–3 letters (with up to three extlang subtags) or 5–8 letters.
        let language = parts[0]
        guard isAlpha(language), (2...3).contains(language.count) || (5...8).contains(language.count) else {
            return nil
        }
        canonical.append(language.lowercased())
        index = 1
        if language.count <= 3 {
            var extlangs = 0
            while index < parts.count, extlangs < 3, parts[index].count == 3, isAlpha(parts[index]) {
                canonical.append(parts[index].lowercased())
                index += 1
                extlangs += 1
            }
        }
        // script
        if index < parts.count, parts[index].count == 4, isAlpha(parts[index]) {
            canonical.append(parts[index].prefix(1).uppercased() + parts[index].dropFirst().lowercased())
            index += 1
        }
        // region
        if index < parts.count,
            (parts[index].count == 2 && isAlpha(parts[index])) || (parts[index].count == 3 && isDigits(parts[index]))
        {
            canonical.append(parts[index].uppercased())
            index += 1
        }
        // variants
        while index < parts.count, isAlnum(parts[index]),
            (5...8).contains(parts[index].count) || (parts[index].count == 4 && isDigits(parts[index].prefix(1)))
        {
            canonical.append(parts[index].lowercased())
            index += 1
        }
        // extensions and private use
        while index < parts.count {
            let singleton = parts[index]
            guard singleton.count == 1, isAlnum(singleton) else { return nil }
            let isPrivateUse = singleton.lowercased() == "x"
            canonical.append(singleton.lowercased())
            index += 1
            var count = 0
            while index < parts.count, isAlnum(parts[index]),
                isPrivateUse ? (1...8).contains(parts[index].count) : (2...8).contains(parts[index].count)
            {
                canonical.append(parts[index].lowercased())
                index += 1
                count += 1
            }
            guard count > 0 else { return nil }
        }
        subtags = canonical
        description = canonical.joined(separator: "-")
    }

    /// The RFC 4647 §3.4 lookup chain: the tag, then shorter and shorter prefixes of it
    /// (`zh-Hant-TW` → `zh-Hant` → `zh`), never ending on a singleton.
    package var lookupChain: [String] {
        var chain: [String] = []
        var remaining = subtags
        while !remaining.isEmpty {
            chain.append(remaining.joined(separator: "-"))
            remaining.removeLast()
            // A one-character private-use subtag (`x-a-b`) leaves another single character behind.
            while remaining.count >= 2, remaining.last!.count == 1 { remaining.removeLast() }
        }
        return chain
    }

    /// Whether text in this locale runs right to left (Arabic, Hebrew, Persian, Urdu and others,
    /// or any tag with an RTL script), including the `ar-XB` pseudo-locale.
    package var isRightToLeft: Bool {
        if let script { return Self.rightToLeftScripts.contains(script) }
        return Self.rightToLeftLanguages.contains(language)
    }

    private static let rightToLeftLanguages: Set<String> = [
        "ar", "he", "iw", "fa", "ur", "ps", "sd", "yi", "ckb", "dv", "ug", "ku",
    ]
    private static let rightToLeftScripts: Set<String> = ["Arab", "Hebr", "Thaa", "Syrc", "Nkoo", "Adlm", "Rohg"]
}
