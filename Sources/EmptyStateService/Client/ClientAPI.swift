import EmptyStateCore
import EmptyStateStore
import EmptyStateWeb
import HTTPServer
import JSONCoding

/// The read-only endpoints apps call: one template, or the whole catalogue, localized.
struct ClientAPI: Sendable {
    /// Read once per request: a change published meanwhile is served from the next request on.
    let state: CatalogueState
    let cacheControl: String
    /// `Cache-Control` of answers made for an install id (its variant of a running experiment):
    /// kept out of shared caches, and short-lived, so that a stop or a ship reaches apps within
    /// `variantStopBound` seconds while the service answers (`variantCacheControl(from:)`).
    let privateCacheControl: String
    /// Resolves `X-Preview-Token`; `nil` serves no previews (tests of other parts).
    let previews: PreviewChannel?
    /// The preview this copy of the API answers from (`previewing`); `nil`: live.
    private(set) var preview: PreviewChannel.Preview?

    /// The longest a variant answer may be used without revalidation: `max-age` 60 then
    /// `stale-while-revalidate` 60 (an ordinary template's is a day: the copy of a stopped
    /// experiment would otherwise be shown for up to a day). A lower configured `max-age` is kept.
    static let variantMaxAge = 60
    static let variantStaleWhileRevalidate = 60
    static let variantStopBound = variantMaxAge + variantStaleWhileRevalidate

    init(state: CatalogueState, cacheControl: String, previews: PreviewChannel? = nil) {
        self.state = state
        self.cacheControl = cacheControl
        self.previews = previews
        privateCacheControl = Self.variantCacheControl(from: cacheControl)
    }

