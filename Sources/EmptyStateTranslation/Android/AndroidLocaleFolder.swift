import EmptyStateCore

/// Android resource folders for BCP 47 tags, and back: `fr` ↔ `values-fr`, `pt-BR` ↔
/// `values-pt-rBR`, `sr-Latn` ↔ `values-b+sr+Latn`.
///
/// The legacy form (`values-ll` or `values-ll-rRR`) works on every Android version, so it is
/// used whenever the tag fits it: a language and at most a two-letter region. Scripts, numeric
/// regions (`es-419`) and variants need the BCP 47 form `b+…` (Android 7+).
package enum AndroidLocaleFolder {
    package static func folder(for locale: String) -> String {
        guard let tag = LocaleTag(locale) else { return "values-b+" + locale.replacingHyphens() }
        let subtags = tag.subtags
        let legacy =
            subtags[0].count <= 3
            && (subtags.count == 1
                || (subtags.count == 2 && subtags[1].count == 2 && subtags[1].allSatisfy(\.isLetter)))
        if legacy {
            return "values-" + subtags[0] + (subtags.count == 2 ? "-r" + subtags[1] : "")
        }
        return "values-b+" + subtags.joined(separator: "+")
    }

    /// The canonical tag of a `values-…` folder; `nil` for `values` itself (the default
    /// resources) or a folder that is not only a locale (`values-night`, `values-fr-land`).
    package static func locale(forFolder folder: String) -> String? {
        guard folder.hasPrefix("values-") else { return nil }
        let qualifier = folder.dropFirst("values-".count)
        if qualifier.hasPrefix("b+") {
            return LocaleTag(qualifier.dropFirst(2).split(separator: "+").joined(separator: "-"))?.description
        }
        let parts = qualifier.split(separator: "-", omittingEmptySubsequences: false)
        guard let language = parts.first, (2...3).contains(language.count), language.allSatisfy(\.isLetter) else {
            return nil
        }
        switch parts.count {
        case 1:
            return LocaleTag(String(language))?.description
        case 2 where parts[1].count == 3 && parts[1].hasPrefix("r"):
            return LocaleTag(language + "-" + parts[1].dropFirst())?.description
        default:
            return nil
        }
    }
}

extension String {
    fileprivate func replacingHyphens() -> String { split(separator: "-").joined(separator: "+") }
}
