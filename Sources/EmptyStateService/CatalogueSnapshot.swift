import EmptyStateCore
import HTTPServer
import JSONCoding
import Synchronization

/// Every representation the catalogue can serve without placeholder values, rendered once into
/// bytes and an ETag, so a request is a lookup. Immutable: a new catalogue means a new snapshot.
package final class CatalogueSnapshot: Sendable {
    /// One encoding of a representation.
    package struct Variant: Sendable {
        package let body: SharedBytes
        /// A strong, quoted ETag.
        package let etag: String
    }

    /// One representation: identity bytes, and gzip bytes made on the first request that
    /// accepts them (publishing a change then costs no compression) and kept.
    package final class Representation: Sendable {
        package let identity: Variant
        package let contentLanguage: String
        /// Known without compressing, so a 304 never needs the gzip bytes.
        package let gzipETag: String
        private let compressed: CompressedBody
        private let answers = PreparedAnswers()

        /// Renders nothing; wraps bytes already rendered.
        package init(bytes: [UInt8], contentLanguage: String) {
            let hash = ContentHash.hex(bytes)
            let body = SharedBytes(bytes)
            identity = Variant(body: body, etag: "\"\(hash)\"")
            gzipETag = "\"\(hash)-gzip\""
            compressed = CompressedBody(source: body)
            self.contentLanguage = contentLanguage
        }

        /// The prepared response in `slot` (one of `PreparedAnswers.slotCount` kinds of answer the
        /// caller numbers), made by `make` the first time it is asked for and kept.
        package func prepared(slot: Int, make: () -> PreparedResponse) -> PreparedResponse {
            answers.prepared(slot: slot, make: make)
        }

        /// The gzip variant, or `nil` when compressing does not make the body smaller.
        package var gzip: Variant? {
            compressed.bytes.map { Variant(body: $0, etag: gzipETag) }
        }
    }

    /// The answers a representation gets (200 or 304, identity or gzip, which `Vary`), each made
    /// on first use: most representations are never asked for in most of the ways.
    package final class PreparedAnswers: Sendable {
        package static let slotCount = 8
        private let slots = Mutex<[PreparedResponse?]>(Array(repeating: nil, count: slotCount))

        func prepared(slot: Int, make: () -> PreparedResponse) -> PreparedResponse {
            if let known = slots.withLock({ $0[slot] }) { return known }
            // Made outside the lock; when two threads race, the first one stored wins.
            let made = make()
            return slots.withLock { slots in
                if let known = slots[slot] { return known }
                slots[slot] = made
                return made
            }
        }
    }

    /// Gzip bytes computed once, on first use, by whichever thread asks first.
    private final class CompressedBody: Sendable {
        private let source: SharedBytes
        /// `nil`: not computed yet; `.some(nil)`: compression does not help.
        private let state = Mutex<SharedBytes??>(nil)

        init(source: SharedBytes) {
            self.source = source
        }

        var bytes: SharedBytes? {
            state.withLock { state in
                if let known = state { return known }
                let plain = source.array
                let result = Gzip.compress(plain).flatMap { $0.count < plain.count ? SharedBytes($0) : nil }
                state = .some(result)
                return result
            }
        }
    }

    /// One template and its representations by resolved locale, then platform. A class: the
    /// request path passes it around, and a struct would retain each of its fields on every copy.
    package final class Entry: Sendable {
        package let template: Template
        package let locales: LocaleSet
        let representations: [String: [Representation]]

        init(template: Template, locales: LocaleSet, representations: [String: [Representation]]) {
            self.template = template
            self.locales = locales
            self.representations = representations
        }

        package func representation(locale: String, platform: Platform) -> Representation? {
            representations[locale]?[platform.index]
        }
    }

    package let catalogue: Catalogue
    /// Store revision of each template (empty when served straight from files).
    package let revisions: [String: Int]
    /// By id and by alias.
    private let entries: [String: Entry]
    /// The locales the bundle can be served in: every locale of any template.
    package let bundleLocales: LocaleSet
    private let bundles: [String: [Representation]]
    /// Pre-parsed spellings of every catalogue locale, for `ClientQuery.parse`.
    package let knownLocaleTags: [String: LocaleTag]

    /// Renders every representation of `catalogue`.
    /// - Parameters:
    ///   - revisions: the store revision of each template, to order concurrent publications.
    ///   - previous: a snapshot whose representations are reused for templates that did not
    ///     change, so publishing one change renders one template (and the bundles).
    package init(catalogue: Catalogue, revisions: [String: Int] = [:], reusing previous: CatalogueSnapshot? = nil) {
        self.catalogue = catalogue
        self.revisions = revisions
        var entries: [String: Entry] = [:]
        for template in catalogue.templates {
            let entry: Entry
            if let reused = previous?.entry(named: template.id), reused.template == template {
                entry = reused
            } else {
                let locales = TemplateRenderer.localeSet(of: template)
                var representations: [String: [Representation]] = [:]
                for locale in locales.tags {
                    let copy = TemplateRenderer.copy(of: template, in: locale)
                    representations[locale] = Platform.allCases.map { platform in
                        Representation(
                            bytes: TemplateRenderer.render(template, copy: copy, platform: platform),
                            contentLanguage: copy.locale
                        )
                    }
                }
                entry = Entry(template: template, locales: locales, representations: representations)
            }
            entries[template.id] = entry
            for alias in template.aliases { entries[alias] = entry }
        }
        self.entries = entries

        let fallback = catalogue.locales.contains("en") ? "en" : catalogue.templates.first?.defaultLocale ?? "en"
        bundleLocales = LocaleSet(tags: catalogue.locales, fallback: fallback)
        var bundles: [String: [Representation]] = [:]
        for locale in bundleLocales.tags {
            bundles[locale] = Platform.allCases.map { platform in
                Representation(
                    bytes: Self.assembleBundle(catalogue, entries: entries, locale: locale, platform: platform),
                    contentLanguage: locale
                )
            }
        }
        self.bundles = bundles
        knownLocaleTags = bundleLocales.commonSpellings
    }

    /// The same bytes as `TemplateRenderer.renderBundle`, joined from the templates'
    /// pre-rendered representations instead of rendering them again.
    private static func assembleBundle(
        _ catalogue: Catalogue,
        entries: [String: Entry],
        locale: String,
        platform: Platform
    ) -> [UInt8] {
        TemplateRenderer.writeBundle(catalogue, locale: locale, platform: platform) { template, resolved, writer in
            if let representation = entries[template.id]?.representation(locale: resolved, platform: platform) {
                writer.raw(representation.identity.body.array)
            }
        }
    }

    /// The template with this id or alias.
    package func entry(named name: String) -> Entry? { entries[name] }

    package func bundle(locale: String, platform: Platform) -> Representation? {
        bundles[locale]?[platform.index]
    }

    /// How many representations were pre-rendered (templates × locales × platforms, plus bundles).
    package var representationCount: Int {
        var count = 0
        var seen = Set<String>()
        for entry in entries.values where seen.insert(entry.template.id).inserted {
            count += entry.representations.values.reduce(0) { $0 + $1.count }
        }
        return count + bundles.values.reduce(0) { $0 + $1.count }
    }
}

extension Platform {
    /// Position in `allCases`, for array lookups on the request path.
    var index: Int {
        switch self {
        case .ios: return 0
        case .android: return 1
        case .web: return 2
        }
    }
}
