import EmptyStateCore
import EmptyStateStore
import HTTPServer
import JSONCoding
import WebhookClient

/// `/v1/admin/webhooks`: subscriptions of receivers to the catalogue's events (a policy
/// published, an experiment started, stopped or shipped, and the change requests' events), signed
/// per the Standard Webhooks specification. The rules are the experiments': `If-Match` (428/412),
/// revisions and the audit trail (a subscription is a versioned document of kind `webhook`); the
/// secret (`whsec_…`) is shown once, when the webhook is created or its secret rotated, never
/// again. The delivery log and redelivery are here too; the deliveries themselves run on the
/// `WebhookDispatcher`, never on a request.
extension AdminAPI {
    /// The role that manages webhooks: `editor` until the admin role exists (issue 34, part A),
    /// then `admin`, changed here alone.
    static var webhookManager: AdminToken.Role { .editor }

    func registerWebhooks(on router: inout Router) {
        router.get(
            "/v1/admin/webhooks",
            blocking: true,
            route(.viewer, subject: .webhook) { request, _ in try listWebhooks(request) }
        )
        router.add(
            .post,
            "/v1/admin/webhooks",
            blocking: true,
            route(Self.webhookManager, subject: .webhook) { try createWebhook($0, actor: $1) }
        )
        router.get(
            "/v1/admin/webhooks/{id}",
            blocking: true,
            route(.viewer, subject: .webhook) { request, _ in try getWebhook(request) }
        )
        router.add(
            .put,
            "/v1/admin/webhooks/{id}",
            blocking: true,
            route(Self.webhookManager, subject: .webhook) { try putWebhook($0, actor: $1) }
        )
        router.add(
            .delete,
            "/v1/admin/webhooks/{id}",
            blocking: true,
            route(Self.webhookManager, subject: .webhook) { try deleteWebhook($0, actor: $1) }
        )
        router.add(
            .post,
            "/v1/admin/webhooks/{id}/rotate-secret",
            blocking: true,
            route(Self.webhookManager, subject: .webhook) { try rotateSecret($0, actor: $1) }
        )
        router.add(
            .post,
            "/v1/admin/webhooks/{id}/ping",
            blocking: true,
            route(Self.webhookManager, subject: .webhook) { try ping($0, actor: $1) }
        )
        router.get(
            "/v1/admin/webhooks/{id}/deliveries",
            blocking: true,
            route(.viewer, subject: .webhook) { request, _ in try deliveries(request) }
        )
        router.get(
            "/v1/admin/webhooks/{id}/deliveries/{deliveryId}",
            blocking: true,
            route(.viewer, subject: .webhook) { request, _ in try delivery(request) }
        )
        router.add(
            .post,
            "/v1/admin/webhooks/{id}/deliveries/{deliveryId}/redeliver",
            blocking: true,
            route(Self.webhookManager, subject: .webhook) { try redeliver($0, actor: $1) }
        )
    }

    // MARK: - Handlers

    private func listWebhooks(_ request: HTTPRequest) throws -> HTTPResponse {
        let all = try webhookStore().webhooks()
        return try .json(WebhookList(items: all.map { AdminWebhook($0.webhook, health: $0.health) }))
    }

    private func getWebhook(_ request: HTTPRequest) throws -> HTTPResponse {
        let stored = try webhookStore().webhook(id: id(request))
        if let notModified = notModified(request, revision: stored.revision) { return notModified }
        return try webhookResponse(AdminWebhook(stored), status: 200)
    }

    private func createWebhook(_ request: HTTPRequest, actor: AdminToken) throws -> HTTPResponse {
        let subscription = try subscription(from: request)
        let id = WebhookOutbox.newWebhookID()
        let secret = WebhookSignature.newSecret()
        let stored = try store.write { edits in
            try edits.createWebhook(id: id, subscription, secret: secret, actor: actor.name)
        }
        logger.notice(
            "webhook created",
            metadata: [
                "webhook.id": "\(id)", "webhook.url": "\(subscription.url)",
                "webhook.events": "\(subscription.events.joined(separator: ","))", "admin.actor": "\(actor.name)",
                "request.id": "\(request.id)",
            ]
        )
        var body = AdminWebhook(stored)
        body.secret = secret
        var response = try webhookResponse(body, status: 201)
        response.headers.append(("Location", "/v1/admin/webhooks/\(id)"))
        return response
    }

