/// A response body: nothing, bytes made for this response, or bytes rendered once and shared.
package enum HTTPBody: Sendable {
    case empty
    case bytes([UInt8])
    case shared(SharedBytes)

    package var count: Int {
        switch self {
        case .empty: return 0
        case .bytes(let bytes): return bytes.count
        case .shared(let shared): return shared.count
        }
    }
}

/// What a handler answers. The server adds `X-Request-ID` (and `Connection: close` while draining).
package struct HTTPResponse: Sendable {
    // Changing a prepared response makes it an ordinary one, built for this answer.
    package var status: Int { didSet { prepared = nil } }
    package var headers: [(name: String, value: String)] { didSet { prepared = nil } }
    package var body: HTTPBody { didSet { prepared = nil } }
    /// Set when the response is a prepared one: the server then lends one of its response
    /// objects instead of building one. `status`, `headers` and `body` say the same, for tests.
    package private(set) var prepared: PreparedResponse?
    /// For a route registered `memoized`: what the answer was made from, which the memo forgets
    /// it by (`ResponseMemo.invalidate(tags:)`); `nil` keeps the answer from being remembered at
    /// all.
    package var memoTag: (any MemoTag)?

    package init(status: Int, headers: [(name: String, value: String)] = [], body: HTTPBody = .empty) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    package init(_ prepared: PreparedResponse) {
        status = prepared.status
        headers = prepared.headers
        body = prepared.body
        self.prepared = prepared
    }

    /// The value of the response header `name` (case-insensitive), for tests and logs.
    package func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }

    /// The body as bytes, for tests.
    package var bodyBytes: [UInt8] {
        switch body {
        case .empty: return []
        case .bytes(let bytes): return bytes
        case .shared(let shared): return shared.array
        }
    }
}
