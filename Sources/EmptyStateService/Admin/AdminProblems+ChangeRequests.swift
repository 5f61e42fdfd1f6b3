import EmptyStateStore
import HTTPServer
import JSONCoding

/// The problems of the change-request routes: each `ChangeRequestError` as its
/// `application/problem+json`, naming the field or parameter at fault.
extension AdminProblems {
    /// 404 `unknown-change-request`.
    static func unknownChangeRequest(_ id: String) -> ProblemDetails {
        ProblemDetails(
            status: 404,
            slug: "unknown-change-request",
            title: "Unknown Change Request",
            detail: "There is no change request \"\(id)\".",
            errors: [.init(.parameter("id"), "no such change request")]
        )
    }

    /// The problem of each action a change request refused.
    static func problem(for error: ChangeRequestError) -> ProblemDetails {
        switch error {
        case .notFound(let id):
            return unknownChangeRequest(String(id))
        case .closed(let id, let state):
            return ProblemDetails(
                status: 409,
                slug: "change-request-closed",
                title: "Change Request Closed",
                detail:
                    "Change request #\(id) is \(state.rawValue): it no longer changes. Open a new one (or, when it was published, roll it back).",
                errors: [.init(.parameter("id"), "\(state.rawValue)")],
                extensions: [("state", .string(state.rawValue))]
            )
        case .staleVersion(let id, let current):
            return ProblemDetails(
                status: 409,
                slug: "stale-version",
                title: "Stale Version",
                detail:
                    "Change request #\(id) was edited since you read it: it is at version \(current). Read it again before you review it.",
                errors: [.init(.pointer("/version"), "not the current version (\(current))")],
                extensions: [("currentVersion", .number(Double(current)))]
            )
        case .ownChange(let id, let reviewer):
            return ProblemDetails(
                status: 403,
                slug: "own-change",
                title: "Own Change",
                detail:
                    "\(reviewer) opened, edited or rebased change request #\(id): nobody reviews their own change. Another reviewer must.",
                errors: [.init(.header("Authorization"), "the token of a contributor of the request")]
            )
        case .rejected(let id):
            return ProblemDetails(
                status: 409,
                slug: "change-request-rejected",
                title: "Change Request Rejected",
                detail:
                    "Change request #\(id) was rejected: edit it (which reopens it for review) before it is approved, scheduled or published.",
                errors: [.init(.parameter("id"), "rejected")],
                extensions: [("state", .string("rejected"))]
            )
        case .approvalsMissing(let id, let have, let need, let rule, let emergency):
            var detail =
                "Change request #\(id) has \(have) of the \(need) approval\(need == 1 ? "" : "s") the review rules ask for (\(rule))."
            if emergency {
                detail +=
                    " It is a rollback and the rules allow emergency rollbacks: publish it with {\"emergency\": true} to skip review (audited)."
            }
            return ProblemDetails(
                status: 409,
                slug: "approvals-missing",
                title: "Approvals Missing",
                detail: detail,
                errors: [.init(.parameter("id"), "\(have) of \(need) approvals")],
                extensions: [
                    ("approvals", .number(Double(have))), ("requiredApprovals", .number(Double(need))),
                    ("rule", .string(rule)), ("emergencyAllowed", .bool(emergency)),
                ]
            )
        case .conflicts(let id, let conflicts):
            return ProblemDetails(
                status: 409,
                slug: "change-request-conflict",
                title: "Conflict",
                detail:
                    "What is live changed since change request #\(id) was made (\(conflicts.map(\.target.label).joined(separator: ", "))): nothing was published. Look at the conflicts, then rebase the request (POST …/rebase) or edit it.",
                errors: conflicts.map {
                    .init(.pointer("/changes/\($0.index)/baseRevision"), "live is at revision \($0.liveRevision)")
                },
                extensions: [("conflicts", .array(conflicts.map(AdminResponses.ChangeRequestView.conflictJSON)))]
            )
        case .notScheduled(let id):
            return ProblemDetails(
                status: 409,
                slug: "not-scheduled",
                title: "Not Scheduled",
                detail: "Change request #\(id) has no schedule to cancel.",
                errors: [.init(.parameter("id"), "not scheduled")]
            )
        case .notAuthor(let id, let author):
            return ProblemDetails(
                status: 403,
                slug: "not-author",
                title: "Forbidden",
                detail: "Only \(author), who opened change request #\(id), or an admin may do this.",
                errors: [.init(.header("Authorization"), "not the author's token")]
            )
        case .nothingToRollBack(let id, let reason):
            return ProblemDetails(
                status: 409,
                slug: "nothing-to-roll-back",
                title: "Nothing To Roll Back",
                detail: "Change request #\(id) cannot be rolled back: \(reason).",
                errors: [.init(.parameter("id"), reason)]
            )
        case .unknownPreviewToken(let id, let token):
            return ProblemDetails(
                status: 404,
                slug: "unknown-preview-token",
                title: "Unknown Preview Token",
                detail: "Change request #\(id) has no preview token \(token).",
                errors: [.init(.parameter("token"), "no such preview token")]
            )
        }
    }
}
