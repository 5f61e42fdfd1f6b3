import JSONCoding

/// A template's copy resolved for one locale: real strings or generated pseudo-locale strings.
package struct LocalizedCopy: Sendable {
    package var locale: String
    package var isRightToLeft: Bool
    /// Key → text; a plural string's general (`other`) form.
    package var strings: [String: String]
    /// Key → the plural strings among `strings`.
    package var plurals: [String: PluralText]
    /// Whose CLDR rules choose a plural form: the locale the strings are from (`locale`, or the
    /// default locale it fell back to, or a pseudo-locale's source).
    package var pluralLocale: String

    package init(
        locale: String,
        isRightToLeft: Bool,
        strings: [String: String],
        plurals: [String: PluralText] = [:],
        pluralLocale: String? = nil
    ) {
        self.locale = locale
        self.isRightToLeft = isRightToLeft
        self.strings = strings
        self.plurals = plurals
        self.pluralLocale = pluralLocale ?? locale
    }

    /// The text of `key` as written, before placeholders are filled: for a plural string, the
    /// form its variable's value (in `parameters`) takes, or its general form when no value is
    /// given or the value is not a number. `nil` when the copy has no such key. Every renderer
    /// (JSON, HTML) chooses through this.
    package func unfilledText(_ key: String, parameters: [String: String]) -> String? {
        guard let text = strings[key] else { return nil }
        guard let plural = plurals[key], let number = parameters[plural.variable] else { return text }
        return plural.form(for: number, locale: pluralLocale)
    }

    /// The text of `key` with `parameters` filled in (see `unfilledText`).
    package func text(_ key: String, parameters: [String: String]) -> String? {
        unfilledText(key, parameters: parameters).map { CopyRules.fill($0, with: parameters) }
    }

    /// The plural strings left for the client to choose: those whose variable has no value in
    /// `parameters`, each form with the other parameters filled, in `keys`' order.
    package func unchosenPlurals(keys: [String], parameters: [String: String]) -> [(key: String, plural: PluralText)] {
        keys.compactMap { key in
            guard let plural = plurals[key], parameters[plural.variable] == nil else { return nil }
            var filled = plural
            if !parameters.isEmpty { filled.forms = filled.forms.mapValues { CopyRules.fill($0, with: parameters) } }
            return (key, filled)
        }
    }
}

