import EmptyStateCore
import EmptyStateWeb
import JSONCoding
import Synchronization

// One template in a snapshot, with its representations rendered on first request.

extension CatalogueSnapshot {
    /// One template, its revision, and its representations by locale and platform, rendered on
    /// first request. A class: snapshots share it while the template is unchanged, and the
    /// request path passes it around without retaining each field.
    package final class Entry: Sendable {
        package let template: Template
        /// The store revision (0 when served straight from files).
        package let revision: Int
        /// When the revision was written and by whom (empty when served straight from files):
        /// the console's catalogue lists them without reading the store.
        package let updatedAt: String
        package let updatedBy: String
        package let locales: LocaleSet
        /// The experiment and variant this entry's copy is (a variant entry of a running
        /// experiment, `CatalogueSnapshot.ServedExperiment`); `nil` for the template as it is.
        package let experiment: ExperimentMark?
        /// The digest of the template's document, summed into the bundles' ETags.
        let digest: ContentDigest
        /// `locales.tags.count × Platform.allCases.count` slots, filled on first request.
        private let rendered: Mutex<[Representation?]>
        /// The HTML fragments and pages, by locale and heading level, rendered on first request
        /// (`htmlRepresentation`).
        let html = HTMLRepresentations()

        init(
            template: Template,
            revision: Int,
            locales: LocaleSet,
            updatedAt: String = "",
            updatedBy: String = "",
            experiment: ExperimentMark? = nil
        ) {
            self.template = template
            self.experiment = experiment
            self.revision = revision
            self.updatedAt = updatedAt
            self.updatedBy = updatedBy
            self.locales = locales
            var writer = JSONWriter(capacity: 2048)
            writer.value(template.document)
            digest = ContentDigest(writer.bytes)
            rendered = Mutex(Array(repeating: nil, count: locales.tags.count * Platform.allCases.count))
        }

        /// The representation in `locale` (one of `locales.tags`) for `platform`, rendered now
        /// if no request asked for it before.
        package func representation(locale: String, platform: Platform) -> Representation? {
            guard let index = locales.tags.firstIndex(of: locale) else { return nil }
            let slot = index * Platform.allCases.count + platform.index
            return rendered.withLock { slots in
                if let made = slots[slot] { return made }
                let copy = TemplateRenderer.copy(of: template, in: locale)
                let made = Representation(
                    bytes: TemplateRenderer.render(
                        template,
                        copy: copy,
                        platform: platform,
                        revision: revision,
                        icons: IconSet.lucide,
                        experiment: experiment
                    ),
                    contentLanguage: copy.locale
                )
                slots[slot] = made
                return made
            }
        }

        /// How many representations have been rendered so far.
        var renderedCount: Int {
            rendered.withLock { slots in slots.reduce(0) { $0 + ($1 == nil ? 0 : 1) } }
        }
    }
}
