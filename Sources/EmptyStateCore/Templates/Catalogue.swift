/// A validated set of templates, with every id and alias unique.
package struct Catalogue: Sendable {
    /// Templates in id order.
    package let templates: [Template]
    /// Alias → canonical id.
    package let aliases: [String: String]
    private let byName: [String: Int]

    /// Builds a catalogue, checking the rules that span templates.
    /// - Throws: `CatalogueError` naming every clash of ids and aliases.
    package init(templates: [Template], sources: [String: String] = [:]) throws(CatalogueError) {
        var problems: [CatalogueError.Problem] = []
        var byName: [String: Int] = [:]
        var aliases: [String: String] = [:]
        let sorted = templates.sorted { $0.id < $1.id }
        for (index, template) in sorted.enumerated() {
            let source = sources[template.id] ?? template.id
            if byName[template.id] != nil {
                problems.append(
                    .init(
                        source: source,
                        issue: ValidationIssue("/id", "another template already uses \"\(template.id)\"")
                    )
                )
                continue
            }
            byName[template.id] = index
        }
        for (index, template) in sorted.enumerated() {
            let source = sources[template.id] ?? template.id
            for (position, alias) in template.aliases.enumerated() {
                if let owner = byName[alias] {
                    let holder = sorted[owner].id
                    problems.append(
                        .init(
                            source: source,
                            issue: ValidationIssue(
                                "/aliases/\(position)",
                                holder == alias
                                    ? "\"\(alias)\" is the id of another template"
                                    : "\"\(alias)\" is already an alias of \(holder)"
                            )
                        )
                    )
                } else {
                    byName[alias] = index
                    aliases[alias] = template.id
                }
            }
        }
        guard problems.isEmpty else { throw CatalogueError(problems: problems) }
        self.templates = sorted
        self.aliases = aliases
        self.byName = byName
    }

    /// The template with this id or alias (exact match: ids are case-sensitive).
    package func template(named name: String) -> Template? {
        byName[name].map { templates[$0] }
    }

    /// Every locale some template has, real ones in first-seen order, then the pseudo-locales.
    package var locales: [String] {
        var seen: [String] = []
        for template in templates {
            for entry in template.strings where !seen.contains(entry.locale) { seen.append(entry.locale) }
        }
        return seen + PseudoLocale.all
    }
}

/// Why a catalogue cannot be loaded: every broken rule, with the file it is in.
package struct CatalogueError: Error, Sendable, CustomStringConvertible {
    package struct Problem: Sendable, Equatable {
        /// The file (or template id) the problem is in.
        package var source: String
        package var issue: ValidationIssue
    }

    package var problems: [Problem]

    package var description: String {
        problems.map { "\($0.source): \($0.issue.pointer.isEmpty ? "/" : $0.issue.pointer): \($0.issue.rule)" }
            .joined(separator: "\n")
    }
}
