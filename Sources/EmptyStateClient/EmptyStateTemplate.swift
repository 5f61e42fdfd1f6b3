/// One empty state resolved for the app's locale and platform: what to show, and what was shown.
///
/// The values are the service's `Template` (see `openapi.yaml`), plus the response's `ETag`, so
/// that ``EmptyStateClient/displayed(_:)`` and ``EmptyStateClient/tapped(_:action:)`` can name the
/// copy the user saw.
public struct EmptyStateTemplate: Sendable, Hashable, Codable {
    /// The text direction of ``locale``.
    public enum Direction: String, Sendable, Hashable, Codable {
        case leftToRight = "ltr"
        case rightToLeft = "rtl"
    }

    /// The icon or illustration to show.
    public struct Visual: Sendable, Hashable, Codable {
        /// `icon` (64×64: an SF Symbol on iOS, a Material icon on Android) or `illustration`
        /// (360×230, an asset the app ships).
        public var kind: String
        /// The symbol, icon or asset name.
        public var name: String
        /// The width to draw it at (64 for an icon, 360 for an illustration).
        public var width: Int
        /// The height to draw it at (64 for an icon, 230 for an illustration).
        public var height: Int
        /// Whether assistive technologies should skip the visual; when `false`, ``label`` is set.
        public var isDecorative: Bool
        /// What assistive technologies announce, when the visual is not decorative.
        public var label: String?
    }

    /// The copy experiment a template's copy belongs to, and which variant this install was
    /// served (``EmptyStateClient/displayed(_:)`` and ``EmptyStateClient/tapped(_:action:)``
    /// report them).
    public struct Experiment: Sendable, Hashable, Codable {
        /// The experiment's id.
        public var id: String
        /// The variant's key (control's key for an install in the experiment's control group).
        public var variant: String
    }

    /// A string of the copy with a form per CLDR plural category of ``EmptyStateTemplate/locale``,
    /// left for the app to choose because its number was not sent (see
    /// ``EmptyStateTemplate/counting(_:as:formatted:)``).
    public struct Plural: Sendable, Hashable, Codable {
        /// The placeholder whose number chooses the form: `count` for `{count}`.
        public var variable: String
        /// CLDR category (`zero`, `one`, `two`, `few`, `many`, `other`) → the form; `other` is
        /// always there.
        public var forms: [String: String]
    }

    /// One button of the empty state.
    public struct Action: Sendable, Hashable, Codable, Identifiable {
        /// The action's id within the template; pass it to ``EmptyStateClient/tapped(_:action:)``.
        public var id: String
        /// `primary` (the remedy) or `secondary`.
        public var role: String
        /// `retry`, `navigateBack`, `navigate`, `openURL`, `openStore`, `openSettings`, `signIn`,
        /// `dismiss` or `custom`.
        public var type: String
        /// The localized button label.
        public var label: String
        /// An app route, an `https://` URL, a store URL or an event name, depending on ``type``.
        public var target: String?
    }

    /// The template's canonical id (an alias asked for resolves to it).
    public var id: String
    /// The store revision the copy comes from; `nil` when the service runs without a store.
    public var revision: Int?
    /// The experiment and variant this copy is, when the template is in a running experiment
    /// and ``EmptyStateClientConfiguration/installID`` is in it; `nil` otherwise.
    public var experiment: Experiment?
    /// `firstUse`, `noResults`, `error`, `offline`, `access`, `auth`, `update`, `redirect` or `loading`.
    public var category: String
    /// `default` or `subtle`: which design tokens to use.
    public var style: String
    /// The locale the copy was taken from, after the service's fallback.
    public var locale: String
    /// `rightToLeft` for Arabic, Hebrew and the other RTL locales.
    public var direction: Direction
    /// `ios`, `android` or `web`.
    public var platform: String
    /// The icon or illustration, with its size and accessibility.
    public var visual: Visual
    /// The heading.
    public var title: String
    /// The description, when the template has one.
    public var message: String?
    /// Zero to three actions; the first primary one is the remedy.
    public var actions: [Action]
    /// Names of `{placeholder}`s still in the copy (no value was given for them).
    public var placeholders: [String]
    /// The plural strings whose number was not given: key (`title`, `message`, `visual.label`,
    /// `actions.<id>`) → its forms. Their text above is the general (`other`) form; choose with
    /// ``counting(_:as:formatted:)``. `nil` when there is none.
    public var plurals: [String: Plural]?
    /// The `ETag` of the response this copy came from (`nil` for a bundled snapshot's copy).
    public var etag: String?
    /// The change request this copy previews (it was fetched with a preview token, see
    /// ``EmptyStateClientConfiguration/previewToken``); `nil` for live copy. A preview is never
    /// cached, and showing or tapping it records no event.
    public var previewOf: Int? = nil
}

extension EmptyStateTemplate {
    /// The public value of a generated `Template`.
    init(_ template: Components.Schemas.Template, etag: String?) {
        self.init(
            id: template.id,
            revision: template.revision,
            experiment: template.experiment.map { Experiment(id: $0.id, variant: $0.variant) },
            category: template.category.rawValue,
            style: template.style.rawValue,
            locale: template.locale,
            direction: template.direction == .rtl ? .rightToLeft : .leftToRight,
            platform: template.platform.rawValue,
            visual: Visual(
                kind: template.visual._type.rawValue,
                name: template.visual.name,
                width: template.visual.width,
                height: template.visual.height,
                isDecorative: template.visual.decorative,
                label: template.visual.label
            ),
            title: template.title,
            message: template.message,
            actions: template.actions.map {
                Action(id: $0.id, role: $0.role.rawValue, type: $0._type.rawValue, label: $0.label, target: $0.target)
            },
            placeholders: template.placeholders,
            plurals: template.plurals.map { plurals in
                plurals.additionalProperties.mapValues { plural in
                    let forms: [(String, String?)] = [
                        ("zero", plural.zero), ("one", plural.one), ("two", plural.two), ("few", plural.few),
                        ("many", plural.many), ("other", plural.other),
                    ]
                    return Plural(
                        variable: plural.plural,
                        forms: Dictionary(
                            uniqueKeysWithValues: forms.compactMap { name, text in text.map { (name, $0) } }
                        )
                    )
                }
            },
            etag: etag
        )
    }
}
