import EmptyStateCore
import EmptyStateStore
import HTTPServer
import JSONCoding
import Logging

/// `/v1/admin/change-requests`: editors gather edits of templates, their strings, app policies
/// and experiments into a change request; reviewers approve or reject it (never their own);
/// it is published as one transaction, served by this node in one snapshot swap. Every action
/// is a revision of the request (its ETag, `If-Match`, the audit trail); the review rules are in
/// `+ReviewRules`, the bodies in `+ChangeRequestBodies`, the responses in
/// `AdminResponses+ChangeRequests`.
extension AdminAPI {
    func registerChangeRequests(on router: inout Router) {
        let base = "/v1/admin/change-requests"
        router.get(
            base,
            blocking: true,
            route(.viewer, subject: .changeRequest) { request, _ in try listRequests(request) }
        )
        router.add(.post, base, blocking: true, route(.editor, subject: .changeRequest) { try open($0, actor: $1) })
        router.get(
            base + "/{id}",
            blocking: true,
            route(.viewer, subject: .changeRequest) { request, _ in try getRequest(request) }
        )
        router.add(
            .patch,
            base + "/{id}",
            blocking: true,
            route(.editor, subject: .changeRequest) { try edit($0, actor: $1) }
        )
        router.add(
            .post,
            base + "/{id}/comments",
            blocking: true,
            route(.editor, subject: .changeRequest) { try comment($0, actor: $1) }
        )
        router.add(
            .post,
            base + "/{id}/approve",
            blocking: true,
            route(.reviewer, subject: .changeRequest) { try review($0, approve: true, actor: $1) }
        )
        router.add(
            .post,
            base + "/{id}/reject",
            blocking: true,
            route(.reviewer, subject: .changeRequest) { try review($0, approve: false, actor: $1) }
        )
        router.add(
            .post,
            base + "/{id}/rebase",
            blocking: true,
            route(.editor, subject: .changeRequest) { try rebase($0, actor: $1) }
        )
        router.add(
            .post,
            base + "/{id}/withdraw",
            blocking: true,
            route(.editor, subject: .changeRequest) { try withdraw($0, actor: $1) }
        )
        router.add(
            .post,
            base + "/{id}/publish",
            blocking: true,
            route(.editor, subject: .changeRequest) { try publish($0, actor: $1) }
        )
        router.add(
            .post,
            base + "/{id}/rollback",
            blocking: true,
            route(.editor, subject: .changeRequest) { try openRollback($0, actor: $1) }
        )
    }

    // MARK: - Handlers

    private func listRequests(_ request: HTTPRequest) throws -> HTTPResponse {
        let (page, size) = try paging(request)
        var filter = ChangeRequestFilter()
        if let text = request.queryValue("state") {
            var states: [ChangeRequest.State] = []
            for name in text.split(separator: ",", omittingEmptySubsequences: false) {
                guard let state = ChangeRequest.State(rawValue: String(name)), state != .approved else {
                    throw ProblemDetails.invalidParameters(
                        [.init(.parameter("state"), "a comma-separated list of open, rejected, withdrawn, published")],
                        detail: "state filters by stored state (an approved request is open)."
                    )
                }
                states.append(state)
            }
            filter.states = states
        }
        filter.author = request.queryValue("author")
        filter.target = request.queryValue("target")
        if let text = request.queryValue("scheduled") {
            guard text == "true" || text == "false" else {
                throw ProblemDetails.invalidParameters(
                    [.init(.parameter("scheduled"), "must be true or false")],
                    detail: "scheduled is true or false."
                )
            }
            filter.scheduled = text == "true"
        }
        let result = try store.changeRequests(filter, page: page, pageSize: size)
        return try .json(AdminResponses.Page(result, AdminResponses.summaryJSON))
    }

    private func getRequest(_ request: HTTPRequest) throws -> HTTPResponse {
        let id = try changeRequestID(request)
        let view = try store.readCatalogue { edits in try AdminResponses.ChangeRequestView.read(id, in: edits) }
        if let notModified = notModified(request, revision: view.stored.revision) { return notModified }
        return try respond(view, status: 200)
    }

