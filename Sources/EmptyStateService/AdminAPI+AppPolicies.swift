import EmptyStateCore
import EmptyStateStore
import HTTPServer
import JSONCoding

/// `/v1/admin/app-policies/{platform}`: ops decide which app versions must or may update. The
/// rules are the templates': roles, `If-Match` (428/412), `?validateOnly=true`, 422 with JSON
/// pointers, revisions, rollback and the audit trail, through the same shared pieces. A change
/// is published to clients before the response is sent.
extension AdminAPI {
    func registerAppPolicies(on router: inout Router) {
        router.get("/v1/admin/app-policies/{platform}", blocking: true) { request in
            authorization.guarded(request, .viewer) { _ in getPolicy(request) }
        }
        router.add(.put, "/v1/admin/app-policies/{platform}", blocking: true) { request in
            authorization.guarded(request, .editor) { putPolicy(request, actor: $0) }
        }
        router.get("/v1/admin/app-policies/{platform}/revisions", blocking: true) { request in
            authorization.guarded(request, .viewer) { _ in policyRevisions(request) }
        }
        router.get("/v1/admin/app-policies/{platform}/revisions/{revision}", blocking: true) { request in
            authorization.guarded(request, .viewer) { _ in policyRevision(request) }
        }
        router.add(.post, "/v1/admin/app-policies/{platform}/rollback", blocking: true) { request in
            authorization.guarded(request, .editor) { rollbackPolicy(request, actor: $0) }
        }
    }

    // MARK: - Handlers

    private func getPolicy(_ request: HTTPRequest) -> HTTPResponse {
        respond(request, subject: .appPolicy) {
            let stored = try store.policy(platform: platform(request))
            if let condition = request.headers["if-none-match"],
                ConditionalRequests.noneMatch(condition, matches: Self.etag(stored.revision))
            {
                return HTTPResponse(
                    status: 304,
                    headers: [("ETag", Self.etag(stored.revision)), ("Cache-Control", "no-store")]
                )
            }
            return policyResponse(stored, status: 200)
        }
    }

    private func putPolicy(_ request: HTTPRequest, actor: AdminToken) -> HTTPResponse {
        respond(request, subject: .appPolicy) {
            let platform = try platform(request)
            let document = try body(request)
            guard case .object = document else { throw notAnObject }
            let policy: AppPolicy
            switch AppPolicy.parse(document, expectedPlatform: platform) {
            case .success(let parsed): policy = parsed
            case .failure(let failure):
                throw unprocessable(failure.issues.map { .init(.pointer($0.pointer), $0.rule) }, subject: .appPolicy)
            }
            if try validateOnly(request) {
                return json(200) { writer in
                    writer.beginObject()
                    writer.key("valid")
                    writer.bool(true)
                    writer.key("policy")
                    writer.value(policy.document)
                    writer.endObject()
                }
            }
            let precondition = try writePrecondition(request, id: nil, allowCreate: true)
            let (stored, created) = try store.putPolicy(policy, precondition: precondition, actor: actor.name)
            publish(stored, action: created ? "created" : "replaced", actor: actor, request: request)
            var response = policyResponse(stored, status: created ? 201 : 200)
            if created { response.headers.append(("Location", "/v1/admin/app-policies/\(platform.rawValue)")) }
            return response
        }
    }

    private func policyRevisions(_ request: HTTPRequest) -> HTTPResponse {
        respond(request, subject: .appPolicy) {
            let platform = try platform(request)
            let (page, size) = try paging(request)
            let result = try store.policyRevisions(platform: platform, page: page, pageSize: size)
            return json(200) { writer in
                writePage(result, into: &writer) { record, writer in writeRevision(record, into: &writer) }
            }
        }
    }

    private func policyRevision(_ request: HTTPRequest) -> HTTPResponse {
        respond(request, subject: .appPolicy) {
            let platform = try platform(request)
            guard let number = Int(request.pathParameters["revision"] ?? ""), number > 0 else {
                throw ProblemDetails.invalidParameters(
                    [.init(.parameter("revision"), "not a positive integer")],
                    detail: "A revision is a positive integer."
                )
            }
            let record = try store.policyRevision(platform: platform, number: number)
            return json(200) { writer in writeRevision(record, into: &writer) }
        }
    }

    private func rollbackPolicy(_ request: HTTPRequest, actor: AdminToken) -> HTTPResponse {
        respond(request, subject: .appPolicy) {
            let platform = try platform(request)
            let document = try body(request)
            guard case .object = document else { throw notAnObject }
            guard case .number(let number)? = document["revision"], let value = Int(exactly: number), value >= 1 else {
                throw unprocessable(
                    [.init(.pointer("/revision"), "required: the positive integer revision to restore")],
                    subject: .appPolicy
                )
            }
            var expected: Int?
            if request.headers["if-match"] != nil {
                guard case .revision(let revision) = try writePrecondition(request, id: nil, allowCreate: false) else {
                    throw preconditionRequired
                }
                expected = revision
            }
            let stored = try store.rollbackPolicy(
                platform: platform,
                to: value,
                expectedRevision: expected,
                actor: actor.name
            )
            publish(stored, action: "rolled back to revision \(value)", actor: actor, request: request)
            return policyResponse(stored, status: 200)
        }
    }

    // MARK: - Pieces

    /// The path's platform.
    /// - Throws: 404 naming the parameter when it is not `ios`, `android` or `web`.
    private func platform(_ request: HTTPRequest) throws -> Platform {
        let text = request.pathParameters["platform"] ?? ""
        guard let platform = Platform(rawValue: text) else {
            throw ProblemDetails(
                status: 404,
                slug: "unknown-app-policy",
                title: "Unknown App Policy",
                detail: "App policies are per platform: ios, android or web.",
                errors: [.init(.parameter("platform"), "not a platform (one of ios, android, web)")]
            )
        }
        return platform
    }

    /// Serves the policy to clients from the next request on, and logs the change.
    private func publish(_ stored: StoredAppPolicy, action: String, actor: AdminToken, request: HTTPRequest) {
        state.publish(policy: stored)
        logger.notice(
            "app policy published",
            metadata: [
                "app_policy.platform": "\(stored.policy.platform.rawValue)",
                "app_policy.revision": "\(stored.revision)", "admin.action": "\(action)",
                "admin.actor": "\(actor.name)", "request.id": "\(request.id)",
            ]
        )
    }

    private func policyResponse(_ stored: StoredAppPolicy, status: Int) -> HTTPResponse {
        json(status, headers: [("ETag", Self.etag(stored.revision))]) { writer in
            writer.beginObject()
            writer.member("platform", stored.policy.platform.rawValue)
            writer.key("revision")
            writer.int(stored.revision)
            writer.member("updatedAt", stored.updatedAt)
            writer.member("updatedBy", stored.updatedBy)
            writer.key("policy")
            writer.value(stored.policy.document)
            writer.endObject()
        }
    }
}