    /// The variant answers' `Cache-Control` from the client answers' one: `private`, `max-age` at
    /// most `variantMaxAge`, `stale-while-revalidate` at most `variantStaleWhileRevalidate`, other
    /// directives (`stale-if-error`: an app may show its copy while the service is down) as they are.
    static func variantCacheControl(from cacheControl: String) -> String {
        var directives: [String] = ["private"]
        for part in cacheControl.split(separator: ",") {
            let directive = String(part.drop { $0 == " " })
            let pieces = directive.split(separator: "=", maxSplits: 1).map(String.init)
            switch pieces.first {
            case "public", "private", "immutable": continue
            case "max-age":
                let seconds = pieces.count == 2 ? Int(pieces[1]) ?? variantMaxAge : variantMaxAge
                directives.append("max-age=\(min(seconds, variantMaxAge))")
            case "stale-while-revalidate":
                let seconds = pieces.count == 2 ? Int(pieces[1]) ?? variantStaleWhileRevalidate : 0
                directives.append("stale-while-revalidate=\(min(seconds, variantStaleWhileRevalidate))")
            default: directives.append(directive)
            }
        }
        return directives.joined(separator: ", ")
    }

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
        /// A change request's preview (`PreviewChannel`). In the key so that a request with a
        /// token never meets a remembered live answer; preview answers themselves are never
        /// remembered, so the memo holds no key with a token.
        case previewToken = "X-Preview-Token"
    }

    /// A request to a client route, as its handler sees it.
    typealias Request = MemoizedRequest<VaryingHeader>

    /// The header of copy experiments, deliberately not a `VaryingHeader`: it is read only for a
    /// template in a running experiment (and for bundles while one runs), whose answers are never
    /// remembered (`MemoizedRequest.unremembered`). Every other template keeps a memo key
    /// without it, so a million installs asking for it share one remembered answer.
    enum ExperimentHeader: String, VaryingHeaders {
        /// The install id (`InstallID`), which picks the experiment variant.
        case installID = "X-Install-ID"
        /// The app's version (`AppVersion`), for an experiment's app version range.
        case appVersion = "X-App-Version"
        /// When the install was first launched (RFC 3339), for an experiment's new installs.
        case installedAt = "X-Installed-At"
    }

    /// A client request that may read the install id: answered without the memo.
    typealias ExperimentRequest = UnrememberedRequest<VaryingHeader, ExperimentHeader>

    /// How an answer depends on the install id, which decides its `Vary` and `Cache-Control`.
    enum InstallDependence: Int {
        /// Not at all: a template in no running experiment (its headers are as they always were).
        case none = 0
        /// Its content is the same for every request without an install id, and another
        /// install id would change it: `Vary: X-Install-ID`, still shareable.
        case varies = 1
        /// Made for the install id the request sent: `Vary: X-Install-ID` and
        /// `Cache-Control: private`.
        case personal = 2
    }

    /// Registers the client routes, memoized.
    func register(on router: inout Router) {
        router.get("/v1/templates/{id}", memoizedVaryingOn: VaryingHeader.self) {
            previewing($0) { api, request in api.template(request) }
        }
        router.get("/v1/templates", memoizedVaryingOn: VaryingHeader.self) {
            previewing($0) { api, request in api.bundle(request) }
        }
        router.get("/v1/app-status", memoizedVaryingOn: VaryingHeader.self) {
            previewing($0) { api, request in api.appStatus(request) }
        }
    }

    /// The snapshot this request is answered from: the preview's, or the live one.
    var servedSnapshot: CatalogueSnapshot { preview?.snapshot ?? state.snapshot }

    /// Answers `request` with `answer`: as it is without `X-Preview-Token` (one header lookup is
    /// all the ordinary path pays), or, with one, from a copy of this API serving the token's
    /// preview (`PreviewChannel`), never remembered. A token that does not work is 401.
    func previewing(_ request: Request, _ answer: (ClientAPI, Request) -> HTTPResponse) -> HTTPResponse {
        guard let secret = request.header(.previewToken) else { return answer(self, request) }
        guard let previews else {
            return PreviewChannel.refused("this server serves no previews").response(
                requestID: request.id,
                extraHeaders: [PreviewChannel.challenge]
            )
        }
        switch previews.preview(secret, live: state.snapshot, requestID: request.id) {
        case .failure(let problem):
            let extra: [(name: String, value: String)] =
                switch problem.status {
                case 401: [PreviewChannel.challenge]
                case 503: [("Retry-After", "1")]
                default: []
                }
            return problem.response(requestID: request.id, extraHeaders: extra)
        case .success(let preview):
            var api = self
            api.preview = preview
            var response = answer(api, request)
            response.memoTag = nil
            // Problems (an unknown template, a bad parameter) say they answered a preview too.
            if response.status >= 400 { response.headers.append((PreviewChannel.markHeader, preview.mark)) }
            return response
        }
    }

    /// `GET /v1/templates/{id}`
    func template(_ request: Request) -> HTTPResponse {
        let snapshot = servedSnapshot
        let query: ClientQuery
        switch ClientQuery.parse(request, knownTags: snapshot.knownLocaleTags) {
        case .success(let parsed): query = parsed
        case .failure(let problem): return problem.response(requestID: request.id)
        }
        let name = request.pathParameters["id"] ?? ""
        guard let entry = snapshot.entry(named: name) else { return Self.unknownTemplate(name, requestID: request.id) }
        if let served = snapshot.experiment(onTemplate: entry.template.id) {
            return request.unremembered(reading: ExperimentHeader.self) { request in
                switch Self.select(entry, in: served, for: request, query: query) {
                case .success(let (selected, dependence)):
                    return template(selected, request: request.memoized, query: query, install: dependence)
                case .failure(let problem):
                    return problem.response(requestID: request.memoized.id)
                }
            }
        }
        return template(entry, request: request, query: query, memoTag: .template(name))
    }

    /// The answer of `GET /v1/templates/{id}` from `entry`.
    private func template(
        _ entry: CatalogueSnapshot.Entry,
        request: Request,
        query: ClientQuery,
        install: InstallDependence = .none,
        memoTag: CatalogueMemoTag? = nil
    ) -> HTTPResponse {
        let locale = entry.locales.resolve(query.preferences)
        if query.parameters.isEmpty, let rendered = entry.representation(locale: locale, platform: query.platform) {
            return respond(with: rendered, to: request, query: query, install: install, memoTag: memoTag)
        }
        let copy = TemplateRenderer.copy(of: entry.template, in: locale)
        let personalized = CatalogueSnapshot.Representation(
            bytes: TemplateRenderer.render(
                entry.template,
                copy: copy,
                platform: query.platform,
                parameters: query.parameters,
                revision: entry.revision,
                icons: IconSet.lucide,
                experiment: entry.experiment
            ),
            contentLanguage: copy.locale
        )
        return respond(with: personalized, to: request, query: query, personalized: true, install: install)
    }

    /// The entry a template in a running experiment is served from for this request, and how
    /// the answer depends on the install id: without one, the template as it is (control,
    /// unmarked, not counted as exposed); with one, its variant (or the template as it is
    /// outside the coverage). A malformed install id is refused rather than ignored: the app
    /// would otherwise never be in the experiment and never know why.
    static func select(
        _ entry: CatalogueSnapshot.Entry,
        in served: CatalogueSnapshot.ServedExperiment,
        for request: ExperimentRequest,
        query: ClientQuery
    ) -> Result<(CatalogueSnapshot.Entry, InstallDependence), ProblemDetails> {
        switch installID(request) {
        case .success(nil): return .success((entry, .varies))
        case .success(let id?):
            // The target sees the locale the request is served in, which is the variants' too.
            switch attributes(request, query: query, locale: entry.locales.resolve(query.preferences)) {
            case .success(let attributes):
                return .success((served.entry(for: id, attributes: attributes) ?? entry, .personal))
            case .failure(let problem): return .failure(problem)
            }
        case .failure(let problem): return .failure(problem)
        }
    }

    /// What an experiment's target sees of the request: its platform (`?platform=`, web by
    /// default), the locale it is served in, and the app's version and install time when sent.
    /// - Returns: a 400 problem naming each header whose value is malformed (an app that sends a
    ///   broken version would otherwise fall out of every version range and never know why).
    static func attributes(
        _ request: ExperimentRequest,
        query: ClientQuery,
        locale: String
    ) -> Result<ExperimentTargeting.Attributes, ProblemDetails> {
        var attributes = ExperimentTargeting.Attributes(platform: query.platform, locale: locale)
        var errors: [ProblemDetails.FieldError] = []
        if let text = request.header(.appVersion) {
            if let version = AppVersion(text) {
                attributes.appVersion = version
            } else {
                errors.append(.init(.header(ExperimentHeader.appVersion.rawValue), "is not a version (e.g. 5.2.0)"))
            }
        }
        if let text = request.header(.installedAt) {
            if let instant = Timestamp.parse(text) {
                attributes.installedAt = instant
            } else {
                errors.append(
                    .init(
                        .header(ExperimentHeader.installedAt.rawValue),
                        "is not an RFC 3339 date-time (e.g. 2026-11-28T10:00:00Z)"
                    )
                )
            }
        }
        guard errors.isEmpty else {
            return .failure(
                ProblemDetails(
                    status: 400,
                    slug: "invalid-install-attributes",
                    title: "Invalid Install Attributes",
                    detail: "A header an experiment's target reads is malformed; send it well-formed, or not at all.",
                    errors: errors
                )
            )
        }
        return .success(attributes)
    }

    /// The request's install id; `nil` when it sent none.
    /// - Returns: a 400 problem naming the header when the value breaks `InstallID`'s rule.
    static func installID(_ request: ExperimentRequest) -> Result<String?, ProblemDetails> {
        guard let value = request.header(.installID) else { return .success(nil) }
        guard InstallID.isValid(value) else {
            return .failure(
                ProblemDetails(
                    status: 400,
                    slug: "invalid-install-id",
                    title: "Invalid Install ID",
                    detail: "The X-Install-ID header must be \(InstallID.rule); send none to be served control.",
                    errors: [.init(.header(ExperimentHeader.installID.rawValue), "must be \(InstallID.rule)")]
                )
            )
        }
        return .success(value)
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
        let snapshot = servedSnapshot
        let query: ClientQuery
        switch ClientQuery.parse(request, knownTags: snapshot.knownLocaleTags) {
        case .success(let parsed): query = parsed
        case .failure(let problem): return problem.response(requestID: request.id)
        }
        let locale = snapshot.bundleLocales.resolve(query.preferences)
        if snapshot.hasRunningExperiments {
            return request.unremembered(reading: ExperimentHeader.self) { request in
                switch Self.installID(request) {
                case .success(let installID):
                    var substitutes: [String: CatalogueSnapshot.Entry] = [:]
                    if let installID {
                        switch Self.attributes(request, query: query, locale: locale) {
                        case .success(let attributes):
                            substitutes = snapshot.variantEntries(for: installID, attributes: attributes)
                        case .failure(let problem):
                            return problem.response(requestID: request.memoized.id)
                        }
                    }
                    return bundle(
                        snapshot,
                        locale: locale,
                        request: request.memoized,
                        query: query,
                        substitutes: substitutes,
                        install: installID == nil ? .varies : .personal
                    )
                case .failure(let problem):
                    return problem.response(requestID: request.memoized.id)
                }
            }
        }
        return bundle(snapshot, locale: locale, request: request, query: query)
    }

    /// The answer of `GET /v1/templates` in `locale`, with `substitutes` (an install's variants,
    /// by template id) served instead of the templates' own entries.
    private func bundle(
        _ snapshot: CatalogueSnapshot,
        locale: String,
        request: Request,
        query: ClientQuery,
        substitutes: [String: CatalogueSnapshot.Entry] = [:],
        install: InstallDependence = .none
    ) -> HTTPResponse {
        if query.parameters.isEmpty, substitutes.isEmpty,
            let rendered = snapshot.bundle(locale: locale, platform: query.platform)
        {
            let memoTag: CatalogueMemoTag? = install == .none ? .bundles : nil
            return respond(with: rendered, to: request, query: query, install: install, memoTag: memoTag)
        }
        // Made for this request: joined from the variants' representations (rendered once per
        // snapshot), or rendered with the placeholder values.
        let bytes =
            query.parameters.isEmpty
            ? snapshot.assembleBundle(locale: locale, platform: query.platform, substitutes: substitutes)
            : snapshot.renderBundle(
                locale: locale,
                platform: query.platform,
                parameters: query.parameters,
                substitutes: substitutes
            )
        let personalized = CatalogueSnapshot.Representation(bytes: bytes, contentLanguage: locale)
        return respond(with: personalized, to: request, query: query, personalized: true, install: install)
    }

    /// 200 with the representation (gzip when accepted), or 304 when the client's copy is current.
    /// - Parameters:
    ///   - personalized: the representation was rendered for this request (placeholder
    ///     values): its answer is an ordinary response, built for this request alone. Prepared,
    ///     it would be lent and remembered by the server's memo, whose keys `param.*` values make
    ///     as many as clients care to send (about 9 KB each).
    ///   - memoTag: what the answer is made of, which the memo forgets it by when that changes;
    ///     `nil`: the answer is not remembered.
    func respond(
        with representation: CatalogueSnapshot.Representation,
        to request: Request,
        query: ClientQuery,
        personalized: Bool = false,
        install: InstallDependence = .none,
        memoTag: CatalogueMemoTag? = nil
    ) -> HTTPResponse {
        respond(
            with: representation,
            to: request,
            varyOnLanguage: !query.localeFromQuery,
            personalized: personalized,
            install: install,
            memoTag: memoTag
        )
    }

    /// `respond(with:to:query:…)` for answers that are not negotiated from a query (the web
    /// assets), with their own `Cache-Control`.
    /// - Parameters:
    ///   - varyOnLanguage: `Accept-Language` chose the representation.
    ///   - install: how the answer depends on the install id (`Vary`, `Cache-Control`).
    func respond(
        with representation: CatalogueSnapshot.Representation,
        to request: Request,
        varyOnLanguage: Bool,
        personalized: Bool = false,
        install: InstallDependence = .none,
        memoTag: CatalogueMemoTag? = nil,
        cacheControl: String? = nil
    ) -> HTTPResponse {
        let cacheControl =
            preview != nil
            ? PreviewChannel.cacheControl
            : install == .personal ? privateCacheControl : cacheControl ?? self.cacheControl
        let acceptsGzip = ConditionalRequests.acceptsGzip(request.header(.acceptEncoding))
        let gzip = acceptsGzip ? representation.gzip : nil
        var notModified = false
        if let condition = request.header(.ifNoneMatch) {
            let etag = gzip?.etag ?? representation.etag
            notModified = ConditionalRequests.noneMatch(condition, matches: preview?.etag(etag) ?? etag)
        }
        let make = {
            Self.answer(
                representation,
                gzip: gzip,
                varyOnLanguage: varyOnLanguage,
                varyOnInstall: install != .none,
                notModified: notModified,
                cacheControl: cacheControl,
                preview: preview
            )
        }
        // A preview is made for its caller alone: never prepared, lent or remembered.
        if personalized || preview != nil {
            let answer = make()
            return HTTPResponse(status: answer.status, headers: answer.headers, body: answer.body)
        }
        let slot =
            install.rawValue * 8 + (gzip != nil ? 4 : 0) + (varyOnLanguage ? 2 : 0) + (notModified ? 1 : 0)
        var response = HTTPResponse(representation.prepared(slot: slot, make: make))
        // An identity answer given only because the gzip bytes are still being made in the
        // background is not remembered: the same request asks again once they are ready.
        response.memoTag = acceptsGzip && gzip == nil && representation.gzipPending ? nil : memoTag
        return response
    }

    /// One way of answering with a representation, as a response to prepare.
    private static func answer(
        _ representation: CatalogueSnapshot.Representation,
        gzip: CatalogueSnapshot.Variant?,
        varyOnLanguage: Bool,
        varyOnInstall: Bool,
        notModified: Bool,
        cacheControl: String,
        preview: PreviewChannel.Preview? = nil
    ) -> PreparedResponse {
        let variant = gzip ?? representation.identity
        var headers: [(name: String, value: String)] = [
            ("ETag", preview?.etag(variant.etag) ?? variant.etag),
            ("Cache-Control", cacheControl),
            // Public, unauthenticated reads: any site may fetch them (the web component does, from
            // the page's origin). No credentials are ever involved, so `*` is safe.
            ("Access-Control-Allow-Origin", "*"),
        ]
        // An app-status answer without a template has no language.
        if !representation.contentLanguage.isEmpty {
            headers.append(("Content-Language", representation.contentLanguage))
        }
        var vary = varyOnLanguage ? "Accept-Language, Accept-Encoding" : "Accept-Encoding"
        // Not on X-App-Version or X-Installed-At, which a target may read: an answer made for an
        // install id is private and fresh for 60 s, and an install's version changes only when
        // the app is updated (its install time never), so a device's own cache cannot mix them up.
        if varyOnInstall { vary += ", X-Install-ID" }
        if let preview {
            vary += ", " + PreviewChannel.header
            headers.append((PreviewChannel.markHeader, preview.mark))
        }
        headers.append(("Vary", vary))
        headers.append(contentsOf: representation.extraHeaders)
        if notModified { return PreparedResponse(status: 304, headers: headers, body: nil) }
        headers.append(("Content-Type", representation.contentType))
        if gzip != nil { headers.append(("Content-Encoding", "gzip")) }
        return PreparedResponse(status: 200, headers: headers, body: variant.body)
    }
}