    private func open(_ request: HTTPRequest, actor: AdminToken) throws -> HTTPResponse {
        let document = try bodyObject(request, allowed: ["title", "description", "changes"])
        let title = try bodyText(document, "title", required: true, maximum: Self.maximumTitleLength)!
        let description = try bodyText(document, "description", required: false) ?? ""
        let drafts = try changeDrafts(document["changes"])
        let view = try store.write { edits in
            let changes = try Self.resolve(drafts, in: edits)
            let stored = try edits.openChangeRequest(
                title: title,
                description: description,
                changes: changes,
                actor: actor.name
            )
            return try AdminResponses.ChangeRequestView.read(stored, in: edits)
        }
        log("change request opened", view.stored, actor: actor, request: request)
        var response = try respond(view, status: 201)
        response.headers.append(("Location", "/v1/admin/change-requests/\(view.stored.request.id)"))
        return response
    }

    private func edit(_ request: HTTPRequest, actor: AdminToken) throws -> HTTPResponse {
        let id = try changeRequestID(request)
        let expected = try expectedRevision(request, id: nil)
        let document = try bodyObject(request, allowed: ["title", "description", "changes"])
        let title = try bodyText(document, "title", required: false, maximum: Self.maximumTitleLength)
        if title?.isEmpty == true {
            throw AdminProblems.unprocessable([.init(.pointer("/title"), "must not be empty")], subject: .changeRequest)
        }
        let description = try bodyText(document, "description", required: false)
        let drafts = document["changes"] == nil ? nil : try changeDrafts(document["changes"])
        let view = try store.write { edits in
            let changes = try drafts.map { try Self.resolve($0, in: edits) }
            let stored = try edits.editChangeRequest(
                id,
                expectedRevision: expected,
                title: title,
                description: description,
                changes: changes,
                actor: actor.name
            )
            return try AdminResponses.ChangeRequestView.read(stored, in: edits)
        }
        log("change request edited", view.stored, actor: actor, request: request)
        return try respond(view, status: 200)
    }

    private func comment(_ request: HTTPRequest, actor: AdminToken) throws -> HTTPResponse {
        let id = try changeRequestID(request)
        let expected = request.headers["if-match"] == nil ? nil : try expectedRevision(request, id: nil)
        let document = try bodyObject(request, allowed: ["text"])
        let text = try bodyText(document, "text", required: true)!
        let view = try store.write { edits in
            let (stored, _) = try edits.comment(on: id, text: text, expectedRevision: expected, actor: actor.name)
            return try AdminResponses.ChangeRequestView.read(stored, in: edits)
        }
        log("change request commented on", view.stored, actor: actor, request: request)
        return try respond(view, status: 201)
    }

    private func review(_ request: HTTPRequest, approve: Bool, actor: AdminToken) throws -> HTTPResponse {
        let id = try changeRequestID(request)
        let document = try bodyObject(request, allowed: ["version", "comment"])
        guard case .number(let number)? = document["version"], let version = Int(exactly: number), version >= 1 else {
            throw AdminProblems.unprocessable(
                [.init(.pointer("/version"), "required: the version of the request you reviewed (its `version`)")],
                subject: .changeRequest
            )
        }
        let text = try bodyText(document, "comment", required: false) ?? ""
        let view = try store.write { edits in
            let (stored, _, _) = try edits.review(id, approve: approve, version: version, text: text, actor: actor.name)
            return try AdminResponses.ChangeRequestView.read(stored, in: edits)
        }
        log(
            approve ? "change request approved" : "change request rejected",
            view.stored,
            actor: actor,
            request: request
        )
        return try respond(view, status: 200)
    }

    private func rebase(_ request: HTTPRequest, actor: AdminToken) throws -> HTTPResponse {
        let id = try changeRequestID(request)
        let expected = try expectedRevision(request, id: nil)
        let view = try store.write { edits in
            guard let current = try edits.changeRequest(id) else { throw ChangeRequestError.notFound(id: id) }
            let rows = try edits.currentRows(of: current.request.changes)
            let changes = current.request.changes.map { change in
                var rebased = change
                rebased.baseRevision = rows[change.target.documentID]?.revision ?? 0
                return rebased
            }
            let stored = try edits.editChangeRequest(
                id,
                expectedRevision: expected,
                changes: changes,
                action: .rebase,
                actor: actor.name
            )
            return try AdminResponses.ChangeRequestView.read(stored, in: edits)
        }
        log("change request rebased", view.stored, actor: actor, request: request)
        return try respond(view, status: 200)
    }

