import EmptyStateCore
import EmptyStateStore
import HTTPServer

/// `/v1/admin/app-policies/{platform}`: ops decide which app versions must or may update. The
/// rules are the templates': roles, `If-Match` (428/412), `?validateOnly=true`, 422 with JSON
/// pointers, revisions, rollback and the audit trail, through the same shared pieces. A change
/// is published to clients before the response is sent.
extension AdminAPI {
    func registerAppPolicies(on router: inout Router) {
        router.get(
            "/v1/admin/app-policies/{platform}",
            blocking: true,
            route(.viewer, subject: .appPolicy) { request, _ in try getPolicy(request) }
        )
        router.add(
            .put,
            "/v1/admin/app-policies/{platform}",
            blocking: true,
            route(.editor, subject: .appPolicy) { try putPolicy($0, actor: $1) }
        )
        router.get(
            "/v1/admin/app-policies/{platform}/revisions",
            blocking: true,
            route(.viewer, subject: .appPolicy) { request, _ in try policyRevisions(request) }
        )
        router.get(
            "/v1/admin/app-policies/{platform}/revisions/{revision}",
            blocking: true,
            route(.viewer, subject: .appPolicy) { request, _ in try policyRevision(request) }
        )
        router.add(
            .post,
            "/v1/admin/app-policies/{platform}/rollback",
            blocking: true,
            route(.editor, subject: .appPolicy) { try rollbackPolicy($0, actor: $1) }
        )
    }

    // MARK: - Handlers

    private func getPolicy(_ request: HTTPRequest) throws -> HTTPResponse {
        let stored = try store.policy(platform: platform(request))
        if let notModified = notModified(request, revision: stored.revision) { return notModified }
        return try policyResponse(stored, status: 200)
    }

    private func putPolicy(_ request: HTTPRequest, actor: AdminToken) throws -> HTTPResponse {
        let platform = try platform(request)
        let document = try body(request)
        guard case .object = document else { throw AdminProblems.notAnObject }
        let policy: AppPolicy
        switch AppPolicy.parse(document, expectedPlatform: platform) {
        case .success(let parsed): policy = parsed
        case .failure(let failure):
            throw AdminProblems.unprocessable(
                failure.issues.map { .init(.pointer($0.pointer), $0.rule) },
                subject: .appPolicy
            )
        }
        if try validateOnly(request) {
            return try .json(AdminResponses.Validation(document: policy.document, subject: .appPolicy))
        }
        let precondition = try writePrecondition(request, id: nil, allowCreate: true)
        let (stored, created) = try store.putPolicy(policy, precondition: precondition, actor: actor.name)
        publish(stored, action: created ? "created" : "replaced", actor: actor, request: request)
        var response = try policyResponse(stored, status: created ? 201 : 200)
        if created { response.headers.append(("Location", "/v1/admin/app-policies/\(platform.rawValue)")) }
        return response
    }

    private func policyRevisions(_ request: HTTPRequest) throws -> HTTPResponse {
        let platform = try platform(request)
        let (page, size) = try paging(request)
        let result = try store.policyRevisions(platform: platform, page: page, pageSize: size)
        return try .json(AdminResponses.Page(result, AdminResponses.Revision.init))
    }

    private func policyRevision(_ request: HTTPRequest) throws -> HTTPResponse {
        let platform = try platform(request)
        let number = try revisionNumber(request)
        return try .json(AdminResponses.Revision(try store.policyRevision(platform: platform, number: number)))
    }

    private func rollbackPolicy(_ request: HTTPRequest, actor: AdminToken) throws -> HTTPResponse {
        let platform = try platform(request)
        let target = try rollbackTarget(request, subject: .appPolicy)
        let expected = request.headers["if-match"] == nil ? nil : try expectedRevision(request, id: nil)
        let stored = try store.rollbackPolicy(
            platform: platform,
            to: target,
            expectedRevision: expected,
            actor: actor.name
        )
        publish(stored, action: "rolled back to revision \(target)", actor: actor, request: request)
        return try policyResponse(stored, status: 200)
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

    private func policyResponse(_ stored: StoredAppPolicy, status: Int) throws -> HTTPResponse {
        try .json(AdminResponses.AppPolicy(stored), status: status, headers: [("ETag", Self.etag(stored.revision))])
    }
}
