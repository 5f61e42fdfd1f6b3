import EmptyStateStore
import HTTPServer
import JSONCoding
import Logging

/// Every error of the admin and analytics APIs as its `application/problem+json` response, in
/// one place: the problems the handlers throw, each `StoreError`, and anything else (500, no
/// internals in the body, logged with the request id).
enum AdminProblems {
    /// What a request's document is: store errors name it.
    enum Subject: Sendable {
        case template, appPolicy, experiment, changeRequest, reviewRules, webhook, adminToken

        var noun: String {
            switch self {
            case .template: "template"
            case .appPolicy: "app policy"
            case .experiment: "experiment"
            case .changeRequest: "change request"
            case .reviewRules: "review rules"
            case .webhook: "webhook"
            case .adminToken: "token"
            }
        }
    }

    /// Wraps a throwing handler (the error middleware): what it throws becomes its response.
    static func catching(
        subject: Subject = .template,
        logger: Logger,
        _ handler: @escaping @Sendable (HTTPRequest, AdminToken) throws -> HTTPResponse
    ) -> @Sendable (HTTPRequest, AdminToken) -> HTTPResponse {
        { request, token in
            do {
                return try handler(request, token)
            } catch {
                return response(for: error, request: request, subject: subject, logger: logger)
            }
        }
    }

    /// The response for any error a handler threw.
    static func response(
        for error: any Error,
        request: HTTPRequest,
        subject: Subject = .template,
        logger: Logger
    ) -> HTTPResponse {
        switch error {
        case let problem as ProblemDetails:
            return problem.response(requestID: request.id)
        case let error as StoreError:
            return response(for: error, request: request, subject: subject, logger: logger)
        case let error as ChangeRequestError:
            return problem(for: error).response(requestID: request.id)
        default:
            logger.error("admin request failed", metadata: ["request.id": "\(request.id)", "error": "\(error)"])
            return ProblemDetails(
                status: 500,
                slug: "internal",
                title: "Internal Server Error",
                detail: "The request failed; the log has the details under this request id."
            ).response(requestID: request.id)
        }
    }

    /// The response for a store error: 404, 412, 422, 503 (`store-busy`, `store-unavailable`,
    /// both with `Retry-After`: nothing was changed), 504 (`outcome-unknown`: the change may have
    /// been made) or 500; ETags of the current revision where the client needs one.
    static func response(
        for error: StoreError,
        request: HTTPRequest,
        subject: Subject = .template,
        logger: Logger
    ) -> HTTPResponse {
        switch error {
        case .notFound(let platform) where subject == .appPolicy:
            return ProblemDetails(
                status: 404,
                slug: "unknown-app-policy",
                title: "Unknown App Policy",
                detail: "There is no app policy for \"\(platform)\"; PUT one with If-None-Match: * to create it.",
                errors: [.init(.parameter("platform"), "no policy yet")]
            ).response(requestID: request.id)
        case .notFound(let id) where subject == .changeRequest:
            return unknownChangeRequest(id).response(requestID: request.id)
        case .notFound(let id) where subject == .experiment:
            return ProblemDetails(
                status: 404,
                slug: "unknown-experiment",
                title: "Unknown Experiment",
                detail: "There is no experiment \"\(id)\"; PUT one with If-None-Match: * to create it.",
                errors: [.init(.parameter("id"), "no such experiment")]
            ).response(requestID: request.id)
        case .notFound(let id) where subject == .webhook:
            // The store names the webhook, or the delivery of a webhook that exists.
            let delivery = id.hasPrefix("dlv_")
            return ProblemDetails(
                status: 404,
                slug: delivery ? "unknown-delivery" : "unknown-webhook",
                title: delivery ? "Unknown Delivery" : "Unknown Webhook",
                detail: delivery
                    ? "The webhook has no delivery \"\(id)\" (finished deliveries leave the log after 30 days)."
                    : "There is no webhook \"\(id)\".",
                errors: [
                    .init(.parameter(delivery ? "deliveryId" : "id"), delivery ? "no such delivery" : "no such webhook")
                ]
            ).response(requestID: request.id)
        case .notFound(let id):
            return ProblemDetails(
                status: 404,
                slug: "unknown-template",
                title: "Unknown Template",
                detail: "There is no template \"\(id)\".",
                errors: [.init(.parameter("id"), "no such template")]
            ).response(requestID: request.id)
        case .deleted(let id, _) where subject == .webhook:
            // A deleted webhook is gone (its secret and deliveries with it): nothing restores it.
            return ProblemDetails(
                status: 404,
                slug: "unknown-webhook",
                title: "Unknown Webhook",
                detail: "There is no webhook \"\(id)\".",
                errors: [.init(.parameter("id"), "no such webhook")]
            ).response(requestID: request.id)
        case .deleted(let id, let revision):
            return ProblemDetails(
                status: 404,
                slug: "template-deleted",
                title: "Template Deleted",
                detail:
                    "\"\(id)\" was deleted at revision \(revision); POST …/rollback with an earlier revision restores it.",
                errors: [.init(.parameter("id"), "deleted at revision \(revision)")]
            ).response(requestID: request.id, extraHeaders: [("ETag", AdminAPI.etag(revision))])
        case .alreadyExists(let id, let revision):
            return ProblemDetails(
                status: 412,
                slug: "precondition-failed",
                title: "Precondition Failed",
                detail:
                    "If-None-Match: * asks to create \"\(id)\", but it exists at revision \(revision); replace it with If-Match.",
                errors: [.init(.header("If-None-Match"), "the \(subject.noun) exists")]
            ).response(requestID: request.id, extraHeaders: [("ETag", AdminAPI.etag(revision))])
        case .stale(let id, let current):
            return ProblemDetails(
                status: 412,
                slug: "precondition-failed",
                title: "Precondition Failed",
                detail:
                    "\"\(id)\" changed since you read it: it is at revision \(current). Fetch it again and reapply your change.",
                errors: [.init(.header("If-Match"), "stale; current ETag is \(AdminAPI.etag(current))")]
            ).response(requestID: request.id, extraHeaders: [("ETag", AdminAPI.etag(current))])
        case .noSuchRevision(let id, let revision):
            return ProblemDetails(
                status: 404,
                slug: "unknown-revision",
                title: "Unknown Revision",
                detail: "\"\(id)\" has no revision \(revision).",
                // GET …/revisions/{n} names it in the path; rollback in the body.
                errors: [
                    .init(
                        request.method == .get || request.method == .head
                            ? .parameter("revision") : .pointer("/revision"),
                        "no such revision"
                    )
                ]
            ).response(requestID: request.id)
        case .conflicts(let conflicts):
            return ProblemDetails(
                status: 422,
                slug: "validation-failed",
                title: "Unprocessable Content",
                detail: "The change cannot be applied as it is; see errors.",
                errors: conflicts.map { .init(.pointer($0.pointer), $0.rule) }
            ).response(requestID: request.id)
        case .busy:
            return ProblemDetails(
                status: 503,
                slug: "store-busy",
                title: "Service Unavailable",
                detail:
                    "The store was busy with another write for too long; nothing was changed. Send the request again."
            ).response(requestID: request.id, extraHeaders: [("Retry-After", "1")])
        case .unavailable(let message):
            logger.error("store unreachable", metadata: ["request.id": "\(request.id)", "error": "\(message)"])
            return ProblemDetails(
                status: 503,
                slug: "store-unavailable",
                title: "Service Unavailable",
                detail:
                    "The database cannot be reached; nothing was changed. Clients are still served the last published catalogue. Send the request again later."
            ).response(requestID: request.id, extraHeaders: [("Retry-After", "2")])
        case .outcomeUnknown(let message):
            // 504, not 503: a 503 here promises that nothing was changed and the request may be
            // sent again; this change may have been made. 504 is what a gateway answers when its
            // upstream (here the database) did not answer in time, and means the same to a client
            // whether it comes from this server or from a proxy in front of it.
            logger.error(
                "store write outcome unknown",
                metadata: ["request.id": "\(request.id)", "error": "\(message)"]
            )
            return ProblemDetails(
                status: 504,
                slug: "outcome-unknown",
                title: "Gateway Timeout",
                detail:
                    "The database did not confirm the change in time: it may or may not have been made. Read the \(subject.noun) again (GET, and compare its ETag, the revision) before sending the change again."
            ).response(requestID: request.id)
        case .reviewRequired(let document, let rule, let approvals):
            return reviewRequired(document: document, rule: rule, approvals: approvals)
                .response(requestID: request.id)
        case .database(let message):
            logger.error("store failure", metadata: ["request.id": "\(request.id)", "error": "\(message)"])
            return ProblemDetails(
                status: 500,
                slug: "internal",
                title: "Internal Server Error",
                detail: "The store failed; nothing was changed. The log has the details under this request id."
            ).response(requestID: request.id)
        }
    }

