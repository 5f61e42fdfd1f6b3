import EmptyStateCore
import HTTPServer

/// `/v1/admin/locales`: how completely each locale is translated (`LocaleCompleteness`), and
/// which of its translations are stale (written before their source string last changed).
extension AdminAPI {
    func registerLocales(on router: inout Router) {
        router.get("/v1/admin/locales", blocking: true, route(.viewer) { request, _ in try locales(request) })
    }

    private func locales(_ request: HTTPRequest) throws -> HTTPResponse {
        let snapshots = try translations.snapshots()
        return try .json(
            AdminResponses.Locales(
                LocaleCompleteness.report(for: snapshots.map(\.template)),
                stale: TranslationCatalogue.stale(in: snapshots)
            )
        )
    }
}
