import Foundation

/// The catalogue shipped inside the app, which answers when nothing was ever received (a first
/// launch without network).
///
/// Each file is the body of `GET /v1/templates?locale=<tag>&platform=<platform>` (a
/// `TemplateBundle`), one per locale the app ships, for example:
///
/// ```sh
/// for locale in en fr de; do
///   curl -sf "https://empty-states.example.com/v1/templates?locale=$locale&platform=ios" \
///     -o "EmptyStates/templates-$locale.json"
/// done
/// ```
struct BundledSnapshot: Sendable {
    private struct Bundle: Sendable {
        var locale: String
        var templates: [String: EmptyStateTemplate]
        var aliases: [String: String]
    }

    private let bundles: [Bundle]

    /// Reads the snapshot files; a file that cannot be read or decoded is skipped and reported.
    /// - Returns: the snapshot and the errors of the files skipped.
    static func load(_ urls: [URL]) -> (BundledSnapshot, [(URL, any Error)]) {
        var bundles: [Bundle] = []
        var failures: [(URL, any Error)] = []
        for url in urls {
            do {
                let decoded = try JSONDecoder().decode(
                    Components.Schemas.TemplateBundle.self,
                    from: Data(contentsOf: url)
                )
                var templates: [String: EmptyStateTemplate] = [:]
                for template in decoded.templates {
                    templates[template.id] = EmptyStateTemplate(template, etag: nil)
                }
                bundles.append(
                    Bundle(locale: decoded.locale, templates: templates, aliases: decoded.aliases.additionalProperties)
                )
            } catch {
                failures.append((url, error))
            }
        }
        return (BundledSnapshot(bundles: bundles), failures)
    }

    private init(bundles: [Bundle]) {
        self.bundles = bundles
    }

    /// Whether it holds no template.
    var isEmpty: Bool { bundles.allSatisfy(\.templates.isEmpty) }

    /// The copy of `id` (or an alias) in the first of `locales` the snapshot has: an exact tag,
    /// then the same language, then any bundle.
    func template(_ id: String, locales: [String]) -> EmptyStateTemplate? {
        func language(_ tag: String) -> Substring {
            tag.lowercased().split(whereSeparator: { $0 == "-" || $0 == "_" }).first ?? ""
        }
        var ordered: [Bundle] = []
        for locale in locales {
            ordered += bundles.filter { $0.locale.lowercased() == locale.lowercased() }
        }
        for locale in locales {
            ordered += bundles.filter { language($0.locale) == language(locale) }
        }
        ordered += bundles
        for bundle in ordered {
            let canonical = bundle.aliases[id] ?? id
            if let template = bundle.templates[canonical] { return template }
        }
        return nil
    }
}
