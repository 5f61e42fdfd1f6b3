import EmptyStateStore
import HTTPServer

/// `/v1/admin/templates/{id}/revisions` and `…/rollback`: a template's history, one revision's
/// document, and making an earlier revision the newest (which restores a deleted template).
extension AdminAPI {
    func registerRevisions(on router: inout Router) {
        router.get(
            "/v1/admin/templates/{id}/revisions",
            blocking: true,
            route(.viewer) { request, _ in try revisions(request) }
        )
        router.get(
            "/v1/admin/templates/{id}/revisions/{revision}",
            blocking: true,
            route(.viewer) { request, _ in try revision(request) }
        )
        router.add(
            .post,
            "/v1/admin/templates/{id}/rollback",
            blocking: true,
            route(.editor) { try rollback($0, actor: $1) }
        )
    }

    private func revisions(_ request: HTTPRequest) throws -> HTTPResponse {
        let (page, size) = try paging(request)
        let result = try store.revisions(id: id(request), page: page, pageSize: size)
        return try .json(AdminResponses.Page(result, AdminResponses.Revision.init))
    }

    private func revision(_ request: HTTPRequest) throws -> HTTPResponse {
        let number = try revisionNumber(request)
        return try .json(AdminResponses.Revision(try store.revision(id: id(request), number: number)))
    }

    private func rollback(_ request: HTTPRequest, actor: AdminToken) throws -> HTTPResponse {
        let target = try rollbackTarget(request)
        let expected = request.headers["if-match"] == nil ? nil : try expectedRevision(request, id: id(request))
        let stored = try store.rollback(id: id(request), to: target, expectedRevision: expected, actor: actor.name)
        try publish(stored, action: "rolled back to revision \(target)", actor: actor, request: request)
        return try templateResponse(stored, status: 200, strings: nil)
    }
}
