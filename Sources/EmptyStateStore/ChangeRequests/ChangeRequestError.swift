import EmptyStateCore

/// Why an action on a change request (or a write its review rules hold back) did not happen.
/// Each case is one problem type of the admin API (`AdminProblems`); nothing was changed.
package enum ChangeRequestError: Error, Sendable, Equatable {
    /// No change request has this id.
    case notFound(id: Int)
    /// The request is published or withdrawn: it no longer changes.
    case closed(id: Int, state: ChangeRequest.State)
    /// A review names a version other than the current one: the request was edited since the
    /// reviewer read it.
    case staleVersion(id: Int, current: Int)
    /// The reviewer opened, edited or rebased the request: nobody approves their own change.
    case ownChange(id: Int, reviewer: String)
    /// A rejected request is approved, scheduled or published: it must be edited (which reopens
    /// it) first.
    case rejected(id: Int)
    /// The request lacks approvals of its current version for what it is asked (publish,
    /// schedule). `rule` is the pointer of the review rule that asks for the most
    /// (`/categories/update`); `emergency` says whether an emergency rollback would be allowed.
    case approvalsMissing(id: Int, have: Int, need: Int, rule: String, emergency: Bool)
    /// Live moved under these changes since they were made: nothing was published.
    case conflicts(id: Int, [ChangeConflict])
    /// The request has no schedule to cancel.
    case notScheduled(id: Int)
    /// Only the author (or an admin) may do this.
    case notAuthor(id: Int, author: String)
    /// A rollback of a request that was not published, or was rolled back already.
    case nothingToRollBack(id: Int, reason: String)
    /// The request has no such preview token.
    case unknownPreviewToken(id: Int, token: Int)
}
