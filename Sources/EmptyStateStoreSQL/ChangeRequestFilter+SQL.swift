import EmptyStateStore

/// How a backend selects the change requests a `ChangeRequestFilter` asks for.
extension ChangeRequestFilter {
    /// The conditions as SQL over `change_request`'s columns, with one `?` per argument in order
    /// (PostgreSQL's caller numbers them); exact and case-sensitive on both backends.
    package func sqlConditions(_ dialect: AuditFilter.Dialect) -> (clauses: [String], arguments: [String]) {
        var clauses: [String] = []
        var arguments: [String] = []
        if let states {
            if states.isEmpty {
                clauses.append("1 = 0")
            } else {
                clauses.append("state IN (" + states.map { _ in "?" }.joined(separator: ", ") + ")")
                arguments += states.map(\.rawValue)
            }
        }
        if let author {
            clauses.append("author = ?")
            arguments.append(author)
        }
        if let target {
            // `targets` holds each label between newlines (`ChangeRequestSummary`).
            switch dialect {
            case .sqlite: clauses.append("instr(targets, ?) > 0")
            case .postgres: clauses.append("position(? in targets) > 0")
            }
            arguments.append("\n" + target + "\n")
        }
        if let scheduled {
            clauses.append(scheduled ? "scheduled_at IS NOT NULL" : "scheduled_at IS NULL")
        }
        return (clauses, arguments)
    }

    /// The columns of a request's line, in the order the backends read them.
    package static let columns = "id, state, title, author, created_at, updated_at, scheduled_at, targets, revision"
}

extension ChangeRequestSummary {
    /// A line as read from `change_request` (`ChangeRequestFilter.columns`).
    package init(
        id: Int,
        state: String,
        title: String,
        author: String,
        createdAt: String,
        updatedAt: String,
        scheduledAt: Int64?,
        targets: String,
        revision: Int
    ) {
        self.init(
            id: id,
            state: ChangeRequest.State(rawValue: state) ?? .open,
            title: title,
            author: author,
            createdAt: createdAt,
            updatedAt: updatedAt,
            scheduledAt: scheduledAt,
            targets: targets.split(separator: "\n").map(String.init),
            revision: revision
        )
    }
}
