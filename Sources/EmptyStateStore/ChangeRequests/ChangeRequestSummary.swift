/// A change request's line in `change_request`, which the list's filters and the scheduler
/// query: written with every action on the request, in its transaction.
package struct ChangeRequestSummary: Sendable, Equatable {
    package var id: Int
    /// As stored (`open` also for a request its approvals make `approved`).
    package var state: ChangeRequest.State
    package var title: String
    package var author: String
    package var createdAt: String
    package var updatedAt: String
    /// When it is to be published (milliseconds since the epoch), while it is scheduled.
    package var scheduledAt: Int64?
    /// The documents it changes, as `ProposedChange.Target.label` (`template:loading`).
    package var targets: [String]
    /// The request's revision (its ETag).
    package var revision: Int

    package init(
        id: Int,
        state: ChangeRequest.State,
        title: String,
        author: String,
        createdAt: String,
        updatedAt: String,
        scheduledAt: Int64?,
        targets: [String],
        revision: Int
    ) {
        self.id = id
        self.state = state
        self.title = title
        self.author = author
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.scheduledAt = scheduledAt
        self.targets = targets
        self.revision = revision
    }

    package init(_ request: ChangeRequest, revision: Int) {
        id = request.id
        state = request.state
        title = request.title
        author = request.author
        createdAt = request.createdAt
        updatedAt = request.updatedAt
        scheduledAt = request.schedule?.at
        var labels: [String] = []
        for change in request.changes where !labels.contains(change.target.label) { labels.append(change.target.label) }
        targets = labels
        self.revision = revision
    }
}

/// Which change requests a listing returns: every condition given must hold.
package struct ChangeRequestFilter: Sendable, Equatable {
    /// Stored states (`open` selects the approved ones too: the caller tells them apart).
    package var states: [ChangeRequest.State]?
    /// The author, exactly.
    package var author: String?
    /// Requests that change this document (`template:loading`, `appPolicy:ios`, `experiment:x`).
    package var target: String?
    /// Only requests with a schedule (`true`) or without (`false`).
    package var scheduled: Bool?

    package init(
        states: [ChangeRequest.State]? = nil,
        author: String? = nil,
        target: String? = nil,
        scheduled: Bool? = nil
    ) {
        self.states = states
        self.author = author
        self.target = target
        self.scheduled = scheduled
    }

    /// Whether `summary` passes (what both backends' SQL selects, for tests and small lists).
    package func admits(_ summary: ChangeRequestSummary) -> Bool {
        if let states, !states.contains(summary.state) { return false }
        if let author, summary.author != author { return false }
        if let target, !summary.targets.contains(target) { return false }
        if let scheduled, (summary.scheduledAt != nil) != scheduled { return false }
        return true
    }
}
