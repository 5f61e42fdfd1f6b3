import EmptyStateCore

/// Builds the documents an export writes, from the store's templates.
package enum TranslationExport {
    /// The strings of the selected templates for one target locale: templates by id, keys in the
    /// order a screen shows them (title, message, visual label, then the actions'), so the same
    /// catalogue always gives the same document.
    ///
    /// A template without strings in `sourceLocale` is left out (it has nothing to translate
    /// from). A string is `missing` when the locale lacks it, `stale` when its source changed
    /// after it was written (`TemplateSnapshot.isStale`), otherwise its review state
    /// (`translated`, `reviewed` or `final`).
    ///
    /// A plural string is one unit with its forms (`sourcePlural`, `targetPlural`), one string as
    /// far as states go: it is stale when any source form changed.
    package static func document(
        _ templates: [TemplateSnapshot],
        sourceLocale: String,
        targetLocale: String,
        selection: TranslationSelection = .all,
        exportedAt: String?
    ) -> TranslationDocument {
        var units: [TranslationUnit] = []
        for snapshot in templates.sorted(by: { $0.template.id.utf8.lexicographicallyPrecedes($1.template.id.utf8) }) {
            let template = snapshot.template
            guard selection.includes(template), let source = template.strings(for: sourceLocale) else { continue }
            let targets = template.strings(for: targetLocale)
            for key in orderedKeys(template, source) {
                let target = targets?[key]
                let state: TranslationState
                if target == nil {
                    state = .missing
                } else if snapshot.isStale(key: key, locale: targetLocale, sourceLocale: sourceLocale) {
                    state = .stale
                } else {
                    state = snapshot.review(key: key, locale: targetLocale)
                }
                if selection.onlyMissingOrStale, state != .missing, state != .stale { continue }
                let sourcePlural = template.plural(key, in: sourceLocale)
                units.append(
                    TranslationUnit(
                        id: UnitID(template: template.id, key: key),
                        source: source[key],
                        target: target,
                        state: state,
                        notes: notes(for: template, key: key, source: source[key] ?? "")
                            + pluralNotes(sourcePlural, targetLocale: targetLocale),
                        sourcePlural: sourcePlural,
                        targetPlural: target == nil ? nil : template.plural(key, in: targetLocale),
                        examples: template.examples
                    )
                )
            }
        }
        return TranslationDocument(
            sourceLocale: sourceLocale,
            targetLocale: targetLocale,
            exportedAt: exportedAt,
            units: units
        )
    }

    /// Every locale the templates have strings in, other than the source locale, sorted: the
    /// target locales of an "all locales" export.
    package static func targetLocales(in templates: [TemplateSnapshot], sourceLocale: String) -> [String] {
        var locales: Set<String> = []
        for snapshot in templates {
            for entry in snapshot.template.strings where entry.locale != sourceLocale { locales.insert(entry.locale) }
        }
        return locales.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// Whether `key` is a plural string in the template's default locale or in `sourceLocale`:
    /// then a file's translation of it must give its forms (`ImportRejection.Reason.plural`).
    package static func isPlural(_ template: Template, _ key: String, sourceLocale: String) -> Bool {
        template.plural(key, in: template.defaultLocale) != nil || template.plural(key, in: sourceLocale) != nil
    }

    /// `title`, `message`, `visual.label`, then the action labels in the template's action order.
    private static func orderedKeys(_ template: Template, _ source: [String: String]) -> [String] {
        (["title", "message", "visual.label"] + template.actions.map { Template.labelKey($0.id) })
            .filter { source[$0] != nil }
    }

    /// What a translator needs to know about a string: its template and category, the copy
    /// rule's limit, where it shows, and its placeholders. One line each.
    package static func notes(for template: Template, key: String, source: String) -> [String] {
        var notes = ["Template \(template.id), category \(template.category.rawValue)"]
        switch key {
        case "title":
            notes.append("title, at most 2 lines (\(CopyRules.titleColumns) columns)")
            notes.append("Shown as the heading of the empty state")
        case "message":
            notes.append("message, at most 3 lines (\(CopyRules.messageColumns) columns)")
            notes.append("Shown under the heading, as its description")
        case "visual.label":
            notes.append("accessibility label, at most \(CopyRules.messageColumns) columns")
            switch template.visual {
            case .icon: notes.append("Read by screen readers for the icon; not shown")
            case .illustration: notes.append("Read by screen readers for the illustration; not shown")
            }
        default:
            notes.append(
                "button label, at most \(CopyRules.labelColumns) columns; say what it does (not OK, Go or Submit)"
            )
            let actionID = String(key.dropFirst("actions.".count))
            if let action = template.actions.first(where: { $0.id == actionID }) {
                notes.append(
                    "Shown on the \(action.role.rawValue) button (action \(action.id), \(action.kind.rawValue))"
                )
            }
        }
        let placeholders = CopyRules.placeholders(in: source)
        if !placeholders.isEmpty {
            let names = placeholders.map { name in
                "{" + name + "}" + (template.examples[name].map { " (e.g. \($0))" } ?? "")
            }.joined(separator: ", ")
            notes.append(
                placeholders.count == 1
                    ? "Placeholder \(names): keep it; the app puts a value in its place"
                    : "Placeholders \(names): keep them; the app puts values in their place"
            )
        }
        return notes
    }

    /// For a plural string: which number chooses the form, and which forms the target locale
    /// has (CLDR's categories, the ones an import takes).
    private static func pluralNotes(_ plural: PluralText?, targetLocale: String) -> [String] {
        guard let plural else { return [] }
        let categories = PluralText.categories(for: targetLocale).map(\.rawValue).joined(separator: ", ")
        return [
            "Plural: the number in {\(plural.variable)} chooses the form; \(targetLocale) has the forms \(categories)"
        ]
    }
}
