import EmptyStateCore

// Bundle assembly: what a snapshot's bundles are joined from, and their representations with
// ETags derived from the content digest, made before any bundle is assembled.

extension CatalogueSnapshot {
    /// What a bundle is assembled from: the entries in id order and the aliases. Shared by the
    /// bundles of one snapshot; it does not reference the snapshot (which owns the bundles).
    final class BundleContents: Sendable {
        let entries: [String: Entry]
        /// Template ids in order.
        let ids: [String]
        /// Alias → canonical id.
        let aliases: [String: String]

        init(entries: [String: Entry], ids: [String], aliases: [String: String]) {
            self.entries = entries
            self.ids = ids
            self.aliases = aliases
        }

        /// The bundle in `locale` for `platform`, joined from the templates' representations;
        /// `substitutes` are served instead of the templates' own entries, by template id.
        func assemble(locale: String, platform: Platform, substitutes: [String: Entry] = [:]) -> [UInt8] {
            TemplateRenderer.writeBundle(
                ids.lazy.map { substitutes[$0] ?? self.entries[$0]! },
                aliases: aliases,
                locale: locale,
                platform: platform,
                capacity: max(16 * 1024, ids.count * 640),
                localeSet: \.locales
            ) { entry, resolved, writer in
                if let representation = entry.representation(locale: resolved, platform: platform) {
                    writer.raw(representation.identity.body.array)
                }
            }
        }
    }

    /// The bundles of `contents`, each assembled on first request; their ETags derive from the
    /// content digest, the template count, the locale and the platform.
    static func bundles(
        of contents: BundleContents,
        locales: [String],
        digest: ContentDigest,
        count: Int
    ) -> [String: [Representation]] {
        var bundles: [String: [Representation]] = [:]
        for locale in locales {
            bundles[locale] = Platform.allCases.map { platform in
                let key = Array("bundle-v1|\(locale)|\(platform.rawValue)|\(count)|\(digest.hex)".utf8)
                return Representation(tag: "b" + ContentDigest(key).hex, contentLanguage: locale) {
                    contents.assemble(locale: locale, platform: platform)
                }
            }
        }
        return bundles
    }
}
