import EmptyStateCore
import HTTPServer
import JSONCoding

/// Every representation the catalogue can serve without placeholder values, rendered once into
/// bytes and an ETag, so a request is a lookup. Immutable: a new catalogue means a new snapshot.
package final class CatalogueSnapshot: Sendable {
    /// One encoding of a representation.
    package struct Variant: Sendable {
        package let body: SharedBytes
        /// A strong, quoted ETag.
        package let etag: String
    }

    /// One representation: identity bytes, and gzip bytes when they are smaller.
    package struct Representation: Sendable {
        package let identity: Variant
        package let gzip: Variant?
        package let contentLanguage: String

        /// Renders nothing; wraps bytes already rendered (and gzips them when `compress` says so).
        package init(bytes: [UInt8], contentLanguage: String, compress: Bool = true) {
            let hash = ContentHash.hex(bytes)
            identity = Variant(body: SharedBytes(bytes), etag: "\"\(hash)\"")
            if compress, let compressed = Gzip.compress(bytes), compressed.count < bytes.count {
                gzip = Variant(body: SharedBytes(compressed), etag: "\"\(hash)-gzip\"")
            } else {
                gzip = nil
            }
            self.contentLanguage = contentLanguage
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
        var ordered: [Entry] = []
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
            ordered.append(entry)
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
                    bytes: Self.assembleBundle(catalogue, entries: ordered, locale: locale, platform: platform),
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
        entries: [Entry],
        locale: String,
        platform: Platform
    ) -> [UInt8] {
        var writer = JSONWriter(capacity: 16 * 1024)
        let tag = LocaleTag(locale)
        let rightToLeft = PseudoLocale.isPseudo(locale) ? locale == PseudoLocale.bidi : tag?.isRightToLeft ?? false
        writer.beginObject()
        writer.member("locale", locale)
        writer.member("direction", rightToLeft ? "rtl" : "ltr")
        writer.member("platform", platform.rawValue)
        writer.key("templates")
        writer.beginArray()
        for entry in entries {
            let resolved = tag.flatMap { entry.locales.resolve($0) } ?? entry.locales.fallback
            if let representation = entry.representation(locale: resolved, platform: platform) {
                writer.raw(representation.identity.body.array)
            }
        }
        writer.endArray()
        writer.key("aliases")
        writer.beginObject()
        for alias in catalogue.aliases.keys.sorted() { writer.member(alias, catalogue.aliases[alias]!) }
        writer.endObject()
        writer.endObject()
        return writer.bytes
    }

    /// The template with this id or alias.
    package func entry(named name: String) -> Entry? { entries[name] }

    package func bundle(locale: String, platform: Platform) -> Representation? {
        bundles[locale]?[platform.index]
    }

    /// How many representations were pre-rendered (templates and bundles, all encodings).
    package var representationCount: Int {
        var count = 0
        var seen = Set<String>()
        for entry in entries.values where seen.insert(entry.template.id).inserted {
            for variants in entry.representations.values {
                count += variants.reduce(0) { $0 + ($1.gzip == nil ? 1 : 2) }
            }
        }
        for variants in bundles.values { count += variants.reduce(0) { $0 + ($1.gzip == nil ? 1 : 2) } }
        return count
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
