import EmptyStateStore
import HTTPServer
import JSONCoding

/// `/v1/admin/change-requests/{id}/schedule`: an approved request set to publish at an instant
/// (RFC 3339; shown in UTC), and the schedule cancelled until then. `ChangeRequestScheduler`
/// publishes it, exactly once across replicas.
extension AdminAPI {
    /// The furthest ahead a request may be scheduled: a year.
    static let maximumScheduleAhead: Int64 = 366 * 86_400_000

    func registerChangeRequestSchedule(on router: inout Router) {
        router.add(
            .put,
            "/v1/admin/change-requests/{id}/schedule",
            blocking: true,
            route(.editor, subject: .changeRequest) { try schedule($0, actor: $1) }
        )
        router.add(
            .delete,
            "/v1/admin/change-requests/{id}/schedule",
            blocking: true,
            route(.editor, subject: .changeRequest) { try unschedule($0, actor: $1) }
        )
    }

    private func schedule(_ request: HTTPRequest, actor: AdminToken) throws -> HTTPResponse {
        let id = try changeRequestID(request)
        let expected = try expectedRevision(request, id: nil)
        let document = try bodyObject(request, allowed: ["at"])
        guard case .string(let text)? = document["at"], let at = Timestamp.parse(text) else {
            throw AdminProblems.unprocessable(
                [.init(.pointer("/at"), "required: an RFC 3339 date-time (2026-12-01T09:00:00Z)")],
                subject: .changeRequest
            )
        }
        let now = Timestamp.nowMilliseconds()
        guard at > now else {
            throw AdminProblems.unprocessable(
                [.init(.pointer("/at"), "in the past (it is \(Timestamp.format(milliseconds: now)) now)")],
                subject: .changeRequest
            )
        }
        guard at - now <= Self.maximumScheduleAhead else {
            throw AdminProblems.unprocessable(
                [.init(.pointer("/at"), "at most a year ahead")],
                subject: .changeRequest
            )
        }
        let view = try store.write { edits in
            let stored = try edits.schedule(id, at: at, expectedRevision: expected, actor: actor.name)
            return try AdminResponses.ChangeRequestView.read(stored, in: edits)
        }
        scheduler?.look()
        log(
            "change request scheduled",
            view.stored,
            actor: actor,
            request: request,
            extra: ["change_request.scheduled_at": "\(Timestamp.format(milliseconds: at))"]
        )
        return try respond(view, status: 200)
    }

    private func unschedule(_ request: HTTPRequest, actor: AdminToken) throws -> HTTPResponse {
        let id = try changeRequestID(request)
        let expected = try expectedRevision(request, id: nil)
        let view = try store.write { edits in
            let stored = try edits.unschedule(id, expectedRevision: expected, actor: actor.name)
            return try AdminResponses.ChangeRequestView.read(stored, in: edits)
        }
        log("change request schedule cancelled", view.stored, actor: actor, request: request)
        return try respond(view, status: 200)
    }
}
