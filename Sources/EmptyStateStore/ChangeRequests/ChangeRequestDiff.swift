import EmptyStateCore
import Foundation
import JSONCoding

/// One field a change changes, against what is live: its JSON pointer in the document, and its
/// value live and proposed (`nil`: the field is not there on that side).
package struct FieldChange: Sendable, Equatable {
    package var pointer: String
    package var before: JSONValue?
    package var after: JSONValue?

    package init(pointer: String, before: JSONValue?, after: JSONValue?) {
        self.pointer = pointer
        self.before = before
        self.after = after
    }
}

/// A change whose document moved on live since the change was made from it: publishing it would
/// overwrite what was published meanwhile, so it is refused until the request is rebased.
package struct ChangeConflict: Sendable, Equatable {
    /// The change's position in the request.
    package var index: Int
    package var target: ProposedChange.Target
    package var baseRevision: Int
    /// The document's revision now (0: it never existed).
    package var liveRevision: Int
    /// Whether it is deleted now.
    package var liveDeleted: Bool
    /// The fields that changed on live since the base revision (`["/"]` when it was created or
    /// deleted meanwhile).
    package var fields: [String]
    /// Those of `fields` the change changes too: where the two disagree.
    package var overlapping: [String]

    package init(
        index: Int,
        target: ProposedChange.Target,
        baseRevision: Int,
        liveRevision: Int,
        liveDeleted: Bool,
        fields: [String],
        overlapping: [String]
    ) {
        self.index = index
        self.target = target
        self.baseRevision = baseRevision
        self.liveRevision = liveRevision
        self.liveDeleted = liveDeleted
        self.fields = fields
        self.overlapping = overlapping
    }
}

/// What a change request's changes change against what is live, and where live moved under
/// them: computed on read (the request stores only its proposals and their base revisions) and
/// by the publication, from the same functions.
package enum ChangeRequestDiff {
    /// The whole document a change makes live: its document, or (strings of a locale) the live
    /// template with that locale's strings replaced; `nil` for a deletion, or strings of a
    /// template that is not live.
    /// - Parameter live: the live document now (`nil` when none is live).
    package static func proposedDocument(_ change: ProposedChange, live: JSONValue?) -> JSONValue? {
        switch change.target {
        case .templateDeletion:
            return nil
        case .templateStrings(_, let locale):
            guard case .object(var members)? = live, let strings = change.document,
                let index = members.firstIndex(where: { $0.key == "strings" }),
                case .object(var locales) = members[index].value
            else { return nil }
            if let existing = locales.firstIndex(where: { $0.key == locale }) {
                locales[existing].value = strings
            } else {
                locales.append((locale, strings))
            }
            members[index].value = .object(locales)
            return .object(members)
        case .template, .appPolicy, .experiment:
            return change.document
        }
    }

    /// The fields of `target`'s kind of document that differ between `old` and `new`: a template's
    /// top-level members and each string (`/strings/fr/title`), a policy's or an experiment's
    /// top-level members; `["/"]` when one side does not exist.
    package static func changedFields(
        _ target: ProposedChange.Target,
        from old: JSONValue?,
        to new: JSONValue?
    )
        -> [String]
    {
        changedFields(deep: target.documentKind == .template, from: old, to: new)
    }

    /// The top-level members that differ between two documents (and, `deep`, each string of a
    /// template's `strings` instead of the member); `["/"]` when one side does not exist.
    package static func changedFields(deep: Bool, from old: JSONValue?, to new: JSONValue?) -> [String] {
        guard let old, let new else { return old == nil && new == nil ? [] : ["/"] }
        var changed: [String] = []
        let before = members(old)
        let after = members(new)
        var keys = after.map(\.key)
        for member in before where !keys.contains(member.key) { keys.append(member.key) }
        for key in keys {
            let a = before.first { $0.key == key }?.value
            let b = after.first { $0.key == key }?.value
            if deep, key == "strings" {
                changed += stringFields(from: a, to: b)
            } else if a != b {
                changed.append("/" + jsonPointerToken(key))
            }
        }
        return changed
    }

    /// Each string that differs, as `/strings/<locale>/<key>`.
    private static func stringFields(from old: JSONValue?, to new: JSONValue?) -> [String] {
        let before = old.map(members) ?? []
        let after = new.map(members) ?? []
        var locales = after.map(\.key)
        for member in before where !locales.contains(member.key) { locales.append(member.key) }
        var changed: [String] = []
        for locale in locales {
            let a = before.first { $0.key == locale }.map { members($0.value) } ?? []
            let b = after.first { $0.key == locale }.map { members($0.value) } ?? []
            let keys = Set(a.map(\.key)).union(b.map(\.key)).sorted()
            for key in keys where a.first(where: { $0.key == key })?.value != b.first(where: { $0.key == key })?.value {
                changed.append("/strings/\(jsonPointerToken(locale))/\(jsonPointerToken(key))")
            }
        }
        return changed
    }

    private static func members(_ value: JSONValue) -> [(key: String, value: JSONValue)] {
        if case .object(let members) = value { return members }
        return []
    }

    /// Every field `change` changes against `live` (the live document now, `nil` when none), with
    /// both values.
    package static func fields(_ change: ProposedChange, live: JSONValue?) -> [FieldChange] {
        let proposed = proposedDocument(change, live: live)
        return changedFields(change.target, from: live, to: proposed).map { pointer in
            FieldChange(
                pointer: pointer,
                before: live.flatMap { value(at: pointer, in: $0) },
                after: proposed.flatMap { value(at: pointer, in: $0) }
            )
        }
    }

    /// The conflict of change `index`, or `nil` when its document is still at its base revision.
    /// - Parameters:
    ///   - current: the document's row now (`nil` when it never existed).
    ///   - base: the document at the base revision (`nil` when the base is 0 or records a
    ///     deletion).
    package static func conflict(
        index: Int,
        _ change: ProposedChange,
        current: CurrentDocument?,
        base: JSONValue?
    ) throws(StoreError) -> ChangeConflict? {
        let revision = current?.revision ?? 0
        guard revision != change.baseRevision else { return nil }
        let live: JSONValue? = current.flatMap { $0.deleted ? nil : $0 }.map { row in
            (try? StoredDocuments.json(row.document)) ?? .null
        }
        let moved = changedFields(change.target, from: base, to: live)
        let mine = changedFields(change.target, from: base, to: proposedDocument(change, live: base))
        let overlapping = moved.filter { field in
            mine.contains { $0 == field || $0.hasPrefix(field + "/") || field.hasPrefix($0 + "/") || $0 == "/" }
                || field == "/"
        }
        return ChangeConflict(
            index: index,
            target: change.target,
            baseRevision: change.baseRevision,
            liveRevision: revision,
            liveDeleted: current?.deleted ?? false,
            fields: moved,
            overlapping: overlapping
        )
    }

    /// The value a JSON pointer (RFC 6901) names in `document`; `/` names the whole document.
    package static func value(at pointer: String, in document: JSONValue) -> JSONValue? {
        if pointer.isEmpty || pointer == "/" { return document }
        var value = document
        for raw in pointer.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            let token = raw.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            switch value {
            case .object(let members):
                guard let member = members.first(where: { $0.key == token }) else { return nil }
                value = member.value
            case .array(let elements):
                guard let index = Int(token), elements.indices.contains(index) else { return nil }
                value = elements[index]
            default:
                return nil
            }
        }
        return value
    }
}
