#if canImport(Glibc)
    import Glibc
#endif

/// Maps a method and a decoded path to a handler. Patterns are literal segments and `{name}`
/// segments; `HEAD` is answered by the `GET` handler of the same route.
package struct Router: Sendable {
    package typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

    /// What routing a request gave.
    package enum Match {
        case handler(Handler, parameters: PathParameters)
        case notFound
        /// The path exists; these methods are allowed on it.
        case methodNotAllowed(allowed: [HTTPMethod])
    }

    private enum Segment: Sendable, Equatable {
        /// The segment's UTF-8 bytes, compared with `memcmp`.
        case literal([UInt8])
        case parameter(String)
    }

    private struct Route: Sendable {
        /// As registered: what metrics label requests with.
        var pattern: String
        var segments: [Segment]
        /// The pattern's bytes up to its first `{` (all of them for a static route): a path
        /// that does not start with them is rejected with one `memcmp`.
        var prefix: [UInt8]
        var handlers: [Entry]
    }

    private struct Entry: Sendable {
        var method: HTTPMethod
        var handler: Handler
        var execution: Execution
        var body: BodyPolicy?
    }

    /// Routes without parameters; tried before `parameterRoutes`, so `/a/b` wins over `/a/{x}`.
    private var staticRoutes: [Route] = []
    private var parameterRoutes: [Route] = []
    /// Whether any route has a `BodyPolicy` (when none has, a head is never routed early).
    package private(set) var hasBodyPolicies = false

    /// Every header a memoized route reads, in the order registered, each name once (compared
    /// without case): what the server makes the memo's keys of.
    package private(set) var memoVaryingHeaders: [String] = []
    /// The memoized routes and the headers each declared, for tests and logs.
    package private(set) var memoizedRoutes: [(pattern: String, varyingOn: [String])] = []

    package init() {}

    /// Registers `handler` for `GET` (and `HEAD`) on `pattern`; see `add` for `blocking`.
    package mutating func get(
        _ pattern: String,
        blocking: Bool = false,
        _ handler: @escaping Handler
    ) {
        add(.get, pattern, blocking: blocking, handler)
    }

    /// Registers `handler` for `GET` (and `HEAD`) on `pattern`, run inline, and lets the server
    /// remember its prepared answers (see `ResponseMemo`): the same request again is answered
    /// without calling it.
    ///
    /// The handler sees the request through `Headers` (`MemoizedRequest`): it can read those
    /// headers and no other, and the memo's keys are made of them. Its answers must depend on
    /// nothing else but the method, the path and query, and state whose changes the application
    /// reports to the memo (`ResponseMemo.invalidate`).
    package mutating func get<Headers: VaryingHeaders>(
        _ pattern: String,
        memoizedVaryingOn headers: Headers.Type,
        _ handler: @escaping @Sendable (MemoizedRequest<Headers>) -> HTTPResponse
    ) {
        let names = Headers.allCases.map(\.rawValue)
        for name in names where !memoVaryingHeaders.contains(where: { Self.equalIgnoringCase($0, name) }) {
            memoVaryingHeaders.append(name)
        }
        memoizedRoutes.append((pattern, names))
        insert(.get, pattern, execution: .memoized) { handler(MemoizedRequest($0)) }
    }

    private static func equalIgnoringCase(_ lhs: String, _ rhs: String) -> Bool {
        lhs.lowercased() == rhs.lowercased()
    }

    /// Where a handler runs.
    package enum Execution: Sendable {
        /// On the MHD thread: fast handlers that never wait.
        case inline
        /// Like `inline`, and the server may remember the handler's prepared answers and answer
        /// the same request again without calling it (registered with
        /// `get(_:memoizedVaryingOn:_:)`; see `ResponseMemo` for the promise this makes).
        case memoized
        /// On a worker thread with the connection suspended: handlers that wait (disk, fsync).
        case blocking
        /// Like `blocking`, on low-priority threads: work that must not take CPU from `inline`
        /// routes when the machine is saturated (analytics ingestion vs serving templates).
        case background
    }

    /// Registers `handler` for `method` on `pattern` (`/v1/templates/{id}`).
    /// - Parameters:
    ///   - blocking: the handler waits (disk, fsync): the server runs it on a worker thread with
    ///     the connection suspended, so MHD's threads keep serving other requests.
    ///   - background: run it blocking, at low priority.
    ///   - body: the route's own limit and admission of request bodies (see `BodyPolicy`);
    ///     `nil` for the server's `maxBodySize`.
    package mutating func add(
        _ method: HTTPMethod,
        _ pattern: String,
        blocking: Bool = false,
        background: Bool = false,
        body: BodyPolicy? = nil,
        _ handler: @escaping Handler
    ) {
        insert(
            method,
            pattern,
            execution: background ? .background : blocking ? .blocking : .inline,
            body: body,
            handler
        )
    }

    private mutating func insert(
        _ method: HTTPMethod,
        _ pattern: String,
        execution: Execution,
        body: BodyPolicy? = nil,
        _ handler: @escaping Handler
    ) {
        if body != nil { hasBodyPolicies = true }
        let segments: [Segment] = pattern.split(separator: "/").map { part in
            part.hasPrefix("{") && part.hasSuffix("}")
                ? .parameter(String(part.dropFirst().dropLast())) : .literal(Array(part.utf8))
        }
        let isStatic = segments.allSatisfy { if case .literal = $0 { true } else { false } }
        let entry = Entry(method: method, handler: handler, execution: execution, body: body)
        if isStatic {
            Self.add(entry, to: &staticRoutes, pattern: pattern, segments: segments)
        } else {
            Self.add(entry, to: &parameterRoutes, pattern: pattern, segments: segments)
        }
    }

    private static func add(
        _ entry: Entry,
        to routes: inout [Route],
        pattern: String,
        segments: [Segment]
    ) {
        let prefix = Array(pattern.utf8.prefix { $0 != UInt8(ascii: "{") })
        // The prefix too: `/admin` and `/admin/` split into the same segments, but a static
        // route matches its whole pattern, so they are two routes.
        if let index = routes.firstIndex(where: { $0.segments == segments && $0.prefix == prefix }) {
            routes[index].handlers.append(entry)
        } else {
            routes.append(Route(pattern: pattern, segments: segments, prefix: prefix, handlers: [entry]))
        }
    }

    package func match(method: HTTPMethod, path: String) -> Match {
        resolve(method: method, path: path).match
    }

    /// The pattern of the route `path` belongs to (`/v1/templates/{id}` for
    /// `/v1/templates/abc`), whatever the method; `nil` when no route matches. Metrics label
    /// requests with it rather than with the path, which would make a series per template id.
    package func pattern(for path: String) -> String? {
        resolve(method: .get, path: path).pattern
    }

    /// The `BodyPolicy` of the handler `method` and `path` route to; `nil` when it has none.
    package func bodyPolicy(method: HTTPMethod, path: String) -> BodyPolicy? {
        guard hasBodyPolicies else { return nil }
        return resolve(method: method, path: path).body
    }

    /// The match, where its handler runs, the pattern of the route (`nil` when none) and the
    /// handler's body policy.
    func resolve(
        method: HTTPMethod,
        path: String
    ) -> (match: Match, execution: Execution, pattern: String?, body: BodyPolicy?) {
        // Matches on the path's bytes, with no splitting, hashing or String indexing: routing
        // was a quarter of a request's cost when it used them.
        var path = path
        return path.withUTF8 { bytes in
            // Routes are tried by index: iterating the routes themselves would retain and
            // release three references per route.
            for index in staticRoutes.indices where Self.equal(bytes, staticRoutes[index].prefix) {
                return Self.select(staticRoutes[index], method: method, parameters: PathParameters())
            }
            for index in parameterRoutes.indices where Self.hasPrefix(bytes, parameterRoutes[index].prefix) {
                if let parameters = Self.match(bytes, parameterRoutes[index].segments) {
                    return Self.select(parameterRoutes[index], method: method, parameters: parameters)
                }
            }
            return (.notFound, .inline, nil, nil)
        }
    }

    private static func equal(_ bytes: UnsafeBufferPointer<UInt8>, _ other: [UInt8]) -> Bool {
        bytes.count == other.count && hasPrefix(bytes, other)
    }

    private static func hasPrefix(_ bytes: UnsafeBufferPointer<UInt8>, _ prefix: [UInt8]) -> Bool {
        prefix.withUnsafeBufferPointer { prefix in
            prefix.count <= bytes.count
                && (prefix.isEmpty || memcmp(prefix.baseAddress!, bytes.baseAddress!, prefix.count) == 0)
        }
    }

    /// The path parameters when `path` matches `segments` (each segment is `/` and then its
    /// bytes; a trailing `/` or an empty parameter does not match), otherwise `nil`.
    private static func match(_ path: UnsafeBufferPointer<UInt8>, _ segments: [Segment]) -> PathParameters? {
        let slash = UInt8(ascii: "/")
        var parameters = PathParameters()
        var index = 0
        for segment in segments {
            guard index < path.count, path[index] == slash else { return nil }
            index += 1
            let start = index
            while index < path.count, path[index] != slash { index += 1 }
            let part = UnsafeBufferPointer(rebasing: path[start..<index])
            switch segment {
            case .literal(let literal):
                let equal = literal.withUnsafeBufferPointer { literal in
                    literal.count == part.count
                        && (part.isEmpty || memcmp(literal.baseAddress!, part.baseAddress!, part.count) == 0)
                }
                if !equal { return nil }
            case .parameter(let name):
                if part.isEmpty { return nil }
                parameters.append(name: name, value: String(decoding: part, as: UTF8.self))
            }
        }
        return index == path.count ? parameters : nil
    }

    private static func select(
        _ route: Route,
        method: HTTPMethod,
        parameters: PathParameters
    ) -> (match: Match, execution: Execution, pattern: String?, body: BodyPolicy?) {
        let wanted = method == .head ? HTTPMethod.get : method
        if let entry = route.handlers.first(where: { $0.method == method || $0.method == wanted }) {
            return (.handler(entry.handler, parameters: parameters), entry.execution, route.pattern, entry.body)
        }
        var allowed: [HTTPMethod] = []
        for entry in route.handlers {
            allowed.append(entry.method)
            if entry.method == .get { allowed.append(.head) }
        }
        return (.methodNotAllowed(allowed: allowed), .inline, route.pattern, nil)
    }
}
