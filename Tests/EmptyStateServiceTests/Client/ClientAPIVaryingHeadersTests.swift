import EmptyStateCore
import EmptyStateStore
import HTTPServer
import Testing

@testable import EmptyStateService

/// What the client routes' answers depend on, route by route, called through the router exactly
/// as the server calls them. The server remembers these answers by the headers the routes declare
/// (`ClientAPI.VaryingHeader`), and their handlers can read no other; these tests show the list is
/// not longer than it must be either: each route reads each header it declares.
@Suite("ClientAPI's memoized routes and the headers they read")
struct ClientAPIVaryingHeadersTests {
    /// A request to each client route that the snapshot answers with a template (app-status for
    /// an iOS app with an update available under the policy below), so all three headers matter.
    static let routes: [(path: String, query: [(name: String, value: String)])] = [
        ("/v1/templates/connectionRefused", [("platform", "ios")]),
        ("/v1/templates", [("platform", "ios")]),
        ("/v1/app-status", [("platform", "ios"), ("appVersion", "5.2.0")]),
    ]

    /// The client routes registered on a router, over the built-in catalogue and an iOS policy.
    private func router() throws -> Router {
        let state = CatalogueState(try ServiceFixture.snapshot()) { _ in }
        let policy = AppPolicy(
            platform: .ios,
            minimumVersion: AppVersion("5.0")!,
            latestVersion: AppVersion("5.3.0")!,
            storeURL: "https://apps.apple.com/app/id123456789",
            rolloutPercentage: 100
        )
        state.publish(policy: StoredAppPolicy(policy: policy, revision: 1, updatedAt: "", updatedBy: "test"))
        var router = Router()
        ClientAPI(state: state, cacheControl: ServiceFixture.cacheControl).register(on: &router)
        return router
    }

    /// `GET path?query` with `headers`, through the route's handler as the server runs it.
    private func get(
        _ route: (path: String, query: [(name: String, value: String)]),
        headers: [(name: String, value: String)],
        on router: Router
    ) throws -> HTTPResponse {
        guard case .handler(let handler, let parameters) = router.match(method: .get, path: route.path) else {
            throw TestFailure("\(route.path) has no GET handler")
        }
        var request = HTTPRequest(
            method: .get,
            path: route.path,
            query: route.query,
            headers: HTTPHeaders(headers),
            id: "test-request"
        )
        request.pathParameters = parameters
        return handler(request)
    }

    @Test(
        "the three client routes are memoized, each varying on Accept-Language, Accept-Encoding, If-None-Match and X-Preview-Token"
    )
    func declared() throws {
        let router = try router()
        let headers = ["Accept-Language", "Accept-Encoding", "If-None-Match", "X-Preview-Token"]
        #expect(router.memoizedRoutes.map(\.pattern) == ["/v1/templates/{id}", "/v1/templates", "/v1/app-status"])
        #expect(router.memoizedRoutes.allSatisfy { $0.varyingOn == headers })
        #expect(router.memoVaryingHeaders == headers)
    }

    @Test("each route reads Accept-Language: it picks the answer's language", arguments: routes.indices)
    func acceptLanguage(route: Int) throws {
        let router = try router()
        let english = try get(Self.routes[route], headers: [], on: router)
        let french = try get(Self.routes[route], headers: [("Accept-Language", "fr")], on: router)
        #expect(english.status == 200)
        #expect(english.header("Content-Language") == "en")
        #expect(french.header("Content-Language") == "fr")
        #expect(english.header("ETag") != french.header("ETag"))
    }

    @Test("each route reads Accept-Encoding: it picks gzip", arguments: routes.indices)
    func acceptEncoding(route: Int) throws {
        let router = try router()
        let identity = try get(Self.routes[route], headers: [], on: router)
        let zipped = try get(Self.routes[route], headers: [("Accept-Encoding", "gzip")], on: router)
        #expect(identity.header("Content-Encoding") == nil)
        #expect(zipped.header("Content-Encoding") == "gzip")
    }

    @Test("each route reads If-None-Match: a current entity tag gets 304", arguments: routes.indices)
    func ifNoneMatch(route: Int) throws {
        let router = try router()
        let first = try get(Self.routes[route], headers: [], on: router)
        let etag = try #require(first.header("ETag"))
        let again = try get(Self.routes[route], headers: [("If-None-Match", etag)], on: router)
        #expect(first.status == 200)
        #expect(again.status == 304)
    }

    @Test("each route reads X-Preview-Token: a token that opens no preview is 401", arguments: routes.indices)
    func previewToken(route: Int) throws {
        let router = try router()
        let live = try get(Self.routes[route], headers: [], on: router)
        let refused = try get(Self.routes[route], headers: [("X-Preview-Token", "esp_unknown")], on: router)
        #expect(live.status == 200)
        #expect(refused.status == 401)
        #expect(refused.memoTag == nil)
    }
}

/// Why a test could not go on.
private struct TestFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
