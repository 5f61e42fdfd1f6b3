/// CLDR's language aliases and the scripts regions imply (`LocaleAliases+Data.swift`, generated
/// by `Tools/cldr/generate.py` from the CLDR that PyPI's babel ships): what an imported file's
/// locale is matched with before the catalogue's locales (`LocaleResolution`).
package enum LocaleAliases {
    /// `tag` with its language subtag replaced by CLDR's alias: `fre-FR` → `fr-FR`, `iw` → `he`,
    /// `tl` → `fil`, `sh` → `sr-Latn` (the script only when the tag has none); `nil` when the
    /// language has no alias.
    package static func replacingLanguage(of tag: LocaleTag) -> LocaleTag? {
        guard let replacement = languages[tag.language], let target = LocaleTag(replacement) else { return nil }
        var subtags = Array(tag.subtags.dropFirst())
        // `sh` → `sr-Latn`: the alias's script, unless the tag names its own.
        if let script = target.script, tag.script == nil { subtags.insert(script, at: 0) }
        return LocaleTag(([target.language] + subtags).joined(separator: "-"))
    }

    /// The script `language` is written in within `region` when it is not the language's usual one
    /// (`zh` in `TW`: `Hant`, where `zh` alone is `Hans`); `nil` when the region changes nothing.
    package static func script(of language: String, in region: String) -> String? {
        regionScripts[language + "-" + region]
    }

    private static let languages: [String: String] = table(languageText)
    private static let regionScripts: [String: String] = table(regionScriptText)

    private static func table(_ text: String) -> [String: String] {
        var table: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ")
            table[String(parts[0])] = String(parts[1])
        }
        return table
    }
}

/// Which of the catalogue's locales an imported file's locale is: the same tag, else the same
/// after CLDR's language alias (`fre`, `fra` → `fr`; `iw` → `he`), else the nearest tag the
/// catalogue has on the tag's lookup chain without changing its script (`fr-FR` → `fr` when the
/// catalogue has `fr` and not `fr-FR`; `zh-TW` never becomes `zh`, which is written in another
/// script). A locale found none of these ways is new to the catalogue.
package enum LocaleResolution: Sendable, Equatable {
    /// The catalogue has the tag itself.
    case exact(String)
    /// The tag is the catalogue's locale under CLDR's alias (`fre` → `fr`).
    case alias(from: String, to: String)
    /// The catalogue has a shorter tag of the same language and script (`fr-FR` → `fr`).
    case nearest(from: String, to: String)
    /// The catalogue has no such locale.
    case unknown(String)

    /// The catalogue's locale the file's goes to; `nil` when it has none.
    package var locale: String? {
        switch self {
        case .exact(let locale), .alias(_, let locale), .nearest(_, let locale): return locale
        case .unknown: return nil
        }
    }

    /// - Parameters:
    ///   - tag: the file's locale, in canonical form.
    ///   - locales: the catalogue's locales (canonical tags).
    package static func resolve(_ tag: LocaleTag, among locales: Set<String>) -> LocaleResolution {
        if locales.contains(tag.description) { return .exact(tag.description) }
        let aliased = LocaleAliases.replacingLanguage(of: tag)
        if let aliased, locales.contains(aliased.description) {
            return .alias(from: tag.description, to: aliased.description)
        }
        let subject = aliased ?? tag
        for candidate in subject.lookupChain.dropFirst() where locales.contains(candidate) {
            guard let shorter = LocaleTag(candidate), sameScript(subject, shorter) else { continue }
            return aliased == nil
                ? .nearest(from: tag.description, to: candidate)
                : .alias(from: tag.description, to: candidate)
        }
        return .unknown(tag.description)
    }

    /// Whether dropping subtags from `long` to `short` keeps the script: `short` keeps any script
    /// `long` names, and where `long` names none, its region does not imply another one.
    private static func sameScript(_ long: LocaleTag, _ short: LocaleTag) -> Bool {
        if let script = long.script { return short.script == script }
        guard short.script == nil else { return false }
        guard let region = long.region, short.region == nil else { return true }
        return LocaleAliases.script(of: long.language, in: region) == nil
    }
}
