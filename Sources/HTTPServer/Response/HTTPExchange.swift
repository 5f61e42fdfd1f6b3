#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One answered request as `HTTPServer`'s observer sees it: enough to count and time requests,
/// nothing about what the application serves.
package struct HTTPExchange: Sendable {
    /// The `route` of a request whose path matches no route (the server's 404 `not-found`, or a
    /// 400 for a path it could not decode).
    package static let unmatchedRoute = "unmatched"

    /// The pattern of the route the path matched (`/v1/templates/{id}`), never the raw path, so
    /// that labels made from it stay few; `unmatchedRoute` when none matched.
    package var route: String
    package var method: HTTPMethod
    package var status: Int
    /// From the access handler's last call for the request (the body, if any, has been read) to
    /// the response being queued; includes the wait for a blocking handler.
    package var nanoseconds: Int64

    package init(route: String, method: HTTPMethod, status: Int, nanoseconds: Int64) {
        self.route = route
        self.method = method
        self.status = status
        self.nanoseconds = nanoseconds
    }

    package var seconds: Double { Double(nanoseconds) / 1e9 }
}

/// `CLOCK_MONOTONIC` in nanoseconds: a vDSO call, cheap enough to read twice per request.
enum MonotonicClock {
    static func nanoseconds() -> Int64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return Int64(now.tv_sec) * 1_000_000_000 + Int64(now.tv_nsec)
    }
}
