import EmptyStateCore
import EmptyStateWeb
import Synchronization

// The HTML representations of a template (EmptyStateWeb's fragment and standalone page), kept
// by its entry like the JSON ones: rendered on first request, shared by later snapshots while
// the template is unchanged, served with the same ETag, gzip, 304 and memo.

extension CatalogueSnapshot {
    /// Which HTML rendering of a template.
    package struct HTMLKind: Hashable, Sendable {
        /// The standalone page rather than the fragment.
        package var page: Bool
        /// 1–6.
        package var headingLevel: Int

        package init(page: Bool, headingLevel: Int) {
            self.page = page
            self.headingLevel = headingLevel
        }
    }

    /// An entry's HTML representations. A dictionary rather than slots like the JSON's: six
    /// heading levels times two kinds per locale would be mostly empty slots in every entry.
    package final class HTMLRepresentations: Sendable {
        private struct Key: Hashable {
            var locale: String
            var kind: HTMLKind
        }

        private let made = Mutex<[Key: Representation]>([:])

        fileprivate func representation(
            locale: String,
            kind: HTMLKind,
            make: () -> Representation
        ) -> Representation {
            let key = Key(locale: locale, kind: kind)
            if let known = made.withLock({ $0[key] }) { return known }
            // Rendered outside the lock; when two threads race, the first one stored wins.
            let rendered = make()
            return made.withLock { made in
                if let known = made[key] { return known }
                made[key] = rendered
                return rendered
            }
        }
    }

    /// What an HTML answer says beside the usual headers: a page that cannot run script or load
    /// anything but the stylesheet and images, even if a string escaped the renderer's escaping.
    package static let htmlHeaders: [(name: String, value: String)] = [
        (
            "Content-Security-Policy",
            "default-src 'none'; style-src 'self'; img-src * data:; base-uri 'none'; form-action 'none'"
        ),
        ("X-Content-Type-Options", "nosniff"),
    ]

    package static let htmlContentType = "text/html; charset=utf-8"

    /// An HTML rendering made for one request (placeholder values), not kept.
    package static func renderHTML(
        _ entry: Entry,
        locale: String,
        kind: HTMLKind,
        parameters: [String: String],
        illustrationBaseURL: String?
    ) -> Representation {
        let copy = TemplateRenderer.copy(of: entry.template, in: locale)
        let options = HTMLOptions(
            headingLevel: kind.headingLevel,
            illustrationBaseURL: illustrationBaseURL,
            experiment: entry.experiment
        )
        let bytes =
            kind.page
            ? HTMLRenderer.page(entry.template, copy: copy, parameters: parameters, options: options)
            : HTMLRenderer.fragment(entry.template, copy: copy, parameters: parameters, options: options)
        return Representation(
            bytes: bytes,
            contentLanguage: copy.locale,
            contentType: htmlContentType,
            extraHeaders: htmlHeaders
        )
    }
}

extension CatalogueSnapshot.Entry {
    /// The HTML fragment or page in `locale` (one of `locales.tags`), rendered now if no request
    /// asked for it before. `illustrationBaseURL` is the process's (`--illustration-base-url`),
    /// the same for every request, so it is not part of the key.
    package func htmlRepresentation(
        locale: String,
        kind: CatalogueSnapshot.HTMLKind,
        illustrationBaseURL: String?
    ) -> CatalogueSnapshot.Representation? {
        guard locales.tags.contains(locale) else { return nil }
        return html.representation(locale: locale, kind: kind) {
            CatalogueSnapshot.renderHTML(
                self,
                locale: locale,
                kind: kind,
                parameters: [:],
                illustrationBaseURL: illustrationBaseURL
            )
        }
    }
}
