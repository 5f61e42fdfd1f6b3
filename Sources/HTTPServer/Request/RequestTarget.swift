import CMicroHTTPD

#if canImport(Glibc)
    import Glibc
#endif

/// Reading a request's target, query and id from its connection, strictly: the path and the
/// query arguments are percent-decoded as UTF-8 (a malformed escape is a 400, never guessed at),
/// and become the `HTTPRequest` handlers see. The headers stay in the connection until read.
enum RequestTarget {
    /// The path of a request target: the target itself in origin form (`/v1/templates`), the
    /// part after the authority in absolute form (`http://host/v1/templates`, which a server
    /// must accept: RFC 9112 §3.2.2); `nil` for anything else.
    static func path(ofTarget target: String) -> String? {
        if target.utf8.first == UInt8(ascii: "/") { return target }
        let lowered = target.prefix(8).lowercased()
        let scheme = lowered.hasPrefix("http://") ? 7 : lowered.hasPrefix("https://") ? 8 : 0
        guard scheme > 0 else { return nil }
        let rest = target.utf8.dropFirst(scheme)
        guard let slash = rest.firstIndex(of: UInt8(ascii: "/")) else { return rest.isEmpty ? nil : "/" }
        return String(target[slash...])
    }

    /// The decoded path of the raw URL MHD reports, or `nil` when it is not a valid
    /// percent-encoded UTF-8 path.
    static func path(ofURL url: UnsafePointer<CChar>) -> String? {
        guard case .success(let target) = PercentDecoding.decode(cString: url, plusIsSpace: false) else { return nil }
        return path(ofTarget: target)
    }

    /// What collecting the query arguments gives: the decoded ones so far, or the raw name of
    /// the first that is not valid percent-encoded UTF-8, and why.
    struct QueryCollection {
        var arguments: [(name: String, value: String)] = []
        var malformed: (name: String, failure: PercentDecoding.Failure)?
    }

    /// The query arguments of `connection` decoded, in arrival order; an argument without `=`
    /// has an empty value.
    static func query(_ connection: OpaquePointer) -> QueryCollection {
        var collection = QueryCollection()
        collection.arguments.reserveCapacity(4)  // one allocation for the usual locale and platform
        withUnsafeMutablePointer(to: &collection) { pointer in
            _ = MHD_get_connection_values(
                connection,
                .GET_ARGUMENT_KIND,
                { context, _, key, value in
                    guard let context, let key else { return .YES }
                    let collection = context.assumingMemoryBound(to: QueryCollection.self)
                    let name = PercentDecoding.decode(cString: key, plusIsSpace: true)
                    let decoded = value.map { PercentDecoding.decode(cString: $0, plusIsSpace: true) } ?? .success("")
                    switch (name, decoded) {
                    case (.success(let name), .success(let decoded)):
                        collection.pointee.arguments.append((name, decoded))
                        return .YES
                    case (.failure(let failure), _), (_, .failure(let failure)):
                        collection.pointee.malformed = (String(cString: key), failure)
                        return .NO
                    }
                },
                pointer
            )
        }
        return collection
    }

    /// Builds the request handlers see: strict percent-decoding of the path and the query; the
    /// headers stay in the connection until read.
    static func makeRequest(
        connection: OpaquePointer,
        url: UnsafePointer<CChar>,
        method: UnsafePointer<CChar>,
        id: String,
        body: [UInt8]
    ) -> Result<HTTPRequest, ProblemDetails> {
        guard let path = path(ofURL: url) else {
            return .failure(
                ProblemDetails(
                    status: 400,
                    slug: "malformed-path",
                    title: "Bad Request",
                    detail: "The path is not a valid percent-encoded UTF-8 path."
                )
            )
        }
        let query = query(connection)
        if let malformed = query.malformed {
            return .failure(
                ProblemDetails.invalidParameters(
                    [.init(.parameter(malformed.name), malformed.failure.reason)],
                    detail: "A query argument is not valid percent-encoded UTF-8 text."
                )
            )
        }
        return .success(
            HTTPRequest(
                method: HTTPMethod(cString: method),
                path: path,
                query: query.arguments,
                headers: HTTPHeaders(connection: connection),
                body: body,
                id: id
            )
        )
    }

    /// The request's id: the client's `X-Request-ID` when sane, otherwise a fresh one.
    static func requestID(_ connection: OpaquePointer) -> String {
        if let offered = MHD_lookup_connection_value(connection, .HEADER_KIND, requestIDHeader.cString),
            case let offered = String(cString: offered), RequestID.isSane(offered)
        {
            return offered
        }
        return RequestID.generate()
    }

    /// Whether `method` is exactly `GET` or `HEAD`, read byte by byte (never past the NUL).
    static func isGetOrHead(_ method: UnsafePointer<CChar>) -> Bool {
        if method[0] == 0x47 { return method[1] == 0x45 && method[2] == 0x54 && method[3] == 0 }
        return method[0] == 0x48 && method[1] == 0x45 && method[2] == 0x41 && method[3] == 0x44 && method[4] == 0
    }
}

extension HTTPServer {
    /// `RequestTarget.path(ofTarget:)`.
    static func path(ofTarget target: String) -> String? {
        RequestTarget.path(ofTarget: target)
    }

    /// The route of a request answered before it was routed (400, 413), from its raw URL.
    func route(rawURL url: UnsafePointer<CChar>) -> String {
        guard let path = RequestTarget.path(ofURL: url) else { return HTTPExchange.unmatchedRoute }
        return router.pattern(for: path) ?? HTTPExchange.unmatchedRoute
    }
}
