import EmptyStateCore

/// The decisions of the catalogue's reads and writes, as pure functions of what they found in the
/// store: whether the caller's precondition holds, which revision and action a write records,
/// what a rollback restores, and which ids and aliases clash.
///
/// Every backend reads the rows these need (a write inside its transaction, under SQLite's writer
/// lock or PostgreSQL's catalogue write lock) and asks these, so a precondition fails with the
/// same `StoreError` whichever backend holds the catalogue. App policies go through the same
/// rules, named by their platform (`ios`).
package enum CatalogueRules {
    /// What a write records once its precondition holds.
    package struct Plan: Sendable, Equatable {
        /// The revision the write records: the current one plus one (1 for a new id).
        package var revision: Int
        package var action: RevisionRecord.Action
        /// The live document the write replaces (fields are diffed against it); `nil` when it
        /// creates one, re-creates a deleted one, or a rollback restores a deleted one (then
        /// every field counts as changed).
        package var replaced: CurrentDocument?

        /// Whether the write creates the document (`201 Created`).
        package var created: Bool { replaced == nil }

        package init(revision: Int, action: RevisionRecord.Action, replaced: CurrentDocument?) {
            self.revision = revision
            self.action = action
            self.replaced = replaced
        }
    }

    /// A create (`.absent`) or replace (`.revision(n)`).
    /// - Parameters:
    ///   - name: the document as errors name it (a template id, or a policy's platform).
    ///   - current: its current row, `nil` when no document ever had the id.
    /// - Returns: `.create` at the next revision when no live document has the id (a deleted one
    ///   is re-created after its history), `.replace` of the live one otherwise.
    /// - Throws: `.alreadyExists` when creating over a live document; `.notFound`, `.deleted` or
    ///   `.stale` when replacing one that is missing, deleted or at another revision.
    package static func put(
        name: String,
        current: CurrentDocument?,
        precondition: WritePrecondition
    ) throws(StoreError) -> Plan {
        let live = current.flatMap { $0.deleted ? nil : $0 }
        let revision = current?.revision ?? 0
        switch precondition {
        case .absent:
            if live != nil { throw .alreadyExists(id: name, revision: revision) }
        case .revision(let expected):
            guard let current else { throw .notFound(id: name) }
            guard live != nil else { throw .deleted(id: name, revision: current.revision) }
            if expected != revision { throw .stale(id: name, current: revision) }
        }
        return Plan(revision: revision + 1, action: live == nil ? .create : .replace, replaced: live)
    }

    /// What reading a document requires: that it is live.
    /// - Returns: the live row.
    /// - Throws: `.notFound` when no document ever had the id, `.deleted` when it was deleted.
    package static func live(name: String, current: CurrentDocument?) throws(StoreError) -> CurrentDocument {
        guard let current else { throw .notFound(id: name) }
        if current.deleted { throw .deleted(id: name, revision: current.revision) }
        return current
    }

    /// A change of a live document at `expectedRevision` (new strings, or a delete); the change
    /// records the revision after it.
    /// - Returns: the live row the change starts from.
    /// - Throws: `.notFound`, `.deleted`, or `.stale` when the document is at another revision.
    package static func change(
        name: String,
        current: CurrentDocument?,
        expectedRevision: Int
    ) throws(StoreError) -> CurrentDocument {
        let live = try live(name: name, current: current)
        if live.revision != expectedRevision { throw .stale(id: name, current: live.revision) }
        return live
    }

    /// A rollback, which also restores a deleted document.
    /// - Parameter expectedRevision: when given, the current revision must equal it.
    /// - Throws: `.notFound` when no document ever had the id, `.stale` when it moved on.
    package static func rollback(
        name: String,
        current: CurrentDocument?,
        expectedRevision: Int?
    ) throws(StoreError) -> Plan {
        guard let current else { throw .notFound(id: name) }
        if let expectedRevision, expectedRevision != current.revision {
            throw .stale(id: name, current: current.revision)
        }
        return Plan(revision: current.revision + 1, action: .rollback, replaced: current.deleted ? nil : current)
    }

    /// What the store holds for the revision a rollback goes back to.
    package enum Target: Sendable, Equatable {
        /// The document has no such revision.
        case missing
        /// The revision records a deletion: it has no content to restore.
        case deletion
        /// The document's text at that revision.
        case document(String)
    }

    /// The text a rollback to revision `number` restores.
    /// - Throws: `.noSuchRevision`, or `.conflicts` at `/revision` when that revision records a
    ///   deletion.
    package static func rollbackText(name: String, number: Int, target: Target) throws(StoreError) -> String {
        switch target {
        case .missing:
            throw .noSuchRevision(id: name, revision: number)
        case .deletion:
            throw .conflicts([
                ("/revision", "revision \(number) records a deletion; roll back to a revision with content")
            ])
        case .document(let text):
            return text
        }
    }

    /// The names `template` claims, which no other template may hold as an alias: its id, then
    /// its aliases (what a backend looks up in `template_alias` before `checkConflicts`).
    package static func claimedNames(_ template: Template) -> [String] {
        [template.id] + template.aliases
    }

    /// Checks that ids and aliases stay unique across live templates.
    /// - Parameters:
    ///   - aliasOwners: for each of `claimedNames(template)` that is an alias of another
    ///     template, that template's id.
    ///   - liveIDs: which of `template.aliases` are ids of other live templates.
    /// - Throws: `.conflicts`, one problem per clashing name, at its JSON pointer.
    package static func checkConflicts(
        _ template: Template,
        aliasOwners: [String: String],
        liveIDs: Set<String>
    ) throws(StoreError) {
        var problems: [(pointer: String, rule: String)] = []
        if let owner = aliasOwners[template.id] {
            problems.append(("/id", "\"\(template.id)\" is an alias of \(owner)"))
        }
        for (index, alias) in template.aliases.enumerated() {
            if let owner = aliasOwners[alias] {
                problems.append(("/aliases/\(index)", "\"\(alias)\" is already an alias of \(owner)"))
            } else if liveIDs.contains(alias) {
                problems.append(("/aliases/\(index)", "\"\(alias)\" is the id of another template"))
            }
        }
        if !problems.isEmpty { throw .conflicts(problems) }
    }
}
