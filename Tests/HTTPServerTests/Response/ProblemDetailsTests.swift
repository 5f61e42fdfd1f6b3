import HTTPServer
import JSONCoding
import Testing

@Suite("ProblemDetails")
struct ProblemDetailsTests {
    /// An application's namespace: the HTTP layer has none of its own.
    private let types = ProblemTypeNamespace(prefix: "urn:example:problem:")

    private let problem = ProblemDetails(
        status: 400,
        slug: "invalid-parameter",
        title: "Bad Request",
        detail: "2 query parameters are invalid.",
        errors: [
            .init(.parameter("locale"), "is not a well-formed BCP 47 language tag"),
            .init(.header("Content-Length"), "not a non-negative integer"),
            .init(.pointer("/strings/en"), "is required"),
            .init(nil, "something else"),
        ]
    )

    @Test("is an uncacheable application/problem+json response with the status")
    func headers() {
        let response = problem.response(requestID: "req-1", in: types, extraHeaders: [("Retry-After", "1")])
        #expect(response.status == 400)
        #expect(response.header("Content-Type") == "application/problem+json")
        #expect(response.header("Cache-Control") == "no-store")
        #expect(response.header("Retry-After") == "1")
        #expect(response.headers.map(\.name) == ["Content-Type", "Cache-Control", "Retry-After"])
    }

    @Test("the body carries type, title, status, detail and requestId")
    func body() throws {
        let body = try JSONParser.parse(problem.response(requestID: "req-1", in: types).bodyBytes)
        #expect(body["type"] == .string("urn:example:problem:invalid-parameter"))
        #expect(body["title"] == .string("Bad Request"))
        #expect(body["status"] == .number(400))
        #expect(body["detail"] == .string("2 query parameters are invalid."))
        #expect(body["requestId"] == .string("req-1"))
    }

    @Test("each field error names its parameter, header or pointer")
    func errors() throws {
        let body = try JSONParser.parse(problem.response(requestID: "r", in: types).bodyBytes)
        guard case .array(let errors)? = body["errors"] else {
            Issue.record("errors is not an array: \(String(describing: body["errors"]))")
            return
        }
        try #require(errors.count == 4)
        #expect(
            errors[0]
                == .object([
                    ("detail", .string("is not a well-formed BCP 47 language tag")), ("parameter", .string("locale")),
                ])
        )
        #expect(errors[1]["header"] == .string("Content-Length"))
        #expect(errors[2]["pointer"] == .string("/strings/en"))
        #expect(errors[3] == .object([("detail", .string("something else"))]))
    }

    @Test("no errors member when there are none, and text is escaped")
    func noErrors() throws {
        let response = ProblemDetails(
            status: 404,
            slug: "not-found",
            title: "Not Found",
            detail: "No \"x\" here\n"
        ).response(requestID: "abc", in: types)
        let body = try JSONParser.parse(response.bodyBytes)
        #expect(body["errors"] == nil)
        #expect(body["detail"] == .string("No \"x\" here\n"))
        #expect(response.status == 404)
        if case .object(let members) = body {
            #expect(members.map(\.key) == ["type", "title", "status", "detail", "requestId"])
        } else {
            Issue.record("the body is not an object")
        }
    }

    @Test("without a namespace, every type is about:blank (RFC 9457 §4.2.1); with one, the slug in it")
    func namespaces() throws {
        let blank = try JSONParser.parse(problem.response(requestID: "r", in: .blank).bodyBytes)
        #expect(blank["type"] == .string("about:blank"))
        #expect(HTTPServerConfiguration().problemTypes == .blank)
        #expect(types.type(of: "not-found") == "urn:example:problem:not-found")
    }
}
