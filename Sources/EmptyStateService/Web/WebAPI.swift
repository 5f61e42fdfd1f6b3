import EmptyStateCore
import EmptyStateWeb
import HTTPServer

/// The web platform's routes: a template as an HTML fragment and as a standalone page, the
/// stylesheet and the `<empty-state>` component, the gallery, and the CORS preflight of
/// `POST /v1/events`.
///
/// The HTML is served like the JSON (`ClientAPI.respond`): negotiated the same way (`locale`,
/// `Accept-Language`, `param.*`), rendered once per template, locale and heading level and kept by
/// the snapshot's entry, with its ETag, 304, gzip, `Vary` and `Cache-Control`, and remembered by
/// the memo under the template's name. The kinds are told apart by path, never by `Accept`: a
/// shared cache keys on the URL.
struct WebAPI: Sendable {
    let client: ClientAPI
    let illustrationBaseURL: String?

    /// `Cache-Control` of an asset at its hashed name: its bytes never change.
    static let immutable = "public, max-age=31536000, immutable"

    /// The assets as representations, made once, by file name: one for the stable name and one
    /// for the hashed name, since a representation keeps its prepared answers (and so their
    /// `Cache-Control`) once made.
    private static let assets: [String: CatalogueSnapshot.Representation] = {
        var assets: [String: CatalogueSnapshot.Representation] = [:]
        for asset in WebAssets.all {
            for name in [asset.name, asset.hashedName] {
                assets[name] = CatalogueSnapshot.Representation(
                    bytes: asset.bytes,
                    contentLanguage: "",
                    contentType: asset.contentType,
                    extraHeaders: [("X-Content-Type-Options", "nosniff")]
                )
            }
        }
        return assets
    }()

    func register(on router: inout Router) {
        // The HTML reads the headers the JSON reads, and is remembered by them the same way.
        router.get("/v1/web/templates/{id}", memoizedVaryingOn: ClientAPI.VaryingHeader.self) {
            client.previewing($0) { api, request in with(api).html(request, page: false) }
        }
        router.get("/v1/web/templates/{id}/page", memoizedVaryingOn: ClientAPI.VaryingHeader.self) {
            client.previewing($0) { api, request in with(api).html(request, page: true) }
        }
        router.get("/v1/web/assets/{name}", memoizedVaryingOn: ClientAPI.VaryingHeader.self) { asset($0) }
        router.get("/preview") { gallery(ClientAPI.Request($0)) }
        for pattern in Self.installIDReads {
            router.add(.options, pattern) { Self.readPreflight($0) }
        }
    }

    /// The client reads a page may send `X-Install-ID` to (copy experiments).
    static let installIDReads = [
        "/v1/templates/{id}", "/v1/templates", "/v1/web/templates/{id}", "/v1/web/templates/{id}/page",
    ]

    /// This API answering through `client` (a preview's copy of it: `ClientAPI.previewing`).
    private func with(_ client: ClientAPI) -> WebAPI {
        WebAPI(client: client, illustrationBaseURL: illustrationBaseURL)
    }

    /// `GET /v1/web/templates/{id}` and `…/page`.
    func html(_ request: ClientAPI.Request, page: Bool) -> HTTPResponse {
        let snapshot = client.servedSnapshot
        let query: ClientQuery
        switch ClientQuery.parse(request, knownTags: snapshot.knownLocaleTags) {
        case .success(let parsed): query = parsed
        case .failure(let problem): return problem.response(requestID: request.id)
        }
        let level: Int
        switch Self.headingLevel(request, page: page) {
        case .success(let parsed): level = parsed
        case .failure(let problem): return problem.response(requestID: request.id)
        }
        let name = request.pathParameters["id"] ?? ""
        guard let entry = snapshot.entry(named: name) else {
            return ClientAPI.unknownTemplate(name, requestID: request.id)
        }
        let kind = CatalogueSnapshot.HTMLKind(page: page, headingLevel: level)
        // A template in a running experiment: its variant for the install, never remembered
        // (as the JSON: `ClientAPI.template`).
        if let served = snapshot.experiment(onTemplate: entry.template.id) {
            return request.unremembered(reading: ClientAPI.ExperimentHeader.self) { request in
                switch ClientAPI.select(entry, in: served, for: request, query: query) {
                case .success(let (selected, dependence)):
                    return html(selected, kind: kind, request: request.memoized, query: query, install: dependence)
                case .failure(let problem):
                    return problem.response(requestID: request.memoized.id)
                }
            }
        }
        return html(entry, kind: kind, request: request, query: query, memoTag: .template(name))
    }

    /// The HTML answer of `entry`.
    private func html(
        _ entry: CatalogueSnapshot.Entry,
        kind: CatalogueSnapshot.HTMLKind,
        request: ClientAPI.Request,
        query: ClientQuery,
        install: ClientAPI.InstallDependence = .none,
        memoTag: CatalogueMemoTag? = nil
    ) -> HTTPResponse {
        let locale = entry.locales.resolve(query.preferences)
        if query.parameters.isEmpty,
            let rendered = entry.htmlRepresentation(
                locale: locale,
                kind: kind,
                illustrationBaseURL: illustrationBaseURL
            )
        {
            return client.respond(with: rendered, to: request, query: query, install: install, memoTag: memoTag)
        }
        let personalized = CatalogueSnapshot.renderHTML(
            entry,
            locale: locale,
            kind: kind,
            parameters: query.parameters,
            illustrationBaseURL: illustrationBaseURL
        )
        return client.respond(with: personalized, to: request, query: query, personalized: true, install: install)
    }

