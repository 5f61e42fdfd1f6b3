import HTTPServer
import Testing

@Suite("HTTPMethod and HTTPHeaders")
struct HTTPBasicsTests {
    @Test(
        "methods parse case-sensitively and print back",
        arguments: ["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS"]
    )
    func methods(token: String) {
        #expect(HTTPMethod(token).description == token)
        #expect(HTTPMethod(token) != .other(token))
    }

    @Test("an unknown or lower-case method is kept as it came")
    func otherMethods() {
        #expect(HTTPMethod("get") == .other("get"))
        #expect(HTTPMethod("BREW").description == "BREW")
    }

    @Test("headers are looked up case-insensitively, repeats joined with a comma")
    func headers() {
        var headers = HTTPHeaders([("Accept-Language", "fr"), ("X-Other", "1")])
        headers.add(name: "accept-language", value: "de;q=0.5")
        #expect(headers["ACCEPT-LANGUAGE"] == "fr, de;q=0.5")
        #expect(headers["x-other"] == "1")
        #expect(headers["missing"] == nil)
        #expect(headers["Accept-Languag"] == nil)
        #expect(headers["Accept-Language-"] == nil)
        #expect(headers.entries.map(\.value) == ["fr", "1", "de;q=0.5"])
    }

    @Test("a request reads the first value of a query argument")
    func queryValue() {
        let request = HTTPRequest(method: .get, path: "/", query: [("a", "1"), ("b", ""), ("a", "2")])
        #expect(request.queryValue("a") == "1")
        #expect(request.queryValue("b") == "")
        #expect(request.queryValue("c") == nil)
    }

    @Test("a response's header lookup ignores case, and its body reads back")
    func response() {
        let shared = SharedBytes(Array("hello".utf8))
        let response = HTTPResponse(status: 200, headers: [("Content-Type", "text/plain")], body: .shared(shared))
        #expect(response.header("content-type") == "text/plain")
        #expect(response.header("etag") == nil)
        #expect(response.bodyBytes == Array("hello".utf8))
        #expect(response.body.count == 5)
        #expect(HTTPResponse(status: 204).bodyBytes.isEmpty)
        #expect(HTTPBody.bytes([1, 2, 3]).count == 3)
        #expect(SharedBytes([]).count == 0)
    }
}
