import EmptyStateStore

/// How a backend selects the revisions an `AuditFilter` asks for.
extension AuditFilter {
    /// The SQL dialects of the two backends: they differ in how a substring is found.
    package enum Dialect: Sendable {
        case sqlite, postgres
    }

    /// The conditions as SQL over `revision`'s columns, with one `?` per argument in order
    /// (PostgreSQL's caller numbers them). Every comparison is exact and case-sensitive on both
    /// backends (no `LIKE`, which SQLite folds ASCII case in).
    package func sqlConditions(_ dialect: Dialect) -> (clauses: [String], arguments: [String]) {
        var clauses: [String] = []
        var arguments: [String] = []
        if let documentID {
            clauses.append("template_id = ?")
            arguments.append(documentID)
        } else if let kind {
            if let prefix = kind.idPrefix {
                // Prefixes are ASCII: a character count is a byte count on both backends.
                clauses.append("substr(template_id, 1, \(prefix.count)) = ?")
                arguments.append(prefix)
            } else {
                // A template's id has no colon; every other kind's has one.
                switch dialect {
                case .sqlite: clauses.append("instr(template_id, ?) = 0")
                case .postgres: clauses.append("position(? in template_id) = 0")
                }
                arguments.append(":")
            }
        }
        if let actor {
            clauses.append("created_by = ?")
            arguments.append(actor)
        }
        if let action {
            clauses.append("action = ?")
            arguments.append(action.rawValue)
        }
        if let from {
            clauses.append("created_at >= ?")
            arguments.append(from)
        }
        if let to {
            clauses.append("created_at < ?")
            arguments.append(to)
        }
        if let field {
            // changed_fields is a JSON array of pointers: `"/strings/fr/title"` holds the prefix
            // right after a quote. (Pointers are written without escapes but for `"` and `\`,
            // which are escaped the same way here.)
            let quoted = field.replacingOccurrences(of: "\\", with: "\\\\")
                .replacingOccurrences(of: "\"", with: "\\\"")
            switch dialect {
            case .sqlite: clauses.append("instr(changed_fields, ?) > 0")
            case .postgres: clauses.append("position(? in changed_fields) > 0")
            }
            arguments.append("\"" + quoted)
        }
        return (clauses, arguments)
    }
}
