import CLDRPlurals

// Choosing a plural string's form on the device: the same CLDR rules (the CLDRPlurals module,
// generated from CLDR) the service chooses with when the number is sent as `param.<name>`, so a
// copy chosen here is the copy the service would have served.
extension EmptyStateTemplate {
    /// This copy with every plural string whose number is `variable` set to the form `count`
    /// takes in ``locale`` (CLDR's cardinal rules: 1 is `one` in English, 21 `one` in Russian),
    /// and `{variable}` filled in.
    ///
    /// ```swift
    /// let template = try await client.template("hiddenResults")
    /// show(template.counting(hidden.count))  // "3 results are hidden by filters."
    /// ```
    ///
    /// A template fetched without the number (its copy then shows the general form) is cached
    /// once and counted on the device; one fetched with `parameters: ["count": "3"]` was chosen
    /// by the service already, and is returned as it is.
    /// - Parameters:
    ///   - count: the number.
    ///   - variable: the placeholder that holds the number (`count` for `{count}`).
    ///   - formatted: the number as the app shows it (`"1,000"`, from a `NumberFormatter`); the
    ///     form is still chosen by `count`. `nil` writes it in plain digits.
    public func counting(_ count: Int, as variable: String = "count", formatted: String? = nil) -> EmptyStateTemplate {
        choosing(
            PluralRules.forLocale(locale).category(of: count),
            variable: variable,
            shown: formatted ?? String(count)
        )
    }

    /// The copy with `variable`'s plurals set to their `category` form, `{variable}` filled with
    /// `shown`; ``counting(_:as:formatted:)`` and the bundled snapshot's parameters use it.
    func choosing(_ category: PluralCategory, variable: String, shown: String) -> EmptyStateTemplate {
        guard let plurals, plurals.values.contains(where: { $0.variable == variable }) else { return self }
        let category = category.rawValue
        func choose(_ key: String, _ text: String) -> String {
            guard let plural = plurals[key], plural.variable == variable else { return text }
            let form = plural.forms[category] ?? plural.forms["other"] ?? text
            return form.replacingOccurrences(of: "{\(variable)}", with: shown)
        }
        var copy = self
        copy.title = choose("title", title)
        copy.message = message.map { choose("message", $0) }
        copy.visual.label = visual.label.map { choose("visual.label", $0) }
        copy.actions = actions.map { action in
            var action = action
            action.label = choose("actions." + action.id, action.label)
            return action
        }
        copy.placeholders = placeholders.filter { $0 != variable }
        let left = plurals.filter { $0.value.variable != variable }
        copy.plurals = left.isEmpty ? nil : left
        return copy
    }

    /// The form of the plural string `key` (`message`, `title`, `actions.<id>`) for `count`, with
    /// its number filled in; the string as it is when it is no plural; `nil` when the copy has
    /// no such key.
    public func text(_ key: String, count: Int) -> String? {
        let copy = counting(count, as: plurals?[key]?.variable ?? "count")
        switch key {
        case "title": return copy.title
        case "message": return copy.message
        case "visual.label": return copy.visual.label
        default:
            guard key.hasPrefix("actions.") else { return nil }
            return copy.actions.first { "actions." + $0.id == key }?.label
        }
    }
}
