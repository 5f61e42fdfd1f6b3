/// One entry of an `Accept-Language` header.
package struct LanguagePreference: Sendable, Equatable {
    /// `nil` for the `*` wildcard.
    package var tag: LocaleTag?
    package var quality: Double

    package init(tag: LocaleTag?, quality: Double) {
        self.tag = tag
        self.quality = quality
    }
}

/// Locale negotiation: from what the client asked for to a locale the catalogue has.
package enum LocaleNegotiation {
    /// Parses an `Accept-Language` value (RFC 9110 §12.5.4) into preferences, most wanted first.
    /// Ranges that are not well-formed and ranges with `q=0` are dropped; equal weights keep
    /// the client's order.
    package static func parseAcceptLanguage(_ header: String) -> [LanguagePreference] {
        var preferences: [(LanguagePreference, Int)] = []
        for (position, item) in header.split(separator: ",").enumerated() {
            let fields = item.split(separator: ";")
            guard let rangeField = fields.first else { continue }
            let range = rangeField.trimmingWhitespace()
            var quality = 1.0
            var valid = true
            for parameter in fields.dropFirst() {
                let pair = parameter.trimmingWhitespace().split(separator: "=", maxSplits: 1)
                guard pair.count == 2, pair[0].lowercased() == "q", let value = Double(pair[1].trimmingWhitespace()),
                    (0...1).contains(value)
                else {
                    valid = false
                    break
                }
                quality = value
            }
            guard valid, quality > 0 else { continue }
            if range == "*" {
                preferences.append((LanguagePreference(tag: nil, quality: quality), position))
            } else if let tag = LocaleTag(String(range)) {
                preferences.append((LanguagePreference(tag: tag, quality: quality), position))
            }
            if preferences.count >= 32 { break }
        }
        return preferences.sorted { $0.0.quality != $1.0.quality ? $0.0.quality > $1.0.quality : $0.1 < $1.1 }.map(\.0)
    }
}

/// The locales one template (or the whole catalogue) can be served in, indexed for negotiation.
package struct LocaleSet: Sendable {
    /// Canonical tags, in the order given.
    package let tags: [String]
    /// Where every request ends when nothing it asked for is here.
    package let fallback: String
    private let byLowercased: [String: String]
    /// Canonical tag → itself: the common exact hit, without building the lookup chain.
    private let byCanonical: [String: String]
    /// For a bare language (`pt`), the first regional form present (`pt-BR`), pseudo-locales excluded.
    private let byLanguage: [String: String]

    package init(tags: [String], fallback: String) {
        self.tags = tags
        self.fallback = fallback
        var byLowercased: [String: String] = [:]
        var byLanguage: [String: String] = [:]
        for tag in tags {
            byLowercased[tag.lowercased()] = tag
            if !PseudoLocale.isPseudo(tag), let parsed = LocaleTag(tag), byLanguage[parsed.language] == nil {
                byLanguage[parsed.language] = tag
            }
        }
        self.byLowercased = byLowercased
        byCanonical = Dictionary(tags.map { ($0, $0) }, uniquingKeysWith: { first, _ in first })
        self.byLanguage = byLanguage
    }

    /// Resolves the client's preferences: for each in turn its lookup chain (`pt-BR` → `pt`),
    /// then any locale of the same language; when none matches, `fallback`.
    package func resolve(_ preferences: [LanguagePreference]) -> String {
        for preference in preferences {
            guard let tag = preference.tag else { continue }
            if let hit = resolve(tag) { return hit }
        }
        return fallback
    }

    /// Resolves a single tag, or `nil` when this set has nothing for it.
    package func resolve(_ tag: LocaleTag) -> String? {
        if let hit = byCanonical[tag.description] { return hit }
        for candidate in tag.lookupChain {
            if let hit = byLowercased[candidate.lowercased()] { return hit }
        }
        return byLanguage[tag.language]
    }

    package func contains(_ tag: String) -> Bool { byLowercased[tag.lowercased()] != nil }

    /// Parsed tags for the spellings of these locales a client is likely to send (`pt-BR`,
    /// `pt-br`, `pt_BR`), so the request path can skip parsing them.
    package var commonSpellings: [String: LocaleTag] {
        var spellings: [String: LocaleTag] = [:]
        for text in tags {
            guard let tag = LocaleTag(text) else { continue }
            for spelling in [text, text.lowercased(), text.replacingHyphensWithUnderscores] {
                spellings[spelling] = tag
            }
            if let language = LocaleTag(tag.language) { spellings[tag.language] = language }
        }
        return spellings
    }
}

extension String {
    fileprivate var replacingHyphensWithUnderscores: String {
        String(map { $0 == "-" ? "_" : $0 })
    }
}

extension Substring {
    func trimmingWhitespace() -> Substring {
        var result = self
        while let first = result.first, first == " " || first == "\t" { result = result.dropFirst() }
        while let last = result.last, last == " " || last == "\t" { result = result.dropLast() }
        return result
    }
}