    // MARK: - Problems the handlers throw

    /// 409 `review-required`: the review rules hold back direct writes of this document. Not
    /// 403: the caller's role is not the reason, no token may write it directly; the rules in
    /// force are (and an admin may change them), and a change request is the way through.
    static func reviewRequired(document: String, rule: String, approvals: Int) -> ProblemDetails {
        ProblemDetails(
            status: 409,
            slug: "review-required",
            title: "Review Required",
            detail:
                "Changes to \"\(document)\" need \(approvals) approval\(approvals == 1 ? "" : "s") (review rules, \(rule)): propose the change in a change request (POST /v1/admin/change-requests) instead of writing it directly.",
            extensions: [
                ("rule", .string(rule)), ("requiredApprovals", .number(Double(approvals))),
                ("changeRequests", .string("/v1/admin/change-requests")),
            ]
        )
    }

    /// 400: the body is JSON but not an object.
    static let notAnObject = ProblemDetails(
        status: 400,
        slug: "invalid-json",
        title: "Bad Request",
        detail: "The body must be a JSON object.",
        errors: [.init(.pointer(""), "expected an object")]
    )

    /// 428: a write without `If-Match` (or `If-None-Match: *` where creating is allowed).
    static let preconditionRequired = ProblemDetails(
        status: 428,
        slug: "precondition-required",
        title: "Precondition Required",
        detail: "Send If-Match with the ETag you read (or If-None-Match: * to create), so changes are not lost.",
        errors: [.init(.header("If-Match"), "required")]
    )

    /// 400 for an `If-None-Match` other than `*` (or with `If-Match`) on a write.
    static let unsupportedIfNoneMatch = ProblemDetails.invalidHeader(
        "If-None-Match",
        "only * is supported",
        detail: "To create, send If-None-Match: * and no If-Match."
    )

    /// 422 listing every broken rule.
    static func unprocessable(_ errors: [ProblemDetails.FieldError], subject: Subject = .template) -> ProblemDetails {
        ProblemDetails(
            status: 422,
            slug: "validation-failed",
            title: "Unprocessable Content",
            detail: errors.count == 1
                ? "The \(subject.noun) breaks a rule." : "The \(subject.noun) breaks \(errors.count) rules.",
            errors: errors
        )
    }
}
