import EmptyStateCore
import HTTPServer

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
    /// By id and by alias.
    private let entries: [String: Entry]
    /// The locales the bundle can be served in: every locale of any template.
    package let bundleLocales: LocaleSet
    private let bundles: [String: [Representation]]
    /// Pre-parsed spellings of every catalogue locale, for `ClientQuery.parse`.
    package let knownLocaleTags: [String: LocaleTag]

    package init(catalogue: Catalogue) {
        self.catalogue = catalogue
        var entries: [String: Entry] = [:]
        for template in catalogue.templates {
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
            let entry = Entry(template: template, locales: locales, representations: representations)
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
                    bytes: TemplateRenderer.renderBundle(catalogue, locale: locale, platform: platform),
                    contentLanguage: locale
                )
            }
        }
        self.bundles = bundles
        knownLocaleTags = bundleLocales.commonSpellings
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