    /// `level`: the heading's level, 1–6; 3 for a fragment and 1 for a page by default.
    static func headingLevel(_ request: ClientAPI.Request, page: Bool) -> Result<Int, ProblemDetails> {
        guard let text = request.queryValue("level") else { return .success(page ? 1 : 3) }
        guard text.utf8.count == 1, let level = Int(text), (1...6).contains(level) else {
            return .failure(
                ProblemDetails.invalidParameters(
                    [.init(.parameter("level"), "the heading level is 1, 2, 3, 4, 5 or 6")],
                    detail: "A query parameter is invalid."
                )
            )
        }
        return .success(level)
    }

    /// `GET /v1/web/assets/{name}`: `empty-state.css` and `empty-state.js` at their stable names
    /// (revalidated like templates) and at their hashed names (immutable for a year).
    func asset(_ request: ClientAPI.Request) -> HTTPResponse {
        let name = request.pathParameters["name"] ?? ""
        guard let (_, hashed) = WebAssets.asset(named: name), let representation = Self.assets[name] else {
            return ProblemDetails(
                status: 404,
                slug: "not-found",
                title: "Not Found",
                detail: "There is no web asset with this name."
            ).response(requestID: request.id)
        }
        return client.respond(
            with: representation,
            to: request,
            varyOnLanguage: false,
            memoTag: .webAssets,
            cacheControl: hashed ? Self.immutable : nil
        )
    }

    /// `GET /preview?locale=&style=&platform=&size=`: every template (the first 500) in frames of
    /// one size. Rendered per request and not remembered: an ops page, not a hot path. (It reads
    /// the query as the client routes do, `Accept-Language` included.)
    func gallery(_ request: ClientAPI.Request) -> HTTPResponse {
        let snapshot = client.state.snapshot
        let query: ClientQuery
        switch ClientQuery.parse(request, knownTags: snapshot.knownLocaleTags) {
        case .success(let parsed): query = parsed
        case .failure(let problem): return problem.response(requestID: request.id)
        }
        var errors: [ProblemDetails.FieldError] = []
        var style: Template.Style?
        if let text = request.queryValue("style"), text != "template" {
            style = Template.Style(rawValue: text)
            if style == nil { errors.append(.init(.parameter("style"), "must be template, default or subtle")) }
        }
        var size = GallerySize.square
        if let text = request.queryValue("size") {
            if let parsed = GallerySize(rawValue: text) {
                size = parsed
            } else {
                let sizes = GallerySize.allCases.map(\.rawValue).joined(separator: ", ")
                errors.append(.init(.parameter("size"), "must be one of \(sizes)"))
            }
        }
        if !errors.isEmpty {
            return ProblemDetails.invalidParameters(errors, detail: "A query parameter is invalid.")
                .response(requestID: request.id)
        }
        let locale = snapshot.bundleLocales.resolve(query.preferences)
        let tag = LocaleTag(locale)
        let items = snapshot.entriesInOrder.prefix(500).map { entry in
            let resolved = tag.flatMap { entry.locales.resolve($0) } ?? entry.locales.fallback
            return GalleryPage.Item(
                template: entry.template,
                copy: TemplateRenderer.copy(of: entry.template, in: resolved)
            )
        }
        let body = GalleryPage.render(
            Array(items),
            options: GalleryOptions(locale: locale, style: style, platform: query.platform, size: size),
            locales: snapshot.locales,
            illustrationBaseURL: illustrationBaseURL
        )
        return HTTPResponse(
            status: 200,
            headers: [
                ("Content-Type", CatalogueSnapshot.htmlContentType), ("Cache-Control", "no-store"),
                (
                    "Content-Security-Policy",
                    "default-src 'none'; style-src 'self' 'unsafe-inline'; img-src * data:; base-uri 'none'; form-action 'self'"
                ),
                ("X-Content-Type-Options", "nosniff"),
            ],
            body: .bytes(body)
        )
    }

    /// `OPTIONS` of a template read: the CORS preflight of a GET from a page on another origin
    /// that sends `X-Install-ID` (the web component does, for copy experiments); without that
    /// header the GET is simple and needs none.
    static func readPreflight(_ request: HTTPRequest) -> HTTPResponse {
        HTTPResponse(
            status: 204,
            headers: [
                ("Access-Control-Allow-Origin", "*"),
                ("Access-Control-Allow-Methods", "GET, HEAD"),
                (
                    "Access-Control-Allow-Headers",
                    ClientAPI.ExperimentHeader.allCases.map(\.rawValue).joined(separator: ", ") + ", "
                        + PreviewChannel.header
                ),
                ("Access-Control-Max-Age", "86400"),
                ("Cache-Control", "no-store"),
            ]
        )
    }

    /// `OPTIONS /v1/events`: the CORS preflight of a JSON post from a page on another origin
    /// (`Content-Type: application/json` is not a simple request). Only the event sink and the
    /// client reads allow other origins; the admin and analytics APIs answer no preflight.
    static func eventsPreflight(_ request: HTTPRequest) -> HTTPResponse {
        HTTPResponse(
            status: 204,
            headers: [
                ("Access-Control-Allow-Origin", "*"),
                ("Access-Control-Allow-Methods", "POST"),
                ("Access-Control-Allow-Headers", "Content-Type, " + PreviewChannel.header),
                ("Access-Control-Max-Age", "86400"),
                ("Cache-Control", "no-store"),
            ]
        )
    }
}
