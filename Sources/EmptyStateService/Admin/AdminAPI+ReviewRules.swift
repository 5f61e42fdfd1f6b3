import EmptyStateStore
import HTTPServer

/// `/v1/admin/review-rules`: how many approvals a change request needs, globally and per
/// template category, and whether an editor may publish a rollback request at once. Every
/// token reads them (an editor needs to know why a direct write was refused); only an admin
/// changes them, with `If-Match` (`"r0"` while no admin ever set them), audited as a revision.
extension AdminAPI {
    func registerReviewRules(on router: inout Router) {
        router.get(
            "/v1/admin/review-rules",
            blocking: true,
            route(.viewer, subject: .reviewRules) { request, _ in try getRules(request) }
        )
        router.add(
            .put,
            "/v1/admin/review-rules",
            blocking: true,
            route(.admin, subject: .reviewRules) { try putRules($0, actor: $1) }
        )
    }

    private func getRules(_ request: HTTPRequest) throws -> HTTPResponse {
        let stored = try store.readCatalogue { edits in try edits.reviewRules() }
        if let notModified = notModified(request, revision: stored.revision) { return notModified }
        return try .json(
            AdminResponses.reviewRulesJSON(stored),
            headers: [("ETag", Self.etag(stored.revision))]
        )
    }

    private func putRules(_ request: HTTPRequest, actor: AdminToken) throws -> HTTPResponse {
        let expected = try expectedRevision(request, id: nil)
        let document = try body(request)
        guard case .object = document else { throw AdminProblems.notAnObject }
        let rules: ReviewRules
        switch ReviewRules.parse(document) {
        case .success(let parsed): rules = parsed
        case .failure(let failure):
            throw AdminProblems.unprocessable(
                failure.issues.map { .init(.pointer($0.pointer), $0.rule) },
                subject: .reviewRules
            )
        }
        let stored = try store.write { edits in
            try edits.putReviewRules(rules, expectedRevision: expected, actor: actor.name)
        }
        logger.notice(
            "review rules changed",
            metadata: [
                "review_rules.revision": "\(stored.revision)",
                "review_rules.required_approvals": "\(rules.requiredApprovals)",
                "review_rules.categories": "\(rules.categories.map { "\($0.key.rawValue)=\($0.value)" }.sorted())",
                "review_rules.emergency_rollback": "\(rules.allowEmergencyRollback)",
                "admin.actor": "\(actor.name)", "request.id": "\(request.id)",
            ]
        )
        return try .json(
            AdminResponses.reviewRulesJSON(stored),
            headers: [("ETag", Self.etag(stored.revision))]
        )
    }
}
