/// One HTTP request as handlers see it: the path and query already percent-decoded.
package struct HTTPRequest: Sendable {
    package var method: HTTPMethod
    /// The decoded path, without the query.
    package var path: String
    /// The decoded query arguments in arrival order; an argument without `=` has an empty value.
    package var query: [(name: String, value: String)]
    package var headers: HTTPHeaders
    package var body: [UInt8]
    /// The client's `X-Request-ID` when it was sane, otherwise one generated for this request.
    package var id: String
    /// Values of `{name}` segments of the matched route.
    package var pathParameters = PathParameters()

    package init(
        method: HTTPMethod,
        path: String,
        query: [(name: String, value: String)] = [],
        headers: HTTPHeaders = HTTPHeaders(),
        body: [UInt8] = [],
        id: String = "test"
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.id = id
    }

    /// The first value of the query argument `name`.
    package func queryValue(_ name: String) -> String? {
        query.first { $0.name == name }?.value
    }
}
