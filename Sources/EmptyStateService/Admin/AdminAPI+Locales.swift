import EmptyStateCore
import HTTPServer

/// `/v1/admin/locales`: how completely each locale is translated (`LocaleCompleteness`).
extension AdminAPI {
    func registerLocales(on router: inout Router) {
        router.get("/v1/admin/locales", blocking: true, route(.viewer) { request, _ in try locales(request) })
    }

    private func locales(_ request: HTTPRequest) throws -> HTTPResponse {
        let templates = try store.liveTemplates().map(\.template)
        return try .json(AdminResponses.Locales(LocaleCompleteness.report(for: templates)))
    }
}
