import JSONCoding

/// Which fields differ between two versions of a template, as JSON pointers into the document.
package enum TemplateDiff {
    /// `/category`, `/actions`, `/strings/fr/title`…; `["/"]` when there was no previous version.
    package static func changedFields(from old: Template?, to new: Template) -> [String] {
        guard let old else { return ["/"] }
        var changed: [String] = []
        if old.aliases != new.aliases { changed.append("/aliases") }
        if old.category != new.category { changed.append("/category") }
        if old.style != new.style { changed.append("/style") }
        if old.defaultLocale != new.defaultLocale { changed.append("/defaultLocale") }
        if old.visual != new.visual { changed.append("/visual") }
        if old.actions != new.actions { changed.append("/actions") }
        if old.examples != new.examples { changed.append("/examples") }
        var locales = new.strings.map(\.locale)
        for entry in old.strings where !locales.contains(entry.locale) { locales.append(entry.locale) }
        for locale in locales {
            let before = old.strings(for: locale) ?? [:]
            let after = new.strings(for: locale) ?? [:]
            let keys = Set(before.keys).union(after.keys).sorted()
            for key in keys
            where before[key] != after[key] || old.plural(key, in: locale) != new.plural(key, in: locale) {
                changed.append("/strings/\(jsonPointerToken(locale))/\(jsonPointerToken(key))")
            }
        }
        return changed
    }
}
