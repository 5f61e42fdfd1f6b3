import EmptyStateCore
import HTTPServer
import JSONCoding

/// The read-only endpoints apps call: one template, or the whole catalogue, localized.
struct ClientAPI: Sendable {
    /// Read once per request: a change published meanwhile is served from the next request on.
    let state: CatalogueState
    let cacheControl: String

    /// `GET /v1/templates/{id}`
    func template(_ request: HTTPRequest) -> HTTPResponse {
        let snapshot = state.snapshot
        let query: ClientQuery
        switch ClientQuery.parse(request, knownTags: snapshot.knownLocaleTags) {
        case .success(let parsed): query = parsed
        case .failure(let problem): return problem.response(requestID: request.id)
        }
        let name = request.pathParameters["id"] ?? ""
        guard let entry = snapshot.entry(named: name) else {
            return ProblemDetails(
                status: 404,
                slug: "unknown-template",
                title: "Unknown Template",
                detail: "There is no template with this id.",
                errors: [
                    .init(
                        .parameter("id"),
                        TemplateParser.isValidID(name) ? "no such template" : "not a valid template id"
                    )
                ]
            ).response(requestID: request.id)
        }
        let locale = entry.locales.resolve(query.preferences)
        let representation: CatalogueSnapshot.Representation
        if query.parameters.isEmpty, let rendered = entry.representation(locale: locale, platform: query.platform) {
            representation = rendered
        } else {
            let copy = TemplateRenderer.copy(of: entry.template, in: locale)
            representation = CatalogueSnapshot.Representation(
                bytes: TemplateRenderer.render(
                    entry.template,
                    copy: copy,
                    platform: query.platform,
                    parameters: query.parameters
                ),
                contentLanguage: copy.locale
            )
        }
        return respond(with: representation, to: request, query: query)
    }

    /// `GET /v1/templates`
    func bundle(_ request: HTTPRequest) -> HTTPResponse {
        let snapshot = state.snapshot
        let query: ClientQuery
        switch ClientQuery.parse(request, knownTags: snapshot.knownLocaleTags) {
        case .success(let parsed): query = parsed
        case .failure(let problem): return problem.response(requestID: request.id)
        }
        let locale = snapshot.bundleLocales.resolve(query.preferences)
        let representation: CatalogueSnapshot.Representation
        if query.parameters.isEmpty, let rendered = snapshot.bundle(locale: locale, platform: query.platform) {
            representation = rendered
        } else {
            representation = CatalogueSnapshot.Representation(
                bytes: TemplateRenderer.renderBundle(
                    snapshot.catalogue,
                    locale: locale,
                    platform: query.platform,
                    parameters: query.parameters
                ),
                contentLanguage: locale
            )
        }
        return respond(with: representation, to: request, query: query)
    }

    /// 200 with the representation (gzip when accepted), or 304 when the client's copy is current.
    private func respond(
        with representation: CatalogueSnapshot.Representation,
        to request: HTTPRequest,
        query: ClientQuery
    ) -> HTTPResponse {
        let gzip = ConditionalRequests.acceptsGzip(request.headers["accept-encoding"]) ? representation.gzip : nil
        let variant = gzip ?? representation.identity
        var headers: [(name: String, value: String)] = [
            ("ETag", variant.etag),
            ("Cache-Control", cacheControl),
            ("Content-Language", representation.contentLanguage),
            ("Vary", query.localeFromQuery ? "Accept-Encoding" : "Accept-Language, Accept-Encoding"),
        ]
        if let condition = request.headers["if-none-match"] {
            let etags = [representation.identity.etag, representation.gzipETag]
            if ConditionalRequests.noneMatch(condition, matches: etags) {
                return HTTPResponse(status: 304, headers: headers)
            }
        }
        headers.append(("Content-Type", "application/json; charset=utf-8"))
        if gzip != nil { headers.append(("Content-Encoding", "gzip")) }
        return HTTPResponse(status: 200, headers: headers, body: .shared(variant.body))
    }
}
