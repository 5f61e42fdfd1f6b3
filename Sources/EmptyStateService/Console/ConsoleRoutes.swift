import EmptyStateWeb
import HTTPServer

/// `/admin/`: the admin console's page and files, compiled into the binary (`ConsoleAssets`).
///
/// Every answer carries the console's security headers: a Content-Security-Policy that lets the
/// page load and run only the service's own files (no inline script or style, no framing), so a
/// string that escaped the console's escaping could still run nothing; `nosniff`; no `Referer`
/// to other sites; no framing (`frame-ancestors 'none'`, and `X-Frame-Options` for older
/// browsers). The files are revalidated on each load (`no-cache`, a strong ETag): their names are
/// fixed, since ES modules import each other by name and there is no build step to hash them.
struct ConsoleRoutes: Sendable {
    /// Where illustrations are (`--illustration-base-url`): the one other origin images may
    /// come from, for the preview.
    var illustrationBaseURL: String?

    func register(on router: inout Router) {
        router.get("/admin") { request in
            HTTPResponse(status: 308, headers: headers + [("Location", ConsoleAssets.pathPrefix)])
        }
        router.get("/admin/") { request in serve(ConsoleAssets.index, request) }
        router.get("/admin/{file}") { request in
            guard let asset = ConsoleAssets.files[request.pathParameters["file"] ?? ""] else {
                return ProblemDetails(
                    status: 404,
                    slug: "not-found",
                    title: "Not Found",
                    detail: "The admin console has no file with this name."
                ).response(requestID: request.id, extraHeaders: headers)
            }
            return serve(asset, request)
        }
    }

    /// The Content-Security-Policy of every console answer.
    var contentSecurityPolicy: String {
        let images = illustrationBaseURL.flatMap(Self.origin).map { " " + $0 } ?? ""
        return "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:\(images); "
            + "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    }

    var headers: [(name: String, value: String)] {
        [
            ("Content-Security-Policy", contentSecurityPolicy),
            ("X-Content-Type-Options", "nosniff"),
            ("Referrer-Policy", "no-referrer"),
            ("X-Frame-Options", "DENY"),
            ("Cross-Origin-Opener-Policy", "same-origin"),
        ]
    }

    private func serve(_ asset: WebAsset, _ request: HTTPRequest) -> HTTPResponse {
        let etag = "\"" + asset.hash + "\""
        let common = headers + [("ETag", etag), ("Cache-Control", "no-cache")]
        if let condition = request.headers["if-none-match"], ConditionalRequests.noneMatch(condition, matches: etag) {
            return HTTPResponse(status: 304, headers: common)
        }
        return HTTPResponse(
            status: 200,
            headers: common + [("Content-Type", asset.contentType)],
            body: .bytes(asset.bytes)
        )
    }

    /// `scheme://host[:port]` of an http(s) URL.
    static func origin(of url: String) -> String? {
        guard let schemeEnd = url.range(of: "://") else { return nil }
        let afterScheme = url[schemeEnd.upperBound...]
        let host = afterScheme.prefix { $0 != "/" && $0 != "?" && $0 != "#" && $0 != "{" }
        guard !host.isEmpty else { return nil }
        return String(url[..<schemeEnd.upperBound]) + host
    }
}