    private func putWebhook(_ request: HTTPRequest, actor: AdminToken) throws -> HTTPResponse {
        let id = id(request)
        _ = try webhookStore().webhook(id: id)  // 404 before 428/422
        let expected = try webhookRevision(request)
        let subscription = try subscription(from: request)
        let stored = try store.write { edits in
            try edits.putWebhook(id: id, subscription, expectedRevision: expected, actor: actor.name)
        }
        logger.notice(
            "webhook changed",
            metadata: [
                "webhook.id": "\(id)", "webhook.revision": "\(stored.revision)",
                "webhook.enabled": "\(subscription.enabled)", "admin.actor": "\(actor.name)",
                "request.id": "\(request.id)",
            ]
        )
        return try webhookResponse(AdminWebhook(stored), status: 200)
    }

    private func deleteWebhook(_ request: HTTPRequest, actor: AdminToken) throws -> HTTPResponse {
        let id = id(request)
        _ = try webhookStore().webhook(id: id)
        let expected = try webhookRevision(request)
        let revision = try store.write { edits in
            try edits.deleteWebhook(id: id, expectedRevision: expected, actor: actor.name)
        }
        logger.notice(
            "webhook deleted",
            metadata: [
                "webhook.id": "\(id)", "webhook.revision": "\(revision)", "admin.actor": "\(actor.name)",
                "request.id": "\(request.id)",
            ]
        )
        return HTTPResponse(status: 204, headers: [("Cache-Control", "no-store")])
    }

    /// `{"previousSecretValidForSeconds": n}` (optional, default a day, 0 to 604800): how long the
    /// secret it replaces keeps signing beside the new one, so receivers switch without losing a
    /// delivery; 0 stops it at once (a secret that leaked).
    private func rotateSecret(_ request: HTTPRequest, actor: AdminToken) throws -> HTTPResponse {
        let id = id(request)
        _ = try webhookStore().webhook(id: id)
        let expected = try webhookRevision(request)
        var keep = 86_400
        if !request.body.isEmpty {
            let document = try body(request)
            guard case .object(let members) = document else { throw AdminProblems.notAnObject }
            var errors: [ProblemDetails.FieldError] = []
            for (key, _) in members where key != "previousSecretValidForSeconds" {
                errors.append(
                    .init(.pointer("/" + jsonPointerToken(key)), "unknown member (previousSecretValidForSeconds)")
                )
            }
            if let value = document["previousSecretValidForSeconds"] {
                if case .number(let number) = value, let seconds = Int(exactly: number), (0...604_800).contains(seconds)
                {
                    keep = seconds
                } else {
                    errors.append(
                        .init(.pointer("/previousSecretValidForSeconds"), "an integer from 0 to 604800 (a week)")
                    )
                }
            }
            if !errors.isEmpty { throw AdminProblems.unprocessable(errors, subject: .webhook) }
        }
        let secret = WebhookSignature.newSecret()
        let until: Int64? = keep == 0 ? nil : Timestamp.nowMilliseconds() + Int64(keep) * 1000
        let stored = try store.write { edits in
            try edits.rotateWebhookSecret(
                id: id,
                expectedRevision: expected,
                secret: secret,
                previousUntil: until,
                actor: actor.name
            )
        }
        logger.notice(
            "webhook secret rotated",
            metadata: [
                "webhook.id": "\(id)", "webhook.revision": "\(stored.revision)",
                "webhook.previous_secret_valid_s": "\(keep)", "admin.actor": "\(actor.name)",
                "request.id": "\(request.id)",
            ]
        )
        var body = AdminWebhook(stored)
        body.secret = secret
        return try webhookResponse(body, status: 200)
    }

