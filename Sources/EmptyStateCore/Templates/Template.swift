/// One empty state: what it shows and which actions it offers, with its copy in every locale.
/// A value of this type has passed every rule in `TemplateParser`.
package struct Template: Sendable, Equatable {
    package enum Category: String, Sendable, CaseIterable {
        case firstUse, noResults, error, offline, access, auth, update, redirect, loading
    }

    /// The EastBlue colour token set the client paints with.
    package enum Style: String, Sendable, CaseIterable {
        case `default`, subtle
    }

    /// An icon (64×64, one native symbol per platform) or an illustration (360×230), never both.
    package enum Visual: Sendable, Equatable {
        case icon([Platform: String])
        case illustration(asset: String)
    }

    package struct Action: Sendable, Equatable {
        package enum Role: String, Sendable, CaseIterable {
            case primary, secondary
        }

        package enum Kind: String, Sendable, CaseIterable {
            case retry, navigateBack, navigate, openURL, openStore, openSettings, signIn, dismiss, custom
        }

        package var id: String
        package var role: Role
        package var kind: Kind
        package var target: String?
    }

    package var id: String
    package var aliases: [String]
    package var category: Category
    package var style: Style
    package var defaultLocale: String
    package var visual: Visual
    package var actions: [Action]
    /// Locale (canonical tag) → string key (`title`, `message`, `actions.<id>`, `visual.label`) → text,
    /// in file order. A plural string's text here is its `other` form (see `plurals`).
    package var strings: [(locale: String, values: [String: String])]
    /// Locale → key → the plural strings (`PluralText`): the keys whose text has a form per
    /// CLDR plural category. Each one's `other` form is also its text in `strings`, so code that
    /// knows nothing of plurals (search, lint, an old client) reads the general form. Empty for a
    /// template without plurals.
    package var plurals: [String: [String: PluralText]] = [:]
    /// Placeholder name → an example of its value (`provider` → `BankID`), shown to translators
    /// (Android's `<xliff:g example>`, the files' notes). Optional; empty for most templates.
    package var examples: [String: String] = [:]

    package static func == (lhs: Template, rhs: Template) -> Bool {
        lhs.id == rhs.id && lhs.aliases == rhs.aliases && lhs.category == rhs.category && lhs.style == rhs.style
            && lhs.defaultLocale == rhs.defaultLocale && lhs.visual == rhs.visual && lhs.actions == rhs.actions
            && lhs.strings.count == rhs.strings.count
            && zip(lhs.strings, rhs.strings).allSatisfy { $0.locale == $1.locale && $0.values == $1.values }
            && lhs.plurals == rhs.plurals && lhs.examples == rhs.examples
    }

    /// The strings of `locale` (exact canonical tag).
    package func strings(for locale: String) -> [String: String]? {
        strings.first { $0.locale == locale }?.values
    }

    /// The plural string of `key` in `locale`, when it is one.
    package func plural(_ key: String, in locale: String) -> PluralText? {
        plurals[locale]?[key]
    }

    /// The string key of an action's label.
    package static func labelKey(_ actionID: String) -> String { "actions." + actionID }
}
