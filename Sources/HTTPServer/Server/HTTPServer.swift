import CMicroHTTPD
import Dispatch
import Logging
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// An HTTP/1.1 server on libmicrohttpd: an epoll thread pool calls `Router` handlers
/// synchronously on the connection's own thread.
///
/// Lifecycle: `start()` binds and returns the port; `shutdown()` stops accepting, lets open
/// connections finish (bounded by `drainTimeout`), answers or finishes every request still
/// waiting for a worker, and stops the daemon.
package final class HTTPServer: Sendable {
    /// Why the server could not start.
    package struct StartError: Error, CustomStringConvertible {
        /// What kind of problem it is, for the caller's exit status.
        package enum Reason: Sendable {
            /// The address cannot be listened on (in use, not this machine's, not allowed).
            case cannotListen
            /// The libmicrohttpd the process loaded is older than `oldestLibraryVersion`.
            case libraryTooOld
            /// Out of memory, or a port outside 0–65535.
            case other
        }

        package let description: String
        package var reason: Reason = .other
    }

    /// Told about every response once it is queued, on the connection's thread: it must be quick.
    package typealias Observer = @Sendable (HTTPExchange) -> Void

    package let configuration: HTTPServerConfiguration
    let router: Router
    let logger: Logger
    /// Where each answered request gets a line; `nil` logs none.
    let accessLog: AccessLog?
    private let daemon = Mutex<DaemonHandle?>(nil)
    /// Set once shutdown begins: responses then carry `Connection: close`.
    let isDraining = Atomic<Bool>(false)
    /// Set once the daemon listens: libmicrohttpd's messages from then on are about connections.
    let isStarted = Atomic<Bool>(false)
    /// libmicrohttpd's messages while the daemon starts: the reason given when it does not.
    let startMessages = Mutex<[String]>([])
    /// Where blocking handlers run while their connection is suspended.
    let blockingQueue = DispatchQueue(label: "http.blocking-handlers", attributes: .concurrent)
    /// Where background handlers run: threads of their own at nice 19 (libdispatch shares its
    /// threads across queues, so lowering one of those would leak to other work).
    let backgroundWorkers = LowPriorityWorkers(threads: 16, label: "http-background")
    let observer: Observer?
    /// Where the prepared answers of memoized routes are remembered; `nil` remembers none.
    let memo: ResponseMemo?
    /// What the memo's keys are made of beside the method and URL: every header a memoized
    /// route of `router` declared, which are all its handlers can read.
    let memoKeyHeaders: ResponseMemo.HeaderNames
    /// Requests whose connection waits for a blocking or background handler.
    let suspended = SuspendedRequests()
    /// Cuts off slow request heads and sheds waiting connections near the limit; set while running.
    private let connectionGuard = Mutex<ConnectionGuard?>(nil)
    /// How long shutdown waits for handlers that already run (a store write waits up to its busy
    /// timeout of 10 s for a lock) before it gives up on stopping libmicrohttpd cleanly.
    static let runningHandlerGrace: Duration = .seconds(30)

    /// - Parameters:
    ///   - observer: called once per response, including the 400, 404, 405 and 413 the server
    ///     answers itself; `nil` costs nothing per request.
    ///   - memo: remembers the answers of the router's memoized routes, by the headers they
    ///     declared; `nil` calls their handlers for every request.
    ///   - accessLog: gets a line for every answer the observer is told about; started and
    ///     stopped by its owner (stopped after `shutdown()`, so the last lines are written).
    package init(
        configuration: HTTPServerConfiguration,
        router: Router,
        logger: Logger,
        observer: Observer? = nil,
        memo: ResponseMemo? = nil,
        accessLog: AccessLog? = nil
    ) {
        self.configuration = configuration
        self.router = router
        self.logger = logger
        self.accessLog = accessLog
        self.observer = observer
        self.memo = memo
        memoKeyHeaders = ResponseMemo.HeaderNames(router.memoVaryingHeaders)
    }

    /// Connections open now, as libmicrohttpd counts them (0 when not running).
    ///
    /// Asked under the daemon lock: MHD sums its workers' counts into one shared field, so two
    /// callers must not overlap (and `shutdown()` takes the handle before stopping the daemon).
    package var openConnections: Int {
        daemon.withLock { handle in handle.map { Int(CMicroHTTPD_currentConnections($0.pointer)) } ?? 0 }
    }

    /// Connections closed because a request's head was late (`headerTimeout`), to make room near
    /// `maxConnections`, and because a query's arguments would not fit in `headerMemoryLimit`,
    /// since start (as of the guard's last sweep).
    package var guardClosedConnections: (headerTimeout: Int, shed: Int, queryTooLarge: Int) {
        connectionGuard.withLock { value in
            value.map {
                (
                    $0.timedOut.load(ordering: .relaxed), $0.shed.load(ordering: .relaxed),
                    $0.argumentsOverflow.load(ordering: .relaxed)
                )
            } ?? (0, 0, 0)
        }
    }

    /// The oldest libmicrohttpd the server runs on (Debian 12's): every
    /// function and option it uses exists there (the table in Sources/CMicroHTTPD/include).
    package static let oldestLibraryVersion = (major: 0 as UInt32, minor: 9 as UInt32, patch: 75 as UInt32)

    /// The version of the libmicrohttpd the process loaded, as the library spells it.
    package static var libraryVersion: String {
        CMicroHTTPD_runningVersion().text.map { String(cString: $0) } ?? "unknown"
    }

    /// Why the loaded libmicrohttpd cannot be used (it is older than `oldestLibraryVersion`), or
    /// `nil` when it can.
    static func libraryVersionProblem(_ version: CMicroHTTPD_Version) -> String? {
        let oldest = oldestLibraryVersion
        guard (version.major, version.minor, version.patch) < (oldest.major, oldest.minor, oldest.patch) else {
            return nil
        }
        let found = version.text.map { String(cString: $0) } ?? "of unknown version"
        return
            "libmicrohttpd \(found) is older than \(oldest.major).\(oldest.minor).\(oldest.patch), the oldest this server runs on: install libmicrohttpd \(oldest.major).\(oldest.minor).\(oldest.patch) or newer (Debian 12: libmicrohttpd12; Debian 13: libmicrohttpd12t64)"
    }

    /// Binds and starts the worker threads.
    /// - Returns: the bound port (the one the kernel picked when the configuration says 0).
    /// - Throws: `StartError` when the host is not an IP literal, the port cannot be bound, or
    ///   libmicrohttpd is older than `oldestLibraryVersion`.
    package func start() throws -> Int {
        guard (0...65535).contains(configuration.port) else {
            throw StartError(description: "port \(configuration.port) is outside 0–65535")
        }
        if let problem = Self.libraryVersionProblem(CMicroHTTPD_runningVersion()) {
            throw StartError(description: problem, reason: .libraryTooOld)
        }
        guard
            let guardian = ConnectionGuard(
                headerTimeout: configuration.headerTimeout,
                idleTimeout: configuration.idleTimeout,
                maxConnections: configuration.maxConnections,
                maxArguments: HTTPServerConfiguration.maxQueryArguments,
                memoryLimit: configuration.headerMemoryLimit,
                logger: logger
            )
        else { throw StartError(description: "cannot allocate the connection guard") }
        let overflow = argumentsTooLargeAnswer()
        let answerSet = overflow.head.withUnsafeBufferPointer { head in
            overflow.body.withUnsafeBufferPointer { body in
                CMicroHTTPD_guardSetOverflowAnswer(
                    guardian.pointer,
                    UnsafeRawPointer(head.baseAddress!).assumingMemoryBound(to: CChar.self),
                    head.count,
                    UnsafeRawPointer(body.baseAddress!).assumingMemoryBound(to: CChar.self),
                    body.count,
                    overflow.idOffset ?? -1  // SIZE_MAX: nowhere
                )
            }
        }
        // Without it, such a query's connection is closed unanswered (the problem types' namespace
        // would have to be very long for the answer not to fit).
        if answerSet != 0 {
            logger.warning("the answer to queries too large to parse does not fit; their connections will be closed")
        }
        let flags =
            UInt32(MHD_USE_EPOLL_INTERNAL_THREAD.rawValue) | UInt32(MHD_USE_ITC.rawValue)
            | UInt32(MHD_USE_ERROR_LOG.rawValue) | UInt32(MHD_ALLOW_SUSPEND_RESUME.rawValue)
        var options: [MHD_OptionItem] = [
            // libmicrohttpd's timeout counts from the last byte received or sent, so it is the idle
            // one; the guard enforces the header deadline that bytes do not extend.
            MHD_OptionItem(option: .CONNECTION_TIMEOUT, value: configuration.idleTimeout, ptr_value: nil),
            MHD_OptionItem(option: .CONNECTION_LIMIT, value: configuration.maxConnections, ptr_value: nil),
            MHD_OptionItem(option: .CONNECTION_MEMORY_LIMIT, value: configuration.headerMemoryLimit, ptr_value: nil),
        ]
        // One thread is MHD's internal thread itself: a pool of 1 only makes MHD log a warning.
        if configuration.resolvedThreads > 1 {
            options.append(
                MHD_OptionItem(option: .THREAD_POOL_SIZE, value: configuration.resolvedThreads, ptr_value: nil)
            )
        }
        if configuration.maxConnectionsPerIP > 0 {
            options.append(
                MHD_OptionItem(
                    option: .PER_IP_CONNECTION_LIMIT,
                    value: configuration.maxConnectionsPerIP,
                    ptr_value: nil
                )
            )
        }
        options.append(MHD_OptionItem(option: .END, value: 0, ptr_value: nil))

        var bindError: Int32 = 0
        var boundPort: UInt16 = 0
        var isIPv6: Int32 = 0
        let listenSocket = CMicroHTTPD_listen(
            configuration.host,
            UInt16(configuration.port),
            &bindError,
            &boundPort,
            &isIPv6
        )
        guard listenSocket >= 0 else {
            let reason = String(cString: strerror(bindError))
            throw StartError(
                description:
                    "cannot listen on \(Self.address(configuration.host, configuration.port)): \(reason.prefix(1).lowercased() + reason.dropFirst())",
                reason: .cannotListen
            )
        }
        let context = Unmanaged.passUnretained(self).toOpaque()
        startMessages.withLock { $0 = [] }
        let started = options.withUnsafeBufferPointer { buffer in
            CMicroHTTPD_start(
                flags,
                listenSocket,
                isIPv6,
                HTTPServer.accessHandler,
                context,
                HTTPServer.completedHandler,
                guardian.pointer,
                HTTPServer.libraryMessage,
                context,
                buffer.baseAddress
            )
        }
        guard let started else {
            // The socket is libmicrohttpd's now (see CMicroHTTPD_start); its messages say why.
            let messages = startMessages.withLock { $0 }.joined(separator: "; ")
            throw StartError(
                description:
                    "libmicrohttpd \(Self.libraryVersion) did not start on \(Self.address(configuration.host, Int(boundPort))): \(messages.isEmpty ? "it gave no reason" : messages)"
            )
        }
        isStarted.store(true, ordering: .releasing)
        daemon.withLock { $0 = DaemonHandle(pointer: started) }
        guardian.start()
        connectionGuard.withLock { $0 = guardian }
        return Int(boundPort)
    }

    /// Stops accepting connections, waits up to `drainTimeout` for open ones to close
    /// (answering with `Connection: close` meanwhile), then stops the workers.
    ///
    /// libmicrohttpd aborts the process when it is stopped with a connection suspended, so before
    /// it stops, every request waiting for a worker is answered: 503 when its handler has not
    /// started (it is not run), its own answer when the handler runs (waited for, up to
    /// `runningHandlerGrace`: the write may already be committed, and its client must hear so).
    package func shutdown() {
        guard
            let running = daemon.withLock({ value -> DaemonHandle? in
                defer { value = nil }
                return value
            })?.pointer
        else { return }
        isDraining.store(true, ordering: .releasing)
        // Closed at once: MHD no longer accepts on it, and while it stays open the kernel still
        // completes handshakes that nobody answers. Closed, a new connection is refused and a
        // load balancer moves on.
        let listenSocket = MHD_quiesce_daemon(running)
        if listenSocket >= 0 { close(listenSocket) }
        let deadline = ContinuousClock.now + .milliseconds(Int(configuration.drainTimeout * 1000))
        var open = CMicroHTTPD_currentConnections(running)
        while open > 0, ContinuousClock.now < deadline {
            usleep(20_000)
            open = CMicroHTTPD_currentConnections(running)
        }
        if open > 0 {
            logger.warning(
                "drain timeout reached; closing remaining connections",
                metadata: ["http.open_connections": "\(open)"]
            )
        }
        let guardian = connectionGuard.withLock { value in
            defer { value = nil }
            return value
        }
        guardian?.stop()
        guard finishSuspendedRequests(guardian: guardian) else {
            // Stopping MHD now would abort the process; exiting without stopping it loses nothing
            // more (the kernel closes the sockets), and lets the caller flush the event store.
            logger.critical(
                "handlers still running after the grace period; not stopping the HTTP workers",
                metadata: ["http.grace_s": "\(Self.runningHandlerGrace.components.seconds)"]
            )
            // MHD's threads still tell the guard about connections: it must outlive them.
            if let guardian { _ = Unmanaged.passRetained(guardian) }
            return
        }
        MHD_stop_daemon(running)
    }

    /// Answers the suspended requests whose handler has not started with 503, waits for the
    /// running ones to finish, then gives the answers a moment to be sent.
    /// - Returns: `false` when handlers still run after `runningHandlerGrace`.
    private func finishSuspendedRequests(guardian: ConnectionGuard?) -> Bool {
        let (cancelled, running) = suspended.cancelQueued { upload in
            shuttingDown(requestID: upload.requestID)
        }
        if cancelled > 0 || running > 0 {
            logger.notice(
                "answering requests still waiting for a worker",
                metadata: ["http.requests_refused": "\(cancelled)", "http.requests_running": "\(running)"]
            )
        }
        let graceEnd = ContinuousClock.now + Self.runningHandlerGrace
        while !suspended.isEmpty {
            guard ContinuousClock.now < graceEnd else { return false }
            usleep(5_000)
        }
        // The resumed requests are answered on MHD's threads; their answers carry
        // `Connection: close`, so the connections close once they are sent.
        if cancelled > 0 || running > 0, let guardian {
            let sendEnd = ContinuousClock.now + .seconds(2)
            while CMicroHTTPD_guardBusy(guardian.pointer) > 0, ContinuousClock.now < sendEnd {
                usleep(5_000)
            }
        }
        return true
    }

    /// What routing a request gave: a response now, or a blocking handler to run off MHD's threads.
    enum Dispatch {
        case respond(HTTPResponse)
        case offload(Router.Handler, HTTPRequest, background: Bool)
    }

    /// Routes a parsed request: answers 404/405 itself, runs a fast handler now, and hands a
    /// blocking one back to be run on `blockingQueue`. Sets the request's path parameters in
    /// place (copying a request retains each of its fields).
    /// - Returns: that, the pattern of the route (`HTTPExchange.unmatchedRoute` when none), and
    ///   whether the route's answers may be remembered.
    func dispatch(_ request: inout HTTPRequest) -> (dispatch: Dispatch, route: String, memoized: Bool) {
        let (match, execution, pattern, _) = router.resolve(method: request.method, path: request.path)
        let route = pattern ?? HTTPExchange.unmatchedRoute
        switch match {
        case .handler(let handler, let parameters):
            request.pathParameters = parameters
            switch execution {
            case .inline: return (.respond(handler(request)), route, false)
            case .memoized: return (.respond(handler(request)), route, true)
            case .blocking, .background:
                // The headers are read from the connection; the handler runs on another thread.
                request.headers = request.headers.detached()
                return (.offload(handler, request, background: execution == .background), route, false)
            }
        case .notFound:
            return (
                .respond(
                    ProblemDetails(
                        status: 404,
                        slug: "not-found",
                        title: "Not Found",
                        detail: "There is no resource at this path."
                    ).response(requestID: request.id, in: configuration.problemTypes)
                ), route, false
            )
        case .methodNotAllowed(let allowed):
            let allow = allowed.map(\.description).joined(separator: ", ")
            return (
                .respond(
                    ProblemDetails(
                        status: 405,
                        slug: "method-not-allowed",
                        title: "Method Not Allowed",
                        detail: "\(request.method) is not allowed here; use \(allow)."
                    ).response(requestID: request.id, in: configuration.problemTypes, extraHeaders: [("Allow", allow)])
                ), route, false
            )
        }
    }
}

extension HTTPServer {
    /// `host:port` as a client writes it: an IPv6 literal in brackets.
    static func address(_ host: String, _ port: Int) -> String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// Where libmicrohttpd's own messages go (they would otherwise be printed to stderr as they
    /// are): the log, with the message as metadata. While the daemon starts they are at debug,
    /// and kept: a failure to start is reported once, by `start()`'s error, which quotes them.
    /// Afterwards they are about connections and requests (a malformed request, a
    /// client gone, the connection limit), so at info, the access log's level.
    static let libraryMessage: CMicroHTTPD_LogSink = { context, message in
        guard let context, let message else { return }
        let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
        let text = String(cString: message)
        let started = server.isStarted.load(ordering: .acquiring)
        if !started { server.startMessages.withLock { $0.append(text) } }
        server.logger.log(level: started ? .info : .debug, "libmicrohttpd", metadata: ["mhd.message": "\(text)"])
    }
}

/// The running daemon. MHD's daemon calls are thread-safe; the handle only moves between threads.
private struct DaemonHandle: @unchecked Sendable {
    let pointer: OpaquePointer
}
