import EmptyStateCore
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
/// - A plural string is `variations.plural`, as Xcode writes it: each category of the locale →
///   its own `stringUnit` (`state`, `value`), categories sorted like every other member. The
///   source locale has the source's forms, a target locale its own CLDR categories; every form
///   of a target has the string's state (the plural is one string).
/// - Notes are the `comment`, one per line. `extractionState` is `manual`: the keys are not
///   extracted from source code, so Xcode never marks them stale or removes them.
package enum StringCatalogWriter {
    /// The key of the export record: the one entry that is not a string of the catalogue, marked
    /// `shouldTranslate: false` (Xcode shows it as "Don't Translate"), whose `comment` holds the
    /// export's time. Xcode keeps an entry with `extractionState: manual` whatever it holds, and
    /// keeps comments as written, so the time survives a save in Xcode, wherever it sorts the
    /// entry. No unit id has a space.
    package static let exportKey = "empty-state-service export"

    /// The export record's comment for a time: the time first, as `exportedAt=…`.
    package static func exportComment(_ exportedAt: String) -> String {
        "exportedAt=\(exportedAt) (written by empty-state-service when it exported this file; keep this entry: an import compares this time with later edits of the catalogue). Not a string to translate."
    }

    /// - Parameter documents: one per target locale, all with the same source locale.
    package static func write(_ documents: [TranslationDocument]) -> [UInt8] {
        let sourceLocale = documents.first?.sourceLocale ?? "en"
        var entries: [String: Entry] = [:]
        for document in documents.sorted(by: { $0.targetLocale.utf8.lexicographicallyPrecedes($1.targetLocale.utf8) }) {
            for unit in document.units {
                let key = unit.id.description
                var entry = entries[key] ?? Entry(notes: unit.notes)
                if entry.localizations[sourceLocale] == nil, let source = unit.source {
                    entry.localizations[sourceLocale] = Localization(
                        state: "translated",
                        value: source,
                        plural: unit.sourcePlural
                    )
                }
                if let target = unit.target, document.targetLocale != sourceLocale {
                    entry.localizations[document.targetLocale] = Localization(
                        state: state(unit.state),
                        value: target,
                        plural: unit.targetPlural
                    )
                }
                entries[key] = entry
            }
        }

        var out = PrettyJSON()
        out.beginObject()
        out.member("sourceLanguage") { $0.string(sourceLocale) }
        out.member("strings") { out in
            out.beginObject()
            var keys = Array(entries.keys)
            let exportedAt = documents.lazy.compactMap(\.exportedAt).first
            if exportedAt != nil { keys.append(exportKey) }
            for key in keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
                guard let entry = entries[key] else {
                    out.member(key) { out in
                        out.beginObject()
                        out.member("comment") { $0.string(exportComment(exportedAt ?? "")) }
                        out.member("extractionState") { $0.string("manual") }
                        out.member("shouldTranslate") { $0.raw("false") }
                        out.endObject()
                    }
                    continue
                }
                out.member(key) { out in
                    out.beginObject()
                    let comment = entry.notes.joined(separator: "\n")
                    if !comment.isEmpty { out.member("comment") { $0.string(comment) } }
                    out.member("extractionState") { $0.string("manual") }
                    out.member("localizations") { out in
                        out.beginObject()
                        let locales = entry.localizations.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
                        for locale in locales {
                            out.member(locale) { out in entry.localizations[locale]!.write(into: &out) }
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
        var localizations: [String: Localization] = [:]
    }

    /// One locale of a string: its `stringUnit`, or for a plural string its
    /// `variations.plural` (a `stringUnit` per category, in sorted order as Xcode writes them).
    private struct Localization {
        var state: String
        var value: String
        var plural: PluralText?

        func write(into out: inout PrettyJSON) {
            out.beginObject()
            guard let plural else {
                out.member("stringUnit") { Self.stringUnit(state, value, into: &$0) }
                out.endObject()
                return
            }
            out.member("variations") { out in
                out.beginObject()
                out.member("plural") { out in
                    out.beginObject()
                    let forms = plural.orderedForms.sorted {
                        $0.category.rawValue.utf8.lexicographicallyPrecedes($1.category.rawValue.utf8)
                    }
                    for form in forms {
                        out.member(form.category.rawValue) { out in
                            out.beginObject()
                            out.member("stringUnit") { Self.stringUnit(state, form.text, into: &$0) }
                            out.endObject()
                        }
                    }
                    out.endObject()
                }
                out.endObject()
            }
            out.endObject()
        }

        private static func stringUnit(_ state: String, _ value: String, into out: inout PrettyJSON) {
            out.beginObject()
            out.member("state") { $0.string(state) }
            out.member("value") { $0.string(value) }
            out.endObject()
        }
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

    /// A literal JSON value as it is (`false`).
    mutating func raw(_ text: String) {
        bytes.append(contentsOf: text.utf8)
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
