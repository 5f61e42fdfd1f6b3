import HTTPServer
import Testing

@Suite("Router")
struct RouterTests {
    /// A router whose handlers answer 200 with `X-Route` naming the route and `X-ID` the parameter.
    private let router: Router = {
        var router = Router()
        router.get("/healthz") { _ in Self.answer("healthz") }
        router.get("/v1/templates") { _ in Self.answer("bundle") }
        router.get("/v1/templates/{id}") { request in Self.answer("template", id: request.pathParameters["id"]) }
        router.add(.delete, "/v1/templates/{id}") { _ in Self.answer("delete") }
        router.add(.post, "/v1/events") { _ in Self.answer("events") }
        router.get("/admin") { _ in Self.answer("admin") }
        router.get("/admin/") { _ in Self.answer("admin/") }
        router.get("/admin/{file}") { request in Self.answer("admin file", id: request.pathParameters["file"]) }
        router.get("/v1/templates/{id}/locales/{locale}") { request in
            Self.answer("locale", id: request.pathParameters["locale"])
        }
        return router
    }()

    private static func answer(_ route: String, id: String? = nil) -> HTTPResponse {
        var headers = [("X-Route", route)]
        if let id { headers.append(("X-ID", id)) }
        return HTTPResponse(status: 200, headers: headers)
    }

    /// What routing gave: which handler answered and with what parameters, or why none did.
    private enum Outcome: Equatable {
        case routed(String, parameters: [String: String], id: String?)
        case notFound
        case methodNotAllowed([String])
    }

    private func route(_ method: HTTPMethod, _ path: String) -> Outcome {
        switch router.match(method: method, path: path) {
        case .handler(let handler, let parameters):
            var request = HTTPRequest(method: method, path: path)
            request.pathParameters = parameters
            let response = handler(request)
            return .routed(
                response.header("x-route") ?? "?",
                parameters: parameters.dictionary,
                id: response.header("X-ID")
            )
        case .notFound:
            return .notFound
        case .methodNotAllowed(let allowed):
            return .methodNotAllowed(allowed.map(\.description))
        }
    }

    @Test("a static route matches its exact path")
    func staticRoute() {
        #expect(route(.get, "/healthz") == .routed("healthz", parameters: [:], id: nil))
        #expect(route(.get, "/v1/templates") == .routed("bundle", parameters: [:], id: nil))
    }

    @Test("a static route with a trailing slash is a route of its own")
    func trailingSlash() {
        #expect(route(.get, "/admin") == .routed("admin", parameters: [:], id: nil))
        #expect(route(.get, "/admin/") == .routed("admin/", parameters: [:], id: nil))
        #expect(route(.get, "/admin/app.js") == .routed("admin file", parameters: ["file": "app.js"], id: "app.js"))
        #expect(route(.get, "/admin//") == .notFound)
    }

    @Test("a {id} route matches and passes the segment as a parameter")
    func parameterRoute() {
        #expect(
            route(.get, "/v1/templates/connectionRefused")
                == .routed("template", parameters: ["id": "connectionRefused"], id: "connectionRefused")
        )
        #expect(
            route(.get, "/v1/templates/a b/locales/pt-BR")
                == .routed("locale", parameters: ["id": "a b", "locale": "pt-BR"], id: "pt-BR")
        )
    }

    @Test("HEAD is answered by the GET handler")
    func headFallsToGet() {
        #expect(route(.head, "/healthz") == .routed("healthz", parameters: [:], id: nil))
        #expect(route(.head, "/v1/templates/x") == .routed("template", parameters: ["id": "x"], id: "x"))
    }

    @Test("another method on a route picks that method's handler")
    func otherMethod() {
        #expect(route(.delete, "/v1/templates/x") == .routed("delete", parameters: ["id": "x"], id: nil))
        #expect(route(.post, "/v1/events") == .routed("events", parameters: [:], id: nil))
    }

    @Test("a method the route lacks gives 405 with the allowed methods, HEAD beside GET")
    func methodNotAllowed() {
        #expect(route(.post, "/healthz") == .methodNotAllowed(["GET", "HEAD"]))
        #expect(route(.put, "/v1/templates/x") == .methodNotAllowed(["GET", "HEAD", "DELETE"]))
        #expect(route(.other("BREW"), "/v1/templates") == .methodNotAllowed(["GET", "HEAD"]))
        #expect(route(.get, "/v1/events") == .methodNotAllowed(["POST"]))
        #expect(route(.head, "/v1/events") == .methodNotAllowed(["POST"]))
    }

    @Test(
        "unknown paths, trailing slashes, extra or empty segments do not match",
        arguments: [
            "/", "", "/nope", "/healthz/", "/HEALTHZ", "/v1/templates/", "/v1/templates/x/", "/v1/templates/x/y",
            "/v1//x", "/v1/templates//locales/fr", "/v2/templates/x", "/v1/templates/x/locales/",
        ]
    )
    func notFound(path: String) {
        #expect(route(.get, path) == .notFound)
    }
}
