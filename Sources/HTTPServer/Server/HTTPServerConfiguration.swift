/// How the HTTP server listens and what it accepts. Every field has a production default.
package struct HTTPServerConfiguration: Sendable {
    /// An IPv4 or IPv6 literal to bind to.
    package var host: String = "127.0.0.1"
    /// The TCP port; 0 lets the kernel pick a free one (the server reports which).
    package var port: Int = 8080
    /// Worker threads in the epoll pool; 0 means one per core the process may use (its CPU affinity).
    package var threads: Int = 0
    /// Seconds a keep-alive connection may wait for its next request after an answer (nginx's
    /// `keepalive_timeout`, whose 75 s this copies). Above the 60 s idle timeout of common load
    /// balancers, so that a balancer closes an idle connection before the service does and never
    /// sends a request on one the service is closing. It is also libmicrohttpd's own timeout:
    /// the longest a connection may go without a byte while a request's body arrives or its
    /// answer is sent.
    package var idleTimeout: Int = 75
    /// Seconds a request's line and headers may take to arrive (nginx's `client_header_timeout`),
    /// counted from when the connection opened for its first request, and from when the next
    /// request's first bytes were seen for the following ones. Unlike `idleTimeout`, bytes
    /// trickling in do not extend it.
    package var headerTimeout: Int = 10
    /// Open connections accepted in total.
    package var maxConnections: Int = 1024
    /// Open connections accepted from one IP address; 0 means no per-IP limit.
    package var maxConnectionsPerIP: Int = 256
    /// Bytes of memory per connection for the request line and headers; past it MHD answers 431.
    /// The query's parsed arguments take it too: a query whose arguments would not fit with room
    /// for an answer (about 210 short ones at 16 KiB) gets 400 (`CMicroHTTPD_argumentsFit`).
    /// 16 KiB (Node.js's limit too; nginx refuses a header line over 8 KiB): libmicrohttpd (0.9.75
    /// and 1.0.1) zeroes the whole pool between two requests on a connection: serving one
    /// template at about 150,000 requests/s, `memset` was 4.4 % of the server's CPU at MHD's
    /// default of 32 KiB and is 1.8 % at 16 KiB (perf).
    package var headerMemoryLimit: Int = 16 * 1024
    /// Largest request body accepted; larger bodies get 413.
    package var maxBodySize: Int = 1024 * 1024
    /// Answers of memoized routes remembered at most (see `ResponseMemo`); 0 remembers none.
    package var memoEntries: Int = 4096
    /// Seconds to wait for open connections to finish on shutdown.
    package var drainTimeout: Double = 10
    /// The namespace of the `type` of the problems the server answers itself: 400 for a query it
    /// cannot parse or a malformed header, 404 and 405 from the router, 413, 503 while shutting
    /// down. The application names its own; `about:blank` for all of them otherwise.
    package var problemTypes = ProblemTypeNamespace.blank

    /// Query arguments a request may carry; a request with more gets 400 (as does one whose
    /// arguments would not fit in `headerMemoryLimit`: see there).
    package static let maxQueryArguments = 64

    package init() {}

    /// The thread count to use, resolving 0 to the number of cores the process may use.
    package var resolvedThreads: Int {
        threads > 0 ? threads : max(1, SystemInfo.usableCores)
    }
}
