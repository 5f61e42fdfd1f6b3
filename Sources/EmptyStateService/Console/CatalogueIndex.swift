import EmptyStateCore
import EmptyStateWeb
import JSONCoding
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// What the console's catalogue screen searches and filters, made from a catalogue snapshot:
/// per template, its id, aliases and every string of every locale lowercased into one byte
/// string, and its lint warnings (made when first asked for).
///
/// A search is a `strstr` per term over those bytes (glibc's, vectorized), so 10,000 templates
/// (about 15 MB of text) answer in milliseconds, debug build or not; the index of a snapshot is made once and the next
/// snapshot's reuses every template that did not change (a publication costs its template).
final class CatalogueIndex: Sendable {
    /// One template of the index.
    final class Record: Sendable {
        let entry: CatalogueSnapshot.Entry
        /// The searchable fields, lowercased, each followed by U+0001 (removed from the fields: no
        /// term holds one, so no match spans two fields), then a NUL.
        let text: [CChar]
        private let lints = Mutex<[ValidationIssue]?>(nil)

        init(_ entry: CatalogueSnapshot.Entry) {
            self.entry = entry
            var text: [CChar] = []
            for (_, value) in Self.fields(of: entry.template) {
                for byte in value.lowercased().utf8 where byte > 1 { text.append(CChar(bitPattern: byte)) }
                text.append(1)
            }
            text.append(0)
            self.text = text
        }

        /// Every searchable field, with the JSON pointer it is at: the id, the aliases, then each
        /// locale's strings (the default locale first, keys in order).
        static func fields(of template: Template) -> [(pointer: String, value: String)] {
            var fields: [(String, String)] = [("/id", template.id)]
            for (index, alias) in template.aliases.enumerated() { fields.append(("/aliases/\(index)", alias)) }
            let locales = template.strings.sorted { a, b in
                a.locale == template.defaultLocale || (b.locale != template.defaultLocale && a.locale < b.locale)
            }
            for (locale, values) in locales {
                for key in values.keys.sorted() {
                    fields.append(("/strings/" + jsonPointerToken(locale) + "/" + jsonPointerToken(key), values[key]!))
                }
            }
            return fields
        }

        /// Whether every term (lowercased, non-empty, NUL-terminated) occurs in the text.
        func matches(_ terms: [[CChar]]) -> Bool {
            text.withUnsafeBufferPointer { haystack in
                terms.allSatisfy { term in
                    term.withUnsafeBufferPointer { needle in strstr(haystack.baseAddress!, needle.baseAddress!) != nil }
                }
            }
        }

        /// The first field that holds `term`, to show where a search matched.
        func firstField(holding term: String) -> (pointer: String, value: String)? {
            Self.fields(of: entry.template).first { $0.value.lowercased().contains(term) }
        }

        /// Warnings about a template that clients are served all the same (`Lint`); worked out
        /// on first request and kept.
        var lint: [ValidationIssue] {
            lints.withLock { cached in
                if let cached { return cached }
                let made = TemplateLint.warnings(for: entry.template, icons: IconSet.lucide)
                cached = made
                return made
            }
        }
    }

    let snapshot: CatalogueSnapshot
    /// In id order.
    let records: [Record]
    private let byID: [String: Record]
    /// The locales of the catalogue (no pseudo-locales), first seen first.
    let locales: [String]

    init(_ snapshot: CatalogueSnapshot, reusing previous: CatalogueIndex?) {
        self.snapshot = snapshot
        var records: [Record] = []
        var byID: [String: Record] = [:]
        for entry in snapshot.entriesInOrder {
            let record: Record
            if let old = previous?.byID[entry.template.id], old.entry === entry {
                record = old
            } else {
                record = Record(entry)
            }
            records.append(record)
            byID[entry.template.id] = record
        }
        self.records = records
        self.byID = byID
        locales = snapshot.locales.filter { !PseudoLocale.isPseudo($0) }
    }

    /// What a catalogue query asks for.
    struct Query {
        var text = ""
        var category: Template.Category?
        var missingLocale: String?
        var lintOnly = false
    }

    /// The records `query` selects, in id order.
    func select(_ query: Query) -> [Record] {
        let terms = Self.terms(query.text).map { term in term.utf8.filter { $0 > 1 }.map { CChar(bitPattern: $0) } + [0]
        }
        return records.filter { record in
            let template = record.entry.template
            if let category = query.category, template.category != category { return false }
            if let locale = query.missingLocale, template.strings(for: locale) != nil { return false }
            if !terms.isEmpty, !record.matches(terms) { return false }
            if query.lintOnly, record.lint.isEmpty { return false }
            return true
        }
    }

    /// The search terms of `text`: its words, lowercased.
    static func terms(_ text: String) -> [String] {
        text.lowercased().split(whereSeparator: { $0.isWhitespace || $0 == "\u{1}" }).map(String.init)
    }
}

/// The console's index of the current snapshot, remade (incrementally) when the snapshot changes.
final class CatalogueIndexCache: Sendable {
    private let current = Mutex<CatalogueIndex?>(nil)

    /// The index of `snapshot`. Concurrent first requests wait for one build.
    func index(of snapshot: CatalogueSnapshot) -> CatalogueIndex {
        current.withLock { cached in
            if let cached, cached.snapshot === snapshot { return cached }
            let made = CatalogueIndex(snapshot, reusing: cached)
            cached = made
            return made
        }
    }
}