    private func ping(_ request: HTTPRequest, actor: AdminToken) throws -> HTTPResponse {
        let delivery = try webhookStore().queuePing(
            webhookID: id(request),
            actor: actor.name,
            now: Timestamp.nowMilliseconds()
        )
        return try .json(AdminWebhookDelivery(delivery), status: 202)
    }

    private func deliveries(_ request: HTTPRequest) throws -> HTTPResponse {
        let (page, size) = try paging(request)
        var status: WebhookDelivery.Status?
        if let text = request.queryValue("status") {
            guard let value = WebhookDelivery.Status(rawValue: text) else {
                throw ProblemDetails.invalidParameters(
                    [.init(.parameter("status"), "one of pending, succeeded, failed")],
                    detail: "status is pending, succeeded or failed."
                )
            }
            status = value
        }
        let result = try webhookStore().deliveries(webhookID: id(request), status: status, page: page, pageSize: size)
        return try .json(AdminResponses.Page(result, AdminWebhookDelivery.init))
    }

    private func delivery(_ request: HTTPRequest) throws -> HTTPResponse {
        let delivery = try webhookStore().delivery(
            webhookID: id(request),
            id: request.pathParameters["deliveryId"] ?? ""
        )
        return try .json(AdminWebhookDelivery(delivery))
    }

    private func redeliver(_ request: HTTPRequest, actor: AdminToken) throws -> HTTPResponse {
        let delivery = try webhookStore().redeliver(
            webhookID: id(request),
            id: request.pathParameters["deliveryId"] ?? "",
            actor: actor.name,
            now: Timestamp.nowMilliseconds()
        )
        logger.notice(
            "webhook redelivery queued",
            metadata: [
                "webhook.id": "\(delivery.webhookID)", "delivery.id": "\(delivery.id)",
                "delivery.redelivery_of": "\(delivery.redeliveryOf ?? "")", "admin.actor": "\(actor.name)",
                "request.id": "\(request.id)",
            ]
        )
        return try .json(AdminWebhookDelivery(delivery), status: 202)
    }

    // MARK: - Pieces

    private func webhookStore() throws -> any WebhookStoring {
        guard let webhooks else {
            throw ProblemDetails(
                status: 503,
                slug: "webhooks-unavailable",
                title: "Service Unavailable",
                detail: "This service runs without webhooks."
            )
        }
        return webhooks
    }

    /// `If-Match` on a webhook (which cannot be created by PUT).
    private func webhookRevision(_ request: HTTPRequest) throws -> Int {
        guard let ifMatch = request.headers["if-match"] else { throw AdminProblems.preconditionRequired }
        let tag = ifMatch.trimmingCharacters(in: .whitespaces)
        guard tag.hasPrefix("\"r"), tag.hasSuffix("\""), let revision = Int(tag.dropFirst(2).dropLast()) else {
            throw ProblemDetails(
                status: 412,
                slug: "precondition-failed",
                title: "Precondition Failed",
                detail: "If-Match must be the ETag of the webhook as you read it, like \"r3\".",
                errors: [.init(.header("If-Match"), "not an ETag of this API")]
            )
        }
        return revision
    }

    /// The subscription a body describes, its URL checked against the operator's settings.
    /// - Throws: 400 unless the body is a JSON object; 422 naming every member that breaks a rule.
    private func subscription(from request: HTTPRequest) throws -> WebhookSubscription {
        let document = try body(request)
        guard case .object = document else { throw AdminProblems.notAnObject }
        var issues: [ValidationIssue] = []
        var parsed: WebhookSubscription?
        switch WebhookSubscription.parse(document, eventTypes: WebhookOutbox.eventTypes) {
        case .success(let subscription): parsed = subscription
        case .failure(let invalid): issues = invalid.issues
        }
        if case .string(let text)? = document["url"] {
            switch WebhookURL.parse(text) {
            case .success(let url):
                if let refusal = url.refusal(under: webhookPolicy) { issues.append(.init("/url", refusal.description)) }
            case .failure(let refusal):
                issues.append(.init("/url", refusal.description))
            }
        }
        guard issues.isEmpty, let parsed else {
            throw AdminProblems.unprocessable(
                issues.map { .init(.pointer($0.pointer), $0.rule) },
                subject: .webhook
            )
        }
        return parsed
    }

