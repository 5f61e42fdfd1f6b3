/// Which changes an audit query returns: every condition given must hold.
package struct AuditFilter: Sendable, Equatable {
    /// One document's changes (a template id, or `StoredDocuments.appPolicyID`).
    package var documentID: String?
    /// Only templates (`false`: only app policies); `nil`: both. Ignored with `documentID`.
    package var templates: Bool?
    /// The author, exactly (a token's name).
    package var actor: String?
    package var action: RevisionRecord.Action?
    /// Changes at or after this instant (`Timestamp` text, whole seconds, UTC).
    package var from: String?
    /// Changes before this instant.
    package var to: String?
    /// Changes to this field or below it: a JSON pointer prefix (`/strings/fr` finds
    /// `/strings/fr/title`); matched against each revision's changed fields.
    package var field: String?

    package init(
        documentID: String? = nil,
        templates: Bool? = nil,
        actor: String? = nil,
        action: RevisionRecord.Action? = nil,
        from: String? = nil,
        to: String? = nil,
        field: String? = nil
    ) {
        self.documentID = documentID
        self.templates = templates
        self.actor = actor
        self.action = action
        self.from = from
        self.to = to
        self.field = field
    }

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
        } else if let templates {
            let prefix = StoredDocuments.appPolicyPrefix
            clauses.append("substr(template_id, 1, \(prefix.count)) \(templates ? "<>" : "=") ?")
            arguments.append(prefix)
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
