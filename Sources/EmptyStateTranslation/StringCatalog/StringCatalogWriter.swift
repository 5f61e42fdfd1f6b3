import JSONCoding

/// A String Catalog (`.xcstrings`, Xcode 15+): every locale in one JSON file, laid out as Xcode
/// writes it (two-space indent, `" : "`, members sorted, no newline at the end), so a catalogue
/// Xcode opens and saves again changes as little as possible.
///
/// ```json
/// "verifyIdentity/title" : {
///   "comment" : "Template verifyIdentity, category \"auth\"\ntitle, at most 2 lines (60 columns)…",
///   "extractionState" : "manual",
///   "localizations" : {
///     "en" : { "stringUnit" : { "state" : "translated", "value" : "Sign in with {provider}" } },
///     "fr" : { "stringUnit" : { "state" : "translated", "value" : "Connectez-vous avec {provider}" } }
/// ```
/// - The key is the unit id; the source locale's value is the source text, so the file says what
///   was translated from (and an import can tell a source that changed since).
/// - Placeholders stay `{provider}`, as the API serves them: `EmptyStateClient` fills `{name}`
///   in bundled copy the same way, translators see the name, and a literal `%` needs no
///   escaping. Turning them into `%1$@` would make the catalogue's strings format strings for
///   `String(localized:)`, which nothing here calls.
/// - States: `translated` (also reviewed and final: the catalogue has no review states),
///   `needs_review` for stale, `new` for a draft; a missing translation has no entry, as in Xcode.
/// - Notes are the `comment`, one per line. `extractionState` is `manual`: the keys are not
///   extracted from source code, so Xcode never marks them stale or removes them.
package enum StringCatalogWriter {
    /// - Parameter documents: one per target locale, all with the same source locale.
    package static func write(_ documents: [TranslationDocument]) -> [UInt8] {
        let sourceLocale = documents.first?.sourceLocale ?? "en"
        var entries: [String: Entry] = [:]
        for document in documents.sorted(by: { $0.targetLocale.utf8.lexicographicallyPrecedes($1.targetLocale.utf8) }) {
            for unit in document.units {
                let key = unit.id.description
                var entry = entries[key] ?? Entry(notes: unit.notes)
                if entry.localizations[sourceLocale] == nil, let source = unit.source {
                    entry.localizations[sourceLocale] = ("translated", source)
                }
                if let target = unit.target, document.targetLocale != sourceLocale {
                    entry.localizations[document.targetLocale] = (state(unit.state), target)
                }
                entries[key] = entry
            }
        }

        var out = PrettyJSON()
        out.beginObject()
        out.member("sourceLanguage") { $0.string(sourceLocale) }
        out.member("strings") { out in
            out.beginObject()
            for key in entries.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
                let entry = entries[key]!
                out.member(key) { out in
                    out.beginObject()
                    let comment = entry.notes.joined(separator: "\n")
                    if !comment.isEmpty { out.member("comment") { $0.string(comment) } }
                    out.member("extractionState") { $0.string("manual") }
                    out.member("localizations") { out in
                        out.beginObject()
                        let locales = entry.localizations.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
                        for locale in locales {
                            let (state, value) = entry.localizations[locale]!
                            out.member(locale) { out in
                                out.beginObject()
                                out.member("stringUnit") { out in
                                    out.beginObject()
                                    out.member("state") { $0.string(state) }
                                    out.member("value") { $0.string(value) }
                                    out.endObject()
                                }
                                out.endObject()
                            }
                        }
                        out.endObject()
                    }
                    out.endObject()
                }
            }
            out.endObject()
        }
        out.member("version") { $0.string("1.0") }
        out.endObject()
        return out.bytes
    }

    private struct Entry {
        var notes: [String]
        var localizations: [String: (state: String, value: String)] = [:]
    }

    private static func state(_ state: TranslationState) -> String {
        switch state {
        case .missing: return "new"
        case .translated, .reviewed, .final: return "translated"
        case .stale: return "needs_review"
        }
    }
}

/// Xcode's JSON layout: `{`, members on their own lines indented two spaces, `"key" : value`.
struct PrettyJSON {
    private(set) var bytes: [UInt8] = []
    private var depth = 0
    private var needsComma: [Bool] = []

    mutating func beginObject() {
        bytes.append(UInt8(ascii: "{"))
        depth += 1
        needsComma.append(false)
    }

    mutating func endObject() {
        depth -= 1
        needsComma.removeLast()
        newline()
        bytes.append(UInt8(ascii: "}"))
    }

    mutating func member(_ key: String, _ value: (inout PrettyJSON) -> Void) {
        if needsComma[needsComma.count - 1] { bytes.append(UInt8(ascii: ",")) }
        needsComma[needsComma.count - 1] = true
        newline()
        string(key)
        bytes.append(contentsOf: " : ".utf8)
        value(&self)
    }

    mutating func string(_ text: String) {
        var writer = JSONWriter(capacity: text.utf8.count + 2)
        writer.string(text)
        bytes.append(contentsOf: writer.bytes)
    }

    private mutating func newline() {
        bytes.append(0x0A)
        bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 * depth))
    }
}
