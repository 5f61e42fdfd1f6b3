/// Maps a method and a decoded path to a handler. Patterns are literal segments and `{name}`
/// segments; `HEAD` is answered by the `GET` handler of the same route.
package struct Router: Sendable {
    package typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

    /// What routing a request gave.
    package enum Match {
        case handler(Handler, parameters: [String: String])
        case notFound
        /// The path exists; these methods are allowed on it.
        case methodNotAllowed(allowed: [HTTPMethod])
    }

    private enum Segment: Sendable, Equatable {
        case literal(String)
        case parameter(String)
    }

    private struct Route: Sendable {
        /// As registered: what metrics label requests with.
        var pattern: String
        var segments: [Segment]
        var handlers: [(method: HTTPMethod, handler: Handler, execution: Execution)]
    }

    /// Routes without parameters, by exact path, for a lookup without splitting.
    private var staticRoutes: [String: Route] = [:]
    private var parameterRoutes: [Route] = []

    package init() {}

    package mutating func get(_ pattern: String, blocking: Bool = false, _ handler: @escaping Handler) {
        add(.get, pattern, blocking: blocking, handler)
    }

    /// Where a handler runs.
    package enum Execution: Sendable {
        /// On the MHD thread: fast handlers that never wait.
        case inline
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
    package mutating func add(
        _ method: HTTPMethod,
        _ pattern: String,
        blocking: Bool = false,
        background: Bool = false,
        _ handler: @escaping Handler
    ) {
        let execution: Execution = background ? .background : blocking ? .blocking : .inline
        let segments: [Segment] = pattern.split(separator: "/").map { part in
            part.hasPrefix("{") && part.hasSuffix("}")
                ? .parameter(String(part.dropFirst().dropLast())) : .literal(String(part))
        }
        if segments.allSatisfy({ if case .literal = $0 { true } else { false } }) {
            staticRoutes[pattern, default: Route(pattern: pattern, segments: segments, handlers: [])].handlers.append(
                (method, handler, execution)
            )
        } else if let index = parameterRoutes.firstIndex(where: { $0.segments == segments }) {
            parameterRoutes[index].handlers.append((method, handler, execution))
        } else {
            parameterRoutes.append(
                Route(pattern: pattern, segments: segments, handlers: [(method, handler, execution)])
            )
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

    /// The match, where its handler runs, and the pattern of the route (`nil` when none).
    func resolve(method: HTTPMethod, path: String) -> (match: Match, execution: Execution, pattern: String?) {
        if let route = staticRoutes[path] {
            return Self.select(route, method: method, parameters: [:])
        }
        // Split on bytes: Character-wise splitting showed up in profiles of the request path.
        let parts = path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).dropFirst()
        routes: for route in parameterRoutes where route.segments.count == parts.count {
            var parameters: [String: String] = [:]
            for (segment, part) in zip(route.segments, parts) {
                switch segment {
                case .literal(let literal): if !part.elementsEqual(literal.utf8) { continue routes }
                case .parameter(let name):
                    if part.isEmpty { continue routes }
                    parameters[name] = String(Substring(part))
                }
            }
            return Self.select(route, method: method, parameters: parameters)
        }
        return (.notFound, .inline, nil)
    }

    private static func select(
        _ route: Route,
        method: HTTPMethod,
        parameters: [String: String]
    ) -> (match: Match, execution: Execution, pattern: String?) {
        let wanted = method == .head ? HTTPMethod.get : method
        if let entry = route.handlers.first(where: { $0.method == method || $0.method == wanted }) {
            return (.handler(entry.handler, parameters: parameters), entry.execution, route.pattern)
        }
        var allowed: [HTTPMethod] = []
        for entry in route.handlers {
            allowed.append(entry.method)
            if entry.method == .get { allowed.append(.head) }
        }
        return (.methodNotAllowed(allowed: allowed), .inline, route.pattern)
    }
}