    private func webhookResponse(_ body: AdminWebhook, status: Int) throws -> HTTPResponse {
        try .json(body, status: status, headers: [("ETag", Self.etag(body.revision))])
    }
}

/// `AdminWebhookList`.
struct WebhookList: Encodable {
    var items: [AdminWebhook]
}

/// `AdminWebhook`: a subscription, its bookkeeping, and (in lists) how its deliveries are doing;
/// `secret` only in the answers that create or rotate it.
struct AdminWebhook: Encodable {
    struct Health: Encodable {
        var pending: Int
        var failed: Int
        var lastAttemptAt: String?
        var lastAttemptStatus: Int?
        var lastAttemptSucceeded: Bool?
    }

    var id: String
    var url: String
    var events: [String]
    var description: String
    var enabled: Bool
    var revision: Int
    var updatedAt: String
    var updatedBy: String
    /// Until when the secret replaced by the last rotation still signs beside the current one.
    var previousSecretExpiresAt: String?
    var secret: String?
    var health: Health?

    init(_ stored: StoredWebhook, health: WebhookHealth? = nil) {
        id = stored.id
        url = stored.subscription.url
        events = stored.subscription.events
        description = stored.subscription.description
        enabled = stored.subscription.enabled
        revision = stored.revision
        updatedAt = stored.updatedAt
        updatedBy = stored.updatedBy
        previousSecretExpiresAt = stored.previousSecretExpiresAt.flatMap {
            $0 > Timestamp.nowMilliseconds() ? Timestamp.format(milliseconds: $0) : nil
        }
        self.health = health.map {
            Health(
                pending: $0.pending,
                failed: $0.failed,
                lastAttemptAt: $0.lastAttemptAt.map(Timestamp.format(milliseconds:)),
                lastAttemptStatus: $0.lastAttemptStatus,
                lastAttemptSucceeded: $0.lastAttemptSucceeded
            )
        }
    }
}

/// `AdminWebhookDelivery`: one delivery of the log, with its attempts; `payload` (the body sent)
/// only when one delivery is read.
struct AdminWebhookDelivery: Encodable {
    struct Attempt: Encodable {
        var number: Int
        var startedAt: String
        var latencyMs: Int64
        var statusCode: Int?
        var error: String?
        var responseExcerpt: String?
        var address: String?
    }

    var id: String
    var webhookId: String
    var messageId: String
    var eventType: String
    var status: String
    var attemptCount: Int
    var createdAt: String
    var nextAttemptAt: String?
    var finishedAt: String?
    var redeliveryOf: String?
    var requestedBy: String?
    var attempts: [Attempt]
    var payload: JSONValue?

    init(_ delivery: WebhookDelivery) {
        id = delivery.id
        webhookId = delivery.webhookID
        messageId = delivery.messageID
        eventType = delivery.eventType
        status = delivery.status.rawValue
        attemptCount = delivery.attemptCount
        createdAt = Timestamp.format(milliseconds: delivery.createdAt)
        nextAttemptAt = delivery.nextAttemptAt.map(Timestamp.format(milliseconds:))
        finishedAt = delivery.finishedAt.map(Timestamp.format(milliseconds:))
        redeliveryOf = delivery.redeliveryOf
        requestedBy = delivery.requestedBy
        attempts = delivery.attempts.map {
            Attempt(
                number: $0.number,
                startedAt: Timestamp.format(milliseconds: $0.startedAt),
                latencyMs: $0.latencyMilliseconds,
                statusCode: $0.statusCode,
                error: $0.error,
                responseExcerpt: $0.responseExcerpt,
                address: $0.address
            )
        }
        payload = delivery.body.flatMap { try? JSONParser.parse(Array($0.utf8)) }
    }
}
