import JSONCoding
import Logging
import Testing

@testable import HTTPServer

/// The problems the HTTP layer answers itself carry the application's problem types: the layer
/// names none of its own (`HTTPServerConfiguration.problemTypes`).
@Suite("The server's own refusals")
struct RefusalProblemTypeTests {
    /// Starts a server whose application named `types`, with one inline and one blocking route.
    private func withServer(types: ProblemTypeNamespace?, _ body: (Int) throws -> Void) throws {
        var router = Router()
        router.get("/things/{id}") { _ in HTTPResponse(status: 204) }
        router.add(.put, "/uploads", blocking: true) { _ in HTTPResponse(status: 204) }
        var configuration = HTTPServerConfiguration()
        configuration.port = 0
        configuration.threads = 1
        configuration.maxBodySize = 16
        configuration.drainTimeout = 1
        if let types { configuration.problemTypes = types }
        let server = HTTPServer(
            configuration: configuration,
            router: router,
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
        )
        let port = try server.start()
        defer { server.shutdown() }
        try body(port)
    }

    @Test(
        "404, 405, 400 for a path or query it cannot decode or a query too long, 413: each in the configured namespace",
        arguments: [
            ("GET", "/nowhere", [], 404, "not-found"),
            ("DELETE", "/things/1", [], 405, "method-not-allowed"),
            ("GET", "/things/%ZZ", [], 400, "malformed-path"),
            ("GET", "/things/1?locale=%zz", [], 400, "invalid-parameter"),
            (
                "GET", "/things/1?" + Array(repeating: "a=1", count: 65).joined(separator: "&"), [], 400,
                "invalid-parameter"
            ),
            ("PUT", "/uploads", [("Content-Length", "100")], 413, "payload-too-large"),
        ] as [(String, String, [(String, String)], Int, String)]
    )
    func namespaced(method: String, target: String, headers: [(String, String)], status: Int, slug: String) throws {
        try withServer(types: ProblemTypeNamespace(prefix: "urn:example:problem:")) { port in
            let answer = try LiveHTTP.send(port: port, method, target, headers: headers)
            #expect(answer.status == status)
            #expect(try JSONParser.parse(Array(answer.body.utf8))["type"] == .string("urn:example:problem:\(slug)"))
        }
        try withServer(types: nil) { port in
            let answer = try LiveHTTP.send(port: port, method, target, headers: headers)
            #expect(try JSONParser.parse(Array(answer.body.utf8))["type"] == .string("about:blank"))
        }
    }

    @Test("the whole body of the router's 404, byte for byte")
    func body() throws {
        try withServer(types: ProblemTypeNamespace(prefix: "urn:example:problem:")) { port in
            let answer = try LiveHTTP.send(port: port, "GET", "/nowhere", headers: [("X-Request-ID", "trace-1")])
            #expect(
                answer.body
                    == #"{"type":"urn:example:problem:not-found","title":"Not Found","status":404,"#
                    + #""detail":"There is no resource at this path.","requestId":"trace-1"}"#
            )
        }
    }
}