/// Writes the client representation of templates.
package enum TemplateRenderer {
    /// The locales a template can be served in (its own, then the pseudo-locales), for negotiation.
    package static func localeSet(of template: Template) -> LocaleSet {
        LocaleSet(tags: template.strings.map(\.locale) + PseudoLocale.all, fallback: template.defaultLocale)
    }

    /// The copy of `template` in `locale`, which must be one of `localeSet(of:)`'s tags.
    package static func copy(of template: Template, in locale: String) -> LocalizedCopy {
        if PseudoLocale.isPseudo(locale) {
            let sourceLocale = template.strings(for: "en") != nil ? "en" : template.defaultLocale
            let source = template.strings(for: sourceLocale) ?? [:]
            let tag =
                locale.lowercased() == PseudoLocale.accented.lowercased() ? PseudoLocale.accented : PseudoLocale.bidi
            // Each form of a plural is pseudo-localized like a string of its own; the source's
            // rules choose among them.
            var plurals: [String: PluralText] = [:]
            for (key, plural) in template.plurals[sourceLocale] ?? [:] {
                var pseudo = plural
                for (category, text) in plural.forms {
                    pseudo.forms[category] = PseudoLocale.strings(tag, from: [key: text])[key] ?? text
                }
                plurals[key] = pseudo
            }
            return LocalizedCopy(
                locale: tag,
                isRightToLeft: tag == PseudoLocale.bidi,
                strings: PseudoLocale.strings(tag, from: source),
                plurals: plurals,
                pluralLocale: sourceLocale
            )
        }
        let resolved = template.strings(for: locale) != nil ? locale : template.defaultLocale
        return LocalizedCopy(
            locale: locale,
            isRightToLeft: LocaleTag(locale)?.isRightToLeft ?? false,
            strings: template.strings(for: resolved) ?? [:],
            plurals: template.plurals[resolved] ?? [:],
            pluralLocale: resolved
        )
    }

    /// Writes one template as the JSON object clients receive.
    /// - Parameters:
    ///   - parameters: values for `{placeholder}`s; those without a value stay visible and are listed.
    ///   - revision: the store revision the copy comes from, written as `revision` so that an app
    ///     can name what it showed without keeping headers; 0 (served from files) writes none.
    ///   - icons: for `platform` web, the icon's SVG markup is written beside its name as `svg`
    ///     (left out when the set has no such icon).
    ///   - experiment: the experiment and variant this copy is, written as `experiment` after
    ///     `revision` (`nil`: the template is in no experiment for this install).
    package static func write(
        _ template: Template,
        copy: LocalizedCopy,
        platform: Platform,
        parameters: [String: String],
        revision: Int = 0,
        icons: (any IconDrawing)? = nil,
        experiment: ExperimentMark? = nil,
        into writer: inout JSONWriter
    ) {
        var unfilled: [String] = []
        func text(_ key: String) -> String? {
            guard let raw = copy.unfilledText(key, parameters: parameters) else { return nil }
            for name in CopyRules.placeholders(in: raw) where parameters[name] == nil && !unfilled.contains(name) {
                unfilled.append(name)
            }
            return CopyRules.fill(raw, with: parameters)
        }

        writer.beginObject()
        writer.member("id", template.id)
        if revision > 0 {
            writer.key("revision")
            writer.int(revision)
        }
        if let experiment {
            writer.key("experiment")
            writer.beginObject()
            writer.member("id", experiment.experimentID)
            writer.member("variant", experiment.variant)
            writer.endObject()
        }
        writer.member("category", template.category.rawValue)
        writer.member("style", template.style.rawValue)
        writer.member("locale", copy.locale)
        writer.member("direction", copy.isRightToLeft ? "rtl" : "ltr")
        writer.member("platform", platform.rawValue)

        writer.key("visual")
        writer.beginObject()
        switch template.visual {
        case .icon(let symbols):
            writer.member("type", "icon")
            writer.member("name", symbols[platform] ?? "")
            if platform == .web, let svg = icons?.svg(named: symbols[platform] ?? "") {
                writer.member("svg", svg)
            }
            writer.key("width")
            writer.int(64)
            writer.key("height")
            writer.int(64)
        case .illustration(let asset):
            writer.member("type", "illustration")
            writer.member("name", asset)
            writer.key("width")
            writer.int(360)
            writer.key("height")
            writer.int(230)
        }
        let label = text("visual.label")
        writer.key("decorative")
        writer.bool(label == nil)
        if let label { writer.member("label", label) }
        writer.endObject()

        writer.member("title", text("title") ?? "")
        if let message = text("message") { writer.member("message", message) }

        writer.key("actions")
        writer.beginArray()
        for action in template.actions {
            writer.beginObject()
            writer.member("id", action.id)
            writer.member("role", action.role.rawValue)
            writer.member("type", action.kind.rawValue)
            writer.member("label", text(Template.labelKey(action.id)) ?? action.id)
            if let target = action.target { writer.member("target", target) }
            writer.endObject()
        }
        writer.endArray()

        writer.key("placeholders")
        writer.beginArray()
        for name in unfilled { writer.string(name) }
        writer.endArray()
        // Only when a plural is left to choose (its number was not sent as `param.<variable>`),
        // so a template without one, or a request that sent the number, is written as before.
        // Checked first: the hot path (no plural at all) allocates nothing more than before.
        let plurals =
            copy.plurals.isEmpty
            ? []
            : copy.unchosenPlurals(
                keys: ["title", "message", "visual.label"] + template.actions.map { Template.labelKey($0.id) },
                parameters: parameters
            )
        if !plurals.isEmpty {
            writer.key("plurals")
            writer.beginObject()
            for (key, plural) in plurals {
                writer.key(key)
                writer.value(plural.document)
            }
            writer.endObject()
        }
        writer.endObject()
    }

    /// One template as a standalone JSON document.
    package static func render(
        _ template: Template,
        copy: LocalizedCopy,
        platform: Platform,
        parameters: [String: String] = [:],
        revision: Int = 0,
        icons: (any IconDrawing)? = nil,
        experiment: ExperimentMark? = nil
    ) -> [UInt8] {
        var writer = JSONWriter(capacity: platform == .web && icons != nil ? 1536 : 768)
        write(
            template,
            copy: copy,
            platform: platform,
            parameters: parameters,
            revision: revision,
            icons: icons,
            experiment: experiment,
            into: &writer
        )
        return writer.bytes
    }

    /// The whole catalogue for one locale and platform: each template resolved from `locale`
    /// down its own fallback chain.
    package static func renderBundle(
        _ catalogue: Catalogue,
        locale: String,
        platform: Platform,
        parameters: [String: String] = [:],
        icons: (any IconDrawing)? = nil
    ) -> [UInt8] {
        writeBundle(catalogue, locale: locale, platform: platform) { template, resolved, writer in
            write(
                template,
                copy: copy(of: template, in: resolved),
                platform: platform,
                parameters: parameters,
                icons: icons,
                into: &writer
            )
        }
    }

    /// Writes the bundle envelope (locale, direction, platform, aliases) around the templates;
    /// `writeTemplate` writes each one, given the locale it resolves to. The snapshot uses it to
    /// join pre-rendered bytes instead of rendering again.
    package static func writeBundle(
        _ catalogue: Catalogue,
        locale: String,
        platform: Platform,
        writeTemplate: (Template, _ resolvedLocale: String, inout JSONWriter) -> Void
    ) -> [UInt8] {
        writeBundle(
            catalogue.templates,
            aliases: catalogue.aliases,
            locale: locale,
            platform: platform,
            localeSet: localeSet(of:),
            writeTemplate: writeTemplate
        )
    }

    /// `writeBundle` over any templates in id order: `items` are whatever the caller keeps per
    /// template, `localeSet` gives each one's locales (the snapshot has them computed already).
    package static func writeBundle<Item>(
        _ items: some Sequence<Item>,
        aliases: [String: String],
        locale: String,
        platform: Platform,
        capacity: Int = 16 * 1024,
        localeSet: (Item) -> LocaleSet,
        writeTemplate: (Item, _ resolvedLocale: String, inout JSONWriter) -> Void
    ) -> [UInt8] {
        var writer = JSONWriter(capacity: capacity)
        let tag = LocaleTag(locale)
        let rightToLeft = PseudoLocale.isPseudo(locale) ? locale == PseudoLocale.bidi : tag?.isRightToLeft ?? false
        writer.beginObject()
        writer.member("locale", locale)
        writer.member("direction", rightToLeft ? "rtl" : "ltr")
        writer.member("platform", platform.rawValue)
        writer.key("templates")
        writer.beginArray()
        for item in items {
            let set = localeSet(item)
            writeTemplate(item, tag.flatMap { set.resolve($0) } ?? set.fallback, &writer)
        }
        writer.endArray()
        writer.key("aliases")
        writer.beginObject()
        for alias in aliases.keys.sorted() { writer.member(alias, aliases[alias]!) }
        writer.endObject()
        writer.endObject()
        return writer.bytes
    }
}
