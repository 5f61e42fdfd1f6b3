import HTTPServer

/// Whether a request authenticated by the console's cookie comes from the console itself: the
/// CSRF defence. Bearer-token requests are not judged by it (a page cannot make the browser add
/// an `Authorization` header to another origin's request).
///
/// Two signals, both set by the browser and not by page script:
/// - `Origin`, sent with every request whose method is not `GET` or `HEAD`: a change (and a
///   sign-in or sign-out) must carry exactly the console's origin. A change without one is
///   refused too: every browser sends it, and the cookie is only ever set by one.
/// - `Sec-Fetch-Site` (Fetch Metadata), on every request of current browsers: `same-origin`
///   is the console's own; `none` is the user typing a URL or following a bookmark (allowed for
///   reads only); `same-site` and `cross-site` are other pages (refused). Absent (an older
///   browser, a tool): `Origin` decides.
enum RequestOrigin {
    /// The 403 to answer, or `nil` when the request may go on.
    /// - Parameter expected: the configured public origin; without one, the request's own
    ///   `Host` over plain HTTP.
    static func refusal(of request: HTTPRequest, expected: PublicOrigin?) -> ProblemDetails? {
        let reads = request.method == .get || request.method == .head
        let site = request.headers["sec-fetch-site"]?.lowercased()
        let own = expected?.origin ?? "http://" + (request.headers["host"] ?? "").lowercased()
        if let site, site != "same-origin", !(reads && site == "none") {
            return problem(
                "This request was made by a page on another \(site == "same-site" ? "origin" : "site") (Sec-Fetch-Site: \(site)); the console's session serves only the console's own pages. Tools send the token as Authorization: Bearer instead.",
                header: "Sec-Fetch-Site"
            )
        }
        guard !reads else { return nil }
        guard let origin = request.headers["origin"] else {
            return problem(
                "A change made with the console's session must carry Origin: \(own); this one carried none. Tools send the token as Authorization: Bearer instead.",
                header: "Origin"
            )
        }
        guard origin.lowercased() == own else {
            return problem(
                "A change made with the console's session must come from \(own), not \(origin). (Behind a proxy that terminates TLS, start the service with --public-url.)",
                header: "Origin"
            )
        }
        return nil
    }

    private static func problem(_ detail: String, header: String) -> ProblemDetails {
        ProblemDetails(
            status: 403,
            slug: "cross-origin-request",
            title: "Forbidden",
            detail: detail,
            errors: [.init(.header(header), "not the console's own origin")]
        )
    }
}
