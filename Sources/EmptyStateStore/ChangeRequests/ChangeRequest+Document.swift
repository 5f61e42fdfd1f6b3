import JSONCoding

/// A change request as the document the store keeps (`template.document` and each revision),
/// written with `StoredDocuments.text(of:)` and read back strictly.
extension ChangeRequest {
    /// The stored document. Times of the schedule are milliseconds since the epoch; the API
    /// shows them as RFC 3339 (`AdminResponses`).
    package var document: JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("id", .number(Double(id))), ("title", .string(title)), ("description", .string(description)),
            ("author", .string(author)), ("contributors", .array(contributors.map(JSONValue.string))),
            ("state", .string(state.rawValue)), ("version", .number(Double(version))),
            ("changes", .array(changes.map(\.json))),
        ]
        if let schedule {
            members.append(
                (
                    "schedule",
                    .object([
                        ("at", .number(Double(schedule.at))), ("by", .string(schedule.by)),
                        ("setAt", .string(schedule.setAt)),
                    ])
                )
            )
        }
        if let publication {
            var fields: [(key: String, value: JSONValue)] = [
                ("at", .string(publication.at)), ("by", .string(publication.by)),
                ("lateMilliseconds", .number(Double(publication.lateMilliseconds))),
                ("emergency", .bool(publication.emergency)),
                (
                    "revisions",
                    .array(
                        publication.revisions.map {
                            .object([("before", .number(Double($0.before))), ("after", .number(Double($0.after)))])
                        }
                    )
                ),
            ]
            if let scheduledAt = publication.scheduledAt {
                fields.append(("scheduledAt", .number(Double(scheduledAt))))
            }
            members.append(("publication", .object(fields)))
        }
        if let rollbackOf { members.append(("rollbackOf", .number(Double(rollbackOf)))) }
        if let rolledBackBy { members.append(("rolledBackBy", .number(Double(rolledBackBy)))) }
        members.append(("createdAt", .string(createdAt)))
        members.append(("updatedAt", .string(updatedAt)))
        return .object(members)
    }

    /// Reads a stored request.
    /// - Throws: `StoreError.database` when the text is not one (a damaged row).
    package init(storedText text: String) throws(StoreError) {
        let value = try StoredDocuments.json(text)
        func string(_ key: String, in object: JSONValue = value) throws(StoreError) -> String {
            guard case .string(let text)? = object[key] else {
                throw .database("a stored change request has no \(key)")
            }
            return text
        }
        func int(_ key: String, in object: JSONValue = value) throws(StoreError) -> Int64 {
            guard case .number(let number)? = object[key], let integer = Int64(exactly: number) else {
                throw .database("a stored change request has no \(key)")
            }
            return integer
        }
        func optionalInt(_ key: String) throws(StoreError) -> Int? {
            value[key] == nil ? nil : Int(try int(key))
        }
        guard let state = State(rawValue: try string("state")),
            case .array(let changeValues)? = value["changes"],
            case .array(let contributorValues)? = value["contributors"]
        else {
            throw .database("a stored change request is not one")
        }
        var changes: [ProposedChange] = []
        for change in changeValues { changes.append(try ProposedChange(stored: change)) }
        var schedule: Schedule?
        if let object = value["schedule"] {
            schedule = Schedule(
                at: try int("at", in: object),
                by: try string("by", in: object),
                setAt: try string("setAt", in: object)
            )
        }
        var publication: Publication?
        if let object = value["publication"] {
            var revisions: [RevisionChange] = []
            if case .array(let values)? = object["revisions"] {
                for entry in values {
                    revisions.append(
                        RevisionChange(
                            before: Int(try int("before", in: entry)),
                            after: Int(try int("after", in: entry))
                        )
                    )
                }
            }
            publication = Publication(
                at: try string("at", in: object),
                by: try string("by", in: object),
                scheduledAt: object["scheduledAt"] == nil ? nil : try int("scheduledAt", in: object),
                lateMilliseconds: try int("lateMilliseconds", in: object),
                emergency: object["emergency"] == .bool(true),
                revisions: revisions
            )
        }
        self.init(
            id: Int(try int("id")),
            title: try string("title"),
            description: try string("description"),
            author: try string("author"),
            contributors: contributorValues.compactMap { if case .string(let name) = $0 { name } else { nil } },
            state: state,
            version: Int(try int("version")),
            changes: changes,
            schedule: schedule,
            publication: publication,
            rollbackOf: try optionalInt("rollbackOf"),
            rolledBackBy: try optionalInt("rolledBackBy"),
            createdAt: try string("createdAt"),
            updatedAt: try string("updatedAt")
        )
    }
}
