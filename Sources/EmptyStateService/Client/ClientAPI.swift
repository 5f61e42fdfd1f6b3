import EmptyStateCore
import EmptyStateWeb
import HTTPServer
import JSONCoding

/// The read-only endpoints apps call: one template, or the whole catalogue, localized.
struct ClientAPI: Sendable {
    /// Read once per request: a change published meanwhile is served from the next request on.
    let state: CatalogueState
    let cacheControl: String

    /// The request headers the client routes' answers depend on, beside the URL and the catalogue
    /// snapshot (the web routes' too: `WebAPI` answers through `respond`). Their routes are memoized (the server remembers their answers by these, the
    /// method and the URL), so their handlers read headers only through this list
    /// (`MemoizedRequest`): reading another means adding it here, which adds it to the memo's key.
    enum VaryingHeader: String, VaryingHeaders {
        /// The locale, when the query has no `locale`.
        case acceptLanguage = "Accept-Language"
        /// Whether the gzip representation is sent.
        case acceptEncoding = "Accept-Encoding"
        /// Whether the answer is 304.
        case ifNoneMatch = "If-None-Match"
    }

    /// A request to a client route, as its handler sees it.
    typealias Request = MemoizedRequest<VaryingHeader>

    /// Registers the client routes, memoized.
    func register(on router: inout Router) {
        router.get("/v1/templates/{id}", memoizedVaryingOn: VaryingHeader.self) { template($0) }
        router.get("/v1/templates", memoizedVaryingOn: VaryingHeader.self) { bundle($0) }
        router.get("/v1/app-status", memoizedVaryingOn: VaryingHeader.self) { appStatus($0) }
    }

    /// `GET /v1/templates/{id}`
    func template(_ request: Request) -> HTTPResponse {
        let snapshot = state.snapshot
        let query: ClientQuery
        switch ClientQuery.parse(request, knownTags: snapshot.knownLocaleTags) {
        case .success(let parsed): query = parsed
        case .failure(let problem): return problem.response(requestID: request.id)
        }
        let name = request.pathParameters["id"] ?? ""
        guard let entry = snapshot.entry(named: name) else { return Self.unknownTemplate(name, requestID: request.id) }
        let locale = entry.locales.resolve(query.preferences)
        if query.parameters.isEmpty, let rendered = entry.representation(locale: locale, platform: query.platform) {
            return respond(with: rendered, to: request, query: query, memoName: name)
        }
        let copy = TemplateRenderer.copy(of: entry.template, in: locale)
        let personalized = CatalogueSnapshot.Representation(
            bytes: TemplateRenderer.render(
                entry.template,
                copy: copy,
                platform: query.platform,
                parameters: query.parameters,
                revision: entry.revision,
                icons: IconSet.lucide
            ),
            contentLanguage: copy.locale
        )
        return respond(with: personalized, to: request, query: query, personalized: true)
    }

    /// The 404 of a template id or alias the catalogue does not have.
    static func unknownTemplate(_ name: String, requestID: String) -> HTTPResponse {
        ProblemDetails(
            status: 404,
            slug: "unknown-template",
            title: "Unknown Template",
            detail: "There is no template with this id.",
            errors: [
                .init(.parameter("id"), TemplateParser.isValidID(name) ? "no such template" : "not a valid template id")
            ]
        ).response(requestID: requestID)
    }

    /// `GET /v1/templates`
    func bundle(_ request: Request) -> HTTPResponse {
        let snapshot = state.snapshot
        let query: ClientQuery
        switch ClientQuery.parse(request, knownTags: snapshot.knownLocaleTags) {
        case .success(let parsed): query = parsed
        case .failure(let problem): return problem.response(requestID: request.id)
        }
        let locale = snapshot.bundleLocales.resolve(query.preferences)
        if query.parameters.isEmpty, let rendered = snapshot.bundle(locale: locale, platform: query.platform) {
            return respond(with: rendered, to: request, query: query, memoName: CatalogueSnapshot.bundleMemoName)
        }
        let personalized = CatalogueSnapshot.Representation(
            bytes: snapshot.renderBundle(locale: locale, platform: query.platform, parameters: query.parameters),
            contentLanguage: locale
        )
        return respond(with: personalized, to: request, query: query, personalized: true)
    }

