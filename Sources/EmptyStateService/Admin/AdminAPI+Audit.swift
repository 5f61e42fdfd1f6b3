import EmptyStateCore
import EmptyStateStore
import HTTPServer

/// `/v1/admin/audit`: every change to templates and app policies, newest first, optionally of
/// one template (`?templateId`) or one platform's policy (`?appPolicy`).
extension AdminAPI {
    func registerAudit(on router: inout Router) {
        router.get("/v1/admin/audit", blocking: true, route(.viewer) { request, _ in try audit(request) })
    }

    private func audit(_ request: HTTPRequest) throws -> HTTPResponse {
        let (page, size) = try paging(request)
        var documentID = request.queryValue("templateId")
        if let text = request.queryValue("appPolicy") {
            guard let platform = Platform(rawValue: text), documentID == nil else {
                throw ProblemDetails.invalidParameters(
                    [
                        .init(
                            .parameter("appPolicy"),
                            documentID == nil
                                ? "must be one of ios, android, web" : "give templateId or appPolicy, not both"
                        )
                    ],
                    detail: "A query parameter is invalid."
                )
            }
            documentID = StoredDocuments.appPolicyID(platform)
        }
        let result = try store.audit(page: page, pageSize: size, templateID: documentID)
        return try .json(AdminResponses.Page(result, AdminResponses.Revision.init))
    }
}
