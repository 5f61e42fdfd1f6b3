import CMicroHTTPD

/// The answers the HTTP layer gives itself, before or instead of a handler: a query it could
/// not parse, a body too large, a request shutdown did not carry out. Their problem types are in
/// the namespace the application configured (`HTTPServerConfiguration.problemTypes`).
extension HTTPServer {
    /// How much of a chunked body past `maxBodySize` is read (and dropped) in the hope of
    /// answering 413 when it ends: the limit again, and at least 1 MiB.
    static func discardLimit(maxBodySize: Int) -> Int {
        maxBodySize + max(maxBodySize, 1 << 20)
    }

    /// The 400 for a query with more than `maxQueryArguments` arguments.
    static let tooManyArguments = ProblemDetails.invalidParameters(
        [.init(nil, "at most \(HTTPServerConfiguration.maxQueryArguments) query arguments")],
        detail: "The query has more than \(HTTPServerConfiguration.maxQueryArguments) arguments."
    )

    /// The 400 for a query whose arguments would not fit in the connection's memory with room for
    /// an answer. The URI callback writes it itself (`CMicroHTTPD_guardSetOverflowAnswer`).
    static let argumentsTooLarge = ProblemDetails.invalidParameters(
        [.init(nil, "the query's arguments need more than the header memory limit leaves")],
        detail: "The query's arguments are too long to parse beside the request's headers."
    )

    /// `argumentsTooLarge` as the URI callback writes it: the status line and headers (Date,
    /// X-Request-ID, Content-Length and Connection are added per request), the body, and where
    /// in it the request id goes (`nil`: nowhere).
    func argumentsTooLargeAnswer() -> (head: [UInt8], body: [UInt8], idOffset: Int?) {
        let placeholder = String(repeating: "0", count: 16)
        let response = Self.argumentsTooLarge.response(requestID: placeholder, in: configuration.problemTypes)
        let reason = MHD_get_reason_phrase_for(UInt32(response.status)).map { String(cString: $0) } ?? ""
        var head = "HTTP/1.1 \(response.status) \(reason)\r\n"
        for header in response.headers { head += "\(header.name): \(header.value)\r\n" }
        let body = response.bodyBytes
        let marker = Array("\"requestId\":\"\(placeholder)\"".utf8)
        let start = body.indices.first { body[$0...].starts(with: marker) }
        return (Array(head.utf8), body, start.map { $0 + marker.count - 17 })
    }

    /// Whether `pointer` is one of the markers the URI callback leaves in `con_cls` for a query
    /// it refused.
    static func isArgumentsMarker(_ pointer: UnsafeMutableRawPointer?) -> Bool {
        pointer == CMicroHTTPD_tooManyArgumentsMarker() || pointer == CMicroHTTPD_argumentsOverflowMarker()
    }

    /// The 503 for a request that shutdown answered before its handler ran: it was not carried
    /// out, and may be sent again (to another instance, or to this one once it is back).
    func shuttingDown(requestID: String) -> HTTPResponse {
        ProblemDetails(
            status: 503,
            slug: "shutting-down",
            title: "Service Unavailable",
            detail: "The server is shutting down and did not carry out this request; send it again."
        ).response(requestID: requestID, in: configuration.problemTypes, extraHeaders: [("Retry-After", "1")])
    }

    /// 413; `declared` when `Content-Length` announced the size, otherwise the chunked body passed it.
    /// - Parameter limit: the route's limit; the server's `maxBodySize` when `nil`.
    func payloadTooLarge(requestID: String, declared: Bool = true, limit: Int? = nil) -> HTTPResponse {
        let limit = limit ?? configuration.maxBodySize
        return ProblemDetails(
            status: 413,
            slug: "payload-too-large",
            title: "Content Too Large",
            detail: "The request body is larger than the limit of \(limit) bytes.",
            errors: [
                .init(declared ? .header("Content-Length") : .pointer(""), "at most \(limit) bytes")
            ]
        ).response(requestID: requestID, in: configuration.problemTypes)
    }

    /// The terms of the route a head is for, when it has a `BodyPolicy`: its limit, and its
    /// admission's answer for the request as the head describes it (asked on this MHD thread,
    /// so it must be quick: a token check, not a database read).
    func bodyTerms(
        connection: OpaquePointer,
        url: UnsafePointer<CChar>,
        method: UnsafePointer<CChar>
    ) -> RequestStateMachine.BodyTerms? {
        guard router.hasBodyPolicies, let path = RequestTarget.path(ofURL: url),
            let policy = router.bodyPolicy(method: HTTPMethod(cString: method), path: path)
        else { return nil }
        var terms = RequestStateMachine.BodyTerms(maxBytes: policy.maxBytes)
        if let admit = policy.admit {
            let requestID = RequestTarget.requestID(connection)
            // A path or query that does not parse is answered 400 once the body is read, as on
            // any route; admission needs a request to look at.
            if case .success(let request) = RequestTarget.makeRequest(
                connection: connection,
                url: url,
                method: method,
                id: requestID,
                body: []
            ), let refusal = admit(request) {
                terms.refusal = (refusal, requestID)
            }
        }
        return terms
    }
}