    private func withdraw(_ request: HTTPRequest, actor: AdminToken) throws -> HTTPResponse {
        let id = try changeRequestID(request)
        let expected = try expectedRevision(request, id: nil)
        let view = try store.write { edits in
            let stored = try edits.withdraw(
                id,
                expectedRevision: expected,
                mayActForOthers: actor.role >= .admin,
                actor: actor.name
            )
            return try AdminResponses.ChangeRequestView.read(stored, in: edits)
        }
        log("change request withdrawn", view.stored, actor: actor, request: request)
        return try respond(view, status: 200)
    }

    private func publish(_ request: HTTPRequest, actor: AdminToken) throws -> HTTPResponse {
        let id = try changeRequestID(request)
        let expected = try expectedRevision(request, id: nil)
        let document = try bodyObject(request, allowed: ["emergency"], optional: true)
        var emergency = false
        if let value = document["emergency"] {
            guard case .bool(let flag) = value else {
                throw AdminProblems.unprocessable(
                    [.init(.pointer("/emergency"), "true or false")],
                    subject: .changeRequest
                )
            }
            emergency = flag
        }
        let (publication, view) = try store.write { edits in
            guard
                let publication = try edits.publishChangeRequest(
                    id,
                    claim: .now(expectedRevision: expected, emergency: emergency),
                    actor: actor.name
                )
            else { throw ChangeRequestError.notFound(id: id) }
            return (publication, try AdminResponses.ChangeRequestView.read(publication.request, in: edits))
        }
        // Every document of the request in one swap: no reader sees half of it.
        let batch = CatalogueState.Batch(
            changes: publication.templates.map { .upsert($0) }
                + publication.removedTemplates.map { .remove(id: $0.id, revision: $0.revision) },
            policies: publication.policies,
            experiments: publication.experiments
        )
        try state.publish(batch, store: store)
        log(
            "change request published",
            view.stored,
            actor: actor,
            request: request,
            extra: [
                "change_request.documents": "\(batch.changes.count + batch.policies.count + batch.experiments.count)",
                "change_request.emergency": "\(view.stored.request.publication?.emergency ?? false)",
            ]
        )
        return try respond(view, status: 200)
    }

    private func openRollback(_ request: HTTPRequest, actor: AdminToken) throws -> HTTPResponse {
        let id = try changeRequestID(request)
        _ = try bodyObject(request, allowed: [], optional: true)
        let view = try store.write { edits in
            try AdminResponses.ChangeRequestView.read(try edits.openRollback(of: id, actor: actor.name), in: edits)
        }
        log(
            "change request rollback opened",
            view.stored,
            actor: actor,
            request: request,
            extra: ["change_request.rolls_back": "\(id)"]
        )
        var response = try respond(view, status: 201)
        response.headers.append(("Location", "/v1/admin/change-requests/\(view.stored.request.id)"))
        return response
    }

    // MARK: - Pieces

    func respond(_ view: AdminResponses.ChangeRequestView, status: Int) throws -> HTTPResponse {
        try .json(view.json, status: status, headers: [("ETag", Self.etag(view.stored.revision))])
    }

    func log(
        _ message: Logger.Message,
        _ stored: StoredChangeRequest,
        actor: AdminToken,
        request: HTTPRequest,
        extra: Logger.Metadata = [:]
    ) {
        var metadata: Logger.Metadata = [
            "change_request.id": "\(stored.request.id)", "change_request.revision": "\(stored.revision)",
            "change_request.version": "\(stored.request.version)",
            "change_request.state": "\(stored.request.state.rawValue)",
            "admin.actor": "\(actor.name)", "request.id": "\(request.id)",
        ]
        metadata.merge(extra) { $1 }
        logger.notice(message, metadata: metadata)
    }
}
