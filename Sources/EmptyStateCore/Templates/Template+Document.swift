import JSONCoding

extension Template {
    /// The template as the document `TemplateParser` reads (the format of `config/templates/`):
    /// what the admin API returns and what each revision stores. Parsing it gives this template back.
    package var document: JSONValue {
        var members: [(key: String, value: JSONValue)] = [("id", .string(id))]
        if !aliases.isEmpty { members.append(("aliases", .array(aliases.map(JSONValue.string)))) }
        members.append(("category", .string(category.rawValue)))
        members.append(("style", .string(style.rawValue)))
        members.append(("defaultLocale", .string(defaultLocale)))
        switch visual {
        case .icon(let symbols):
            let icon = Platform.allCases.map { (key: $0.rawValue, value: JSONValue.string(symbols[$0] ?? "")) }
            members.append(("visual", .object([("icon", .object(icon))])))
        case .illustration(let asset):
            members.append(("visual", .object([("illustration", .object([("asset", .string(asset))]))])))
        }
        members.append(
            (
                "actions",
                .array(
                    actions.map { action in
                        var fields: [(key: String, value: JSONValue)] = [
                            ("id", .string(action.id)), ("role", .string(action.role.rawValue)),
                            ("type", .string(action.kind.rawValue)),
                        ]
                        if let target = action.target { fields.append(("target", .string(target))) }
                        return .object(fields)
                    }
                )
            )
        )
        members.append(
            (
                "strings",
                .object(
                    strings.map { entry in
                        // A plural string is its object (`PluralText.document`) in place of the text.
                        let plurals = self.plurals[entry.locale] ?? [:]
                        return (
                            key: entry.locale,
                            value: .object(
                                Self.orderedKeys(entry.values).map {
                                    ($0, plurals[$0]?.document ?? .string(entry.values[$0]!))
                                }
                            )
                        )
                    }
                )
            )
        )
        if !examples.isEmpty {
            members.append(("examples", .object(examples.keys.sorted().map { ($0, .string(examples[$0]!)) })))
        }
        return .object(members)
    }

    /// `title`, `message`, `visual.label`, then the other keys (action labels) sorted.
    private static func orderedKeys(_ values: [String: String]) -> [String] {
        let fixed = ["title", "message", "visual.label"].filter { values[$0] != nil }
        return fixed + values.keys.filter { !fixed.contains($0) }.sorted()
    }

    /// Every string key a complete locale of this template has: title, message and the visual
    /// label when the default locale has them, and a label per action.
    package var requiredKeys: [String] {
        let reference = strings(for: defaultLocale) ?? [:]
        var keys = ["title"]
        if reference["message"] != nil { keys.append("message") }
        if reference["visual.label"] != nil { keys.append("visual.label") }
        keys += actions.map { Template.labelKey($0.id) }
        return keys
    }
}
