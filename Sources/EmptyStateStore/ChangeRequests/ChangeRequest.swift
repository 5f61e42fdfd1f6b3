import JSONCoding

/// A change request: edits of templates, their strings, app policies and experiments gathered
/// under a title, reviewed, and published as one atomic change (or on a schedule). Until it is
/// published nothing of it is served to apps, except to a caller presenting one of its preview
/// tokens.
///
/// Stored as a versioned document of the catalogue's tables (`kind = 'change-request'`, id
/// `change-request:<id>`): every action on it (proposed, edited, commented, approved …) is a
/// revision, so it has the audit trail, the `If-Match` rules and, on PostgreSQL, the change
/// feed that every other document has. Comments and approvals are records of their own
/// (`ReviewRecord`); a line per request in `change_request` serves the list's filters and the
/// scheduler (`ChangeRequestSummary`).
package struct ChangeRequest: Sendable, Equatable {
    /// Where a request is. `approved` is never stored: an `open` request is reported approved
    /// while it holds the approvals the review rules ask of its current version
    /// (`ChangeRequestReview.state`), so a change of the rules takes effect on every request at
    /// once.
    package enum State: String, Sendable, CaseIterable {
        case open, approved, rejected, withdrawn, published

        /// Whether the request may still change: edited, reviewed, scheduled, published.
        package var isActive: Bool { self == .open || self == .approved || self == .rejected }
    }

    /// When a request is to be published, and who said so.
    package struct Schedule: Sendable, Equatable {
        /// The instant, in milliseconds since the epoch (UTC).
        package var at: Int64
        package var by: String
        /// When it was set (`Timestamp.now()`).
        package var setAt: String

        package init(at: Int64, by: String, setAt: String) {
            self.at = at
            self.by = by
            self.setAt = setAt
        }
    }

    /// How a request was published.
    package struct Publication: Sendable, Equatable {
        /// When (`Timestamp.now()`) and by whom (`scheduler` when its schedule published it).
        package var at: String
        package var by: String
        /// The schedule that published it, and how late it ran, in milliseconds (0 when on time,
        /// or published by hand).
        package var scheduledAt: Int64?
        package var lateMilliseconds: Int64
        /// Published without the approvals the rules ask for, as an emergency rollback.
        package var emergency: Bool
        /// Per change, in order: the revision of its document before and after the publication
        /// (`before` 0: it did not exist; `after` equal to `before`: nothing was written).
        package var revisions: [RevisionChange]

        package init(
            at: String,
            by: String,
            scheduledAt: Int64? = nil,
            lateMilliseconds: Int64 = 0,
            emergency: Bool = false,
            revisions: [RevisionChange]
        ) {
            self.at = at
            self.by = by
            self.scheduledAt = scheduledAt
            self.lateMilliseconds = lateMilliseconds
            self.emergency = emergency
            self.revisions = revisions
        }
    }

    /// One document's revision before and after a publication.
    package struct RevisionChange: Sendable, Equatable {
        package var before: Int
        package var after: Int

        package init(before: Int, after: Int) {
            self.before = before
            self.after = after
        }
    }

    package var id: Int
    package var title: String
    package var description: String
    /// Who opened it (a token's name).
    package var author: String
    /// Everyone who opened, edited or rebased it: none of them may approve it (four eyes).
    package var contributors: [String]
    /// As stored: never `approved` (see `State`).
    package var state: State
    /// 1 when opened; every edit of its changes, title or description (and a rebase) adds one,
    /// and approvals count only for the version they were given at.
    package var version: Int
    package var changes: [ProposedChange]
    package var schedule: Schedule?
    package var publication: Publication?
    /// The published request this one rolls back (its changes are the inverse of that one's).
    package var rollbackOf: Int?
    /// The rollback request that undid this one, once it was published.
    package var rolledBackBy: Int?
    package var createdAt: String
    package var updatedAt: String

    package init(
        id: Int,
        title: String,
        description: String,
        author: String,
        contributors: [String],
        state: State = .open,
        version: Int = 1,
        changes: [ProposedChange],
        schedule: Schedule? = nil,
        publication: Publication? = nil,
        rollbackOf: Int? = nil,
        rolledBackBy: Int? = nil,
        createdAt: String,
        updatedAt: String
    ) {
        self.id = id
        self.title = title
        self.description = description
        self.author = author
        self.contributors = contributors
        self.state = state
        self.version = version
        self.changes = changes
        self.schedule = schedule
        self.publication = publication
        self.rollbackOf = rollbackOf
        self.rolledBackBy = rolledBackBy
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// The store id of request `id`: `change-request:42`, which no template id can be.
    package static func documentID(_ id: Int) -> String { StoredDocuments.changeRequestPrefix + String(id) }

    /// The request id a store id names; `nil` for any other kind of document.
    package static func id(documentID: String) -> Int? {
        guard documentID.hasPrefix(StoredDocuments.changeRequestPrefix) else { return nil }
        return Int(documentID.dropFirst(StoredDocuments.changeRequestPrefix.count))
    }
}

/// A change request as stored, with the revision of its row: the number of actions recorded on
/// it, and its ETag (`"r7"`).
package struct StoredChangeRequest: Sendable, Equatable {
    package var request: ChangeRequest
    package var revision: Int

    package init(request: ChangeRequest, revision: Int) {
        self.request = request
        self.revision = revision
    }
}
