import Logging
import Synchronization
import Testing

@testable import HTTPServer

/// The memo's contract: a memoized handler reads only the headers its route declared
/// (`MemoizedRequest` offers no other: reading one does not compile), and the server makes the
/// memo's key of exactly those. These tests hold the second half, the one the compiler cannot:
/// a request that differs in a declared header is never answered with another's answer, and one
/// that differs only in a header the handler cannot read is.
@Suite("Memoized routes")
struct MemoizedRouteTests {
    private enum Variant: String, VaryingHeaders {
        case variant = "X-Variant"
    }

    private enum Flavour: String, VaryingHeaders {
        case flavour = "X-Flavour"
        case variant = "x-variant"
    }

    @Test("the router gathers every memoized route's headers, each name once, in order")
    func declared() {
        var router = Router()
        router.get("/plain") { _ in HTTPResponse(status: 204) }
        router.get("/a", memoizedVaryingOn: Variant.self) { _ in HTTPResponse(status: 204) }
        router.get("/b", memoizedVaryingOn: Flavour.self) { _ in HTTPResponse(status: 204) }
        #expect(router.memoVaryingHeaders == ["X-Variant", "X-Flavour"])
        #expect(router.memoizedRoutes.map(\.pattern) == ["/a", "/b"])
        #expect(router.memoizedRoutes.map(\.varyingOn) == [["X-Variant"], ["X-Flavour", "x-variant"]])
        #expect(router.resolve(method: .get, path: "/a").execution == .memoized)
        #expect(router.resolve(method: .head, path: "/b").execution == .memoized)
        #expect(router.resolve(method: .get, path: "/plain").execution == .inline)
    }

    @Test("a memoized handler reads its declared headers, whatever their case, and the path's parameters")
    func handlerSees() throws {
        var router = Router()
        router.get("/items/{id}", memoizedVaryingOn: Flavour.self) { request in
            let text =
                "\(request.pathParameters["id"] ?? "")|\(request.header(.flavour) ?? "-")|"
                + "\(request.header(.variant) ?? "-")|\(request.queryValue("q") ?? "-")"
            return HTTPResponse(status: 200, body: .bytes(Array(text.utf8)))
        }
        guard case .handler(let handler, let parameters) = router.match(method: .get, path: "/items/7") else {
            Issue.record("/items/7 did not match")
            return
        }
        var request = HTTPRequest(
            method: .get,
            path: "/items/7",
            query: [("q", "x")],
            headers: HTTPHeaders([("x-flavour", "salt"), ("X-VARIANT", "b"), ("X-Undeclared", "secret")])
        )
        request.pathParameters = parameters
        #expect(handler(request).bodyBytes == Array("7|salt|b|x".utf8))
    }

    @Test("the memo's key is made of the declared headers: only a request that differs in one is answered anew")
    func keyFollowsDeclaration() throws {
        let calls = Atomic<Int>(0)
        var router = Router()
        router.get("/v", memoizedVaryingOn: Variant.self) { request in
            calls.add(1, ordering: .relaxed)
            // Everything the handler can read of the request's headers.
            let body = Array("variant=\(request.header(.variant) ?? "-")".utf8)
            var response = HTTPResponse(
                PreparedResponse(status: 200, headers: [("Content-Type", "text/plain")], body: SharedBytes(body))
            )
            response.memoTag = TestTag.name("v")
            return response
        }
        // Another memoized route's header is in every key too; it only costs this route hits.
        router.get("/f", memoizedVaryingOn: Flavour.self) { _ in HTTPResponse(status: 204) }
        var configuration = HTTPServerConfiguration()
        configuration.port = 0
        configuration.threads = 1
        configuration.drainTimeout = 1
        let server = HTTPServer(
            configuration: configuration,
            router: router,
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }),
            memo: ResponseMemo(capacity: 16)
        )
        let port = try server.start()
        defer { server.shutdown() }

        let cases: [(headers: [(String, String)], body: String, calls: Int)] = [
            ([("X-Variant", "a"), ("X-Undeclared", "1")], "variant=a", 1),
            // Differs only in a header the handler cannot read: the remembered answer is right.
            ([("X-Variant", "a"), ("X-Undeclared", "2")], "variant=a", 1),
            ([("x-variant", "a")], "variant=a", 1),
            // Differs in a declared header: a new key, the handler answers.
            ([("X-Variant", "b")], "variant=b", 2),
            ([], "variant=-", 3),
            ([("X-Variant", "a"), ("X-Flavour", "salt")], "variant=a", 4),
            ([("X-Variant", "b")], "variant=b", 4),
        ]
        for (index, expected) in cases.enumerated() {
            let (status, _, body) = try LiveHTTP.send(port: port, "GET", "/v", headers: expected.headers)
            #expect(status == 200, "request \(index)")
            #expect(body == expected.body, "request \(index)")
            #expect(calls.load(ordering: .relaxed) == expected.calls, "request \(index)")
        }
    }

    private enum Install: String, VaryingHeaders {
        case install = "X-Install"
    }

    @Test("an answer that reads a header outside the key (unremembered) is never remembered; the others still are")
    func unrememberedAnswers() throws {
        let calls = Atomic<Int>(0)
        var router = Router()
        router.get("/t/{id}", memoizedVaryingOn: Variant.self) { request in
            calls.add(1, ordering: .relaxed)
            func answer(_ text: String) -> HTTPResponse {
                var response = HTTPResponse(
                    PreparedResponse(status: 200, headers: [], body: SharedBytes(Array(text.utf8)))
                )
                response.memoTag = TestTag.name("t")
                return response
            }
            guard request.pathParameters["id"] == "experiment" else { return answer("plain") }
            return request.unremembered(reading: Install.self) { request in
                answer("install=\(request.header(.install) ?? "-")")
            }
        }
        // The extra header never enters the key: only the declared ones do.
        #expect(router.memoVaryingHeaders == ["X-Variant"])
        var configuration = HTTPServerConfiguration()
        configuration.port = 0
        configuration.threads = 1
        configuration.drainTimeout = 1
        let memo = ResponseMemo(capacity: 16)
        let server = HTTPServer(
            configuration: configuration,
            router: router,
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }),
            memo: memo
        )
        let port = try server.start()
        defer { server.shutdown() }

        for (index, install) in ["a", "b", "a"].enumerated() {
            let (status, _, body) = try LiveHTTP.send(
                port: port,
                "GET",
                "/t/experiment",
                headers: [("X-Install", install)]
            )
            #expect(status == 200)
            #expect(body == "install=\(install)", "each request is answered by the handler, never from the memo")
            #expect(calls.load(ordering: .relaxed) == index + 1)
        }
        #expect(memo.count == 0)
        for install in ["a", "b"] {
            let (_, _, body) = try LiveHTTP.send(port: port, "GET", "/t/plain", headers: [("X-Install", install)])
            #expect(body == "plain")
        }
        #expect(calls.load(ordering: .relaxed) == 4, "the plain answer is remembered whatever X-Install says")
        #expect(memo.count == 1)
    }
}