    /// 200 with the representation (gzip when accepted), or 304 when the client's copy is current.
    /// - Parameters:
    ///   - personalized: the representation was rendered for this request (placeholder
    ///     values): its answer is an ordinary response, built for this request alone. Prepared,
    ///     it would be lent and remembered by the server's memo, whose keys `param.*` values make
    ///     as many as clients care to send (about 9 KB each).
    ///   - memoName: the template name (or the bundles' name) the memo forgets the answer by
    ///     when it changes; `nil`: the answer is not remembered.
    func respond(
        with representation: CatalogueSnapshot.Representation,
        to request: Request,
        query: ClientQuery,
        personalized: Bool = false,
        memoName: String? = nil
    ) -> HTTPResponse {
        respond(
            with: representation,
            to: request,
            varyOnLanguage: !query.localeFromQuery,
            personalized: personalized,
            memoName: memoName
        )
    }

    /// `respond(with:to:query:…)` for answers that are not negotiated from a query (the web
    /// assets), with their own `Cache-Control`.
    /// - Parameter varyOnLanguage: `Accept-Language` chose the representation.
    func respond(
        with representation: CatalogueSnapshot.Representation,
        to request: Request,
        varyOnLanguage: Bool,
        personalized: Bool = false,
        memoName: String? = nil,
        cacheControl: String? = nil
    ) -> HTTPResponse {
        let cacheControl = cacheControl ?? self.cacheControl
        let acceptsGzip = ConditionalRequests.acceptsGzip(request.header(.acceptEncoding))
        let gzip = acceptsGzip ? representation.gzip : nil
        var notModified = false
        if let condition = request.header(.ifNoneMatch) {
            notModified = ConditionalRequests.noneMatch(condition, matches: gzip?.etag ?? representation.etag)
        }
        let make = {
            Self.answer(
                representation,
                gzip: gzip,
                varyOnLanguage: varyOnLanguage,
                notModified: notModified,
                cacheControl: cacheControl
            )
        }
        if personalized {
            let answer = make()
            return HTTPResponse(status: answer.status, headers: answer.headers, body: answer.body)
        }
        let slot = (gzip != nil ? 4 : 0) + (varyOnLanguage ? 2 : 0) + (notModified ? 1 : 0)
        var response = HTTPResponse(representation.prepared(slot: slot, make: make))
        // An identity answer given only because the gzip bytes are still being made in the
        // background is not remembered: the same request asks again once they are ready.
        response.memoName = acceptsGzip && gzip == nil && representation.gzipPending ? nil : memoName
        return response
    }

    /// One way of answering with a representation, as a response to prepare.
    private static func answer(
        _ representation: CatalogueSnapshot.Representation,
        gzip: CatalogueSnapshot.Variant?,
        varyOnLanguage: Bool,
        notModified: Bool,
        cacheControl: String
    ) -> PreparedResponse {
        let variant = gzip ?? representation.identity
        var headers: [(name: String, value: String)] = [
            ("ETag", variant.etag),
            ("Cache-Control", cacheControl),
            // Public, unauthenticated reads: any site may fetch them (the web component does, from
            // the page's origin). No credentials are ever involved, so `*` is safe.
            ("Access-Control-Allow-Origin", "*"),
        ]
        // An app-status answer without a template has no language.
        if !representation.contentLanguage.isEmpty {
            headers.append(("Content-Language", representation.contentLanguage))
        }
        headers.append(("Vary", varyOnLanguage ? "Accept-Language, Accept-Encoding" : "Accept-Encoding"))
        headers.append(contentsOf: representation.extraHeaders)
        if notModified { return PreparedResponse(status: 304, headers: headers, body: nil) }
        headers.append(("Content-Type", representation.contentType))
        if gzip != nil { headers.append(("Content-Encoding", "gzip")) }
        return PreparedResponse(status: 200, headers: headers, body: variant.body)
    }
}
