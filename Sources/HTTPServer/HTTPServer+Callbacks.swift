import CMicroHTTPD
import Logging
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Marks a connection whose request has no body: no state needs allocating for it.
private var bodilessRequest: UnsafeMutableRawPointer { UnsafeMutableRawPointer(bitPattern: 1)! }

/// Per-request state for requests that carry a body or run a blocking handler, kept in MHD's
/// `con_cls`. A worker thread writes `pending` before resuming the connection; MHD's resume is the
/// hand-over, so the MHD thread that reads it afterwards sees the write.
final class UploadState: @unchecked Sendable {
    var body: [UInt8] = []
    /// Bytes of a too-large chunked body read and dropped so far.
    var discarded = 0
    /// Whether the body passed the limit (its bytes are dropped from then on).
    var tooLarge: Bool { discarded > 0 }
    /// The response a blocking handler produced, waiting to be queued after the resume.
    var pending: HTTPResponse?
    var requestID = ""
    /// What the observer is told about the response a blocking handler produces.
    var route = HTTPExchange.unmatchedRoute
    var method = HTTPMethod.get
    var started: Int64 = 0
    /// The prepared response's object lent for this request's answer, given back on completion.
    var lease: ResponseLease?
    /// Who answers the request once it is offloaded (see `SuspendedRequests`).
    let claim = Atomic<SuspendedRequests.Claim>(.queued)
}

/// Set in the `con_cls` of a bodiless request whose answer is a lent `ResponseLease`: the
/// lease's (16-byte aligned) address with this bit set, so no state object is allocated for it.
private let leaseTag = 2

/// The header every answer carries.
let requestIDHeader: StaticString = "X-Request-ID"

extension StaticString {
    /// The literal as a C string, without the copy a `String` argument gets when it is stored
    /// inline (15 bytes or fewer), as header names are.
    var cString: UnsafePointer<CChar> {
        UnsafeRawPointer(utf8Start).assumingMemoryBound(to: CChar.self)
    }
}

extension HTTPServer {
    /// MHD's access handler. Called first with the headers, then once per body chunk, then a last
    /// time with no data; the response is queued on a later call than the first, or MHD would drop
    /// keep-alive.
    static let accessHandler: MHD_AccessHandlerCallback = {
        context,
        connection,
        url,
        method,
        version,
        uploadData,
        uploadSize,
        state in
        guard let context, let connection, let url, let method, let uploadSize, let state else { return .NO }
        let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
        // What lets `HTTPHeaders` check that it reads this connection on its own thread, while
        // the connection is handled (see `HTTPHeaders.connectionHeaders`).
        CMicroHTTPD_setCurrentConnection(connection)
        defer { CMicroHTTPD_setCurrentConnection(nil) }
        /// Queues `response` as this request's answer (see `queue`).
        func answer(
            _ response: HTTPResponse,
            requestID: String,
            route: String? = nil,
            requestMethod: HTTPMethod? = nil,
            started: Int64
        ) -> MHD_Result {
            server.queue(
                response,
                on: connection,
                state: state,
                method: method,
                url: url,
                requestID: requestID,
                route: route,
                requestMethod: requestMethod,
                started: started
            )
        }

        if state.pointee == nil || HTTPServer.isArgumentsMarker(state.pointee) {
            // First call: headers only. The connection no longer waits for a request's head.
            CMicroHTTPD_guardHeadReceived(connection)
            // Refuse a request with more query arguments than fit (MHD parsed none of them), one
            // whose framing or Host is wrong (and close the connection, so no byte of its body is
            // read as a next request), and an oversized body before reading it (no 100 Continue;
            // MHD closes a connection whose body it has not read).
            if let marker = state.pointee {
                state.pointee = nil
                let requestID = server.requestID(connection)
                let problem =
                    marker == CMicroHTTPD_tooManyArgumentsMarker()
                    ? HTTPServer.tooManyArguments : HTTPServer.argumentsTooLarge
                return answer(
                    problem.response(
                        requestID: requestID,
                        extraHeaders: [("Connection", "close")]
                    ),
                    requestID: requestID,
                    started: server.startTime()
                )
            }
            let headers = CMicroHTTPD_messageHeaders(connection)
            if let problem = HTTPServer.badMessage(headers, version: version) {
                let requestID = server.requestID(connection)
                return answer(
                    problem.response(requestID: requestID, extraHeaders: [("Connection", "close")]),
                    requestID: requestID,
                    started: server.startTime()
                )
            }
            if let lengthText = headers.contentLength.map({ String(cString: $0) }) {
                let requestID = server.requestID(connection)
                guard let length = Int(lengthText), length >= 0 else {
                    return answer(
                        ProblemDetails.invalidHeader(
                            "Content-Length",
                            "not a non-negative integer",
                            detail: "Content-Length must be a non-negative integer."
                        ).response(requestID: requestID),
                        requestID: requestID,
                        started: server.startTime()
                    )
                }
                if length > server.configuration.maxBodySize {
                    return answer(
                        server.payloadTooLarge(requestID: requestID),
                        requestID: requestID,
                        started: server.startTime()
                    )
                }
                if length > 0 {
                    state.pointee = Unmanaged.passRetained(UploadState()).toOpaque()
                    return .YES
                }
            } else if headers.transferEncoding != 0 {
                state.pointee = Unmanaged.passRetained(UploadState()).toOpaque()
                return .YES
            }
            state.pointee = bodilessRequest
            return .YES
        }

        let upload =
            state.pointee == bodilessRequest
            ? nil : Unmanaged<UploadState>.fromOpaque(state.pointee!).takeUnretainedValue()
        if uploadSize.pointee > 0 {
            // A body chunk: keep it while under the limit. Past it (only a chunked body gets
            // there: a declared length was refused on the first call) the 413 can only be sent
            // once the body ends, as libmicrohttpd queues no answer while a body is arriving; so
            // the rest is read and dropped, up to `discardLimit`, then the connection is closed:
            // a client that never stops sending cannot hold a thread's attention forever.
            if let upload, let uploadData {
                let limit = server.configuration.maxBodySize
                if upload.tooLarge || upload.body.count + uploadSize.pointee > limit {
                    // What was kept is dropped with this chunk; once dropped, the body stays empty.
                    upload.discarded += upload.body.count + uploadSize.pointee
                    upload.body = []
                    if upload.discarded > HTTPServer.discardLimit(maxBodySize: limit) {
                        server.logger.warning(
                            "closing a connection whose chunked body goes on past the limit",
                            metadata: [
                                "request.id": "\(server.requestID(connection))",
                                "http.path": "\(String(cString: url))",
                                "http.body_bytes_read": "\(upload.discarded)",
                                "http.max_body_size": "\(limit)",
                            ]
                        )
                        return .NO
                    }
                } else {
                    uploadData.withMemoryRebound(to: UInt8.self, capacity: uploadSize.pointee) { bytes in
                        upload.body.append(contentsOf: UnsafeBufferPointer(start: bytes, count: uploadSize.pointee))
                    }
                }
            }
            uploadSize.pointee = 0
            return .YES
        }

        if let upload, let pending = upload.pending {
            // Called again after a blocking handler resumed the connection.
            upload.pending = nil
            return answer(
                pending,
                requestID: upload.requestID,
                route: upload.route,
                requestMethod: upload.method,
                started: upload.started
            )
        }
        // The last call for this request: the clock starts here (the body, if any, is read).
        let started = server.startTime()
        if let upload, upload.tooLarge {
            let requestID = server.requestID(connection)
            return answer(
                server.payloadTooLarge(requestID: requestID, declared: false),
                requestID: requestID,
                started: started
            )
        }
        /// Parses, routes and answers the request; `remembering` is its key in the memo and the
        /// generation its lookup saw, when its answer may be remembered.
        func route(remembering: (key: ResponseMemo.Key, generation: UInt64)?) -> MHD_Result {
            let requestID = server.requestID(connection)
            var request: HTTPRequest
            switch server.makeRequest(
                connection: connection,
                url: url,
                method: method,
                id: requestID,
                body: upload?.body ?? []
            ) {
            case .success(let parsed): request = parsed
            case .failure(let problem):
                return answer(
                    problem.response(requestID: requestID),
                    requestID: requestID,
                    started: started
                )
            }
            let (dispatch, route, memoized) = server.dispatch(&request)
            switch dispatch {
            case .respond(let response):
                if memoized, let remembering, let prepared = response.prepared, let name = response.memoName,
                    let memo = server.memo
                {
                    memo.remember(
                        prepared,
                        for: remembering.key,
                        generation: remembering.generation,
                        route: route,
                        method: request.method,
                        name: name
                    )
                }
                return answer(
                    response,
                    requestID: requestID,
                    route: route,
                    requestMethod: request.method,
                    started: started
                )
            case .offload(let handler, let routed, let background):
                let holder: UploadState
                if let upload {
                    holder = upload
                } else {
                    holder = UploadState()
                    state.pointee = Unmanaged.passRetained(holder).toOpaque()
                }
                holder.requestID = requestID
                holder.route = route
                holder.method = request.method
                holder.started = started
                holder.body = []
                MHD_suspend_connection(connection)
                guard server.suspended.register(holder, connection: connection) else {
                    // Shutdown has begun answering suspended requests: this one is not run either.
                    holder.pending = server.shuttingDown(requestID: requestID)
                    MHD_resume_connection(connection)
                    return .YES
                }
                let suspended = SuspendedConnection(pointer: connection)
                let work: @Sendable () -> Void = {
                    // Shutdown may have answered the request while it waited for a thread.
                    guard
                        holder.claim.compareExchange(
                            expected: .queued,
                            desired: .running,
                            ordering: .acquiringAndReleasing
                        ).exchanged
                    else { return }
                    holder.pending = handler(routed)
                    MHD_resume_connection(suspended.pointer)
                    server.suspended.remove(holder)
                }
                if background {
                    server.backgroundWorkers.submit(work)
                } else {
                    server.blockingQueue.async(execute: work)
                }
                return .YES
            }
        }

        // A bodiless GET or HEAD may have been answered before: answer it the same way again.
        if upload == nil, let memo = server.memo, isGetOrHead(method) {
            return memo.withKey(connection: connection, method: method, url: url) { request in
                guard let key = request.key else { return route(remembering: nil) }
                switch memo.lookUp(key) {
                case .hit(let entry):
                    return RequestID.withCString(offered: request.offeredID) { requestID in
                        server.queue(
                            remembered: entry,
                            on: connection,
                            state: state,
                            method: method,
                            url: url,
                            requestID: requestID,
                            started: started
                        )
                    }
                case .miss(let generation):
                    return route(remembering: (key, generation))
                }
            }
        }
        return route(remembering: nil)
    }

    /// How much of a chunked body past `maxBodySize` is read (and dropped) in the hope of
    /// answering 413 when it ends: the limit again, and at least 1 MiB.
    static func discardLimit(maxBodySize: Int) -> Int {
        maxBodySize + max(maxBodySize, 1 << 20)
    }

    /// The 400 for a request whose headers break HTTP/1.1's message rules (RFC 9112), or `nil`.
    private static func badMessage(
        _ headers: CMicroHTTPD_MessageHeaders,
        version: UnsafePointer<CChar>?
    ) -> ProblemDetails? {
        if headers.conflictingContentLength != 0 {
            return ProblemDetails.invalidHeader(
                "Content-Length",
                "sent twice with different values",
                detail: "Content-Length is sent more than once with different values (RFC 9112 §6.3)."
            )
        }
        if headers.contentLength != nil, headers.transferEncoding != 0 {
            return ProblemDetails.invalidHeader(
                "Content-Length",
                "not allowed with Transfer-Encoding",
                detail: "A request carries Content-Length or Transfer-Encoding, not both (RFC 9112 §6.1)."
            )
        }
        if headers.host == 0, let version, strcmp(version, "HTTP/1.1") == 0 {
            return ProblemDetails.invalidHeader(
                "Host",
                "required in HTTP/1.1",
                detail: "An HTTP/1.1 request must carry a Host header (RFC 9112 §3.2)."
            )
        }
        return nil
    }

    /// Whether `method` is exactly `GET` or `HEAD`, read byte by byte (never past the NUL).
    private static func isGetOrHead(_ method: UnsafePointer<CChar>) -> Bool {
        if method[0] == 0x47 { return method[1] == 0x45 && method[2] == 0x54 && method[3] == 0 }
        return method[0] == 0x48 && method[1] == 0x45 && method[2] == 0x41 && method[3] == 0x44 && method[4] == 0
    }

    /// Frees the per-request state once MHD is done with the request, and starts the connection's
    /// wait for its next request. MHD calls it before it lets go of the request's response, which
    /// is why a lent response object can be given back here.
    static let completedHandler: MHD_RequestCompletedCallback = { _, connection, state, _ in
        if let connection { CMicroHTTPD_guardRequestDone(connection) }
        guard let state, let pointer = state.pointee else { return }
        state.pointee = nil
        if pointer == bodilessRequest || isArgumentsMarker(pointer) { return }
        let bits = Int(bitPattern: pointer)
        if bits & leaseTag != 0 {
            let lease = Unmanaged<ResponseLease>.fromOpaque(UnsafeRawPointer(bitPattern: bits & ~leaseTag)!)
                .takeRetainedValue()
            lease.giveBack()
        } else {
            let upload = Unmanaged<UploadState>.fromOpaque(pointer).takeRetainedValue()
            if let lease = upload.lease {
                upload.lease = nil
                lease.giveBack()
            }
        }
    }

    /// Remembers the lease in the request's `con_cls`, for `completedHandler` to give it back.
    private static func record(_ lease: ResponseLease, in state: UnsafeMutablePointer<UnsafeMutableRawPointer?>) {
        if let pointer = state.pointee, pointer != bodilessRequest {
            Unmanaged<UploadState>.fromOpaque(pointer).takeUnretainedValue().lease = lease
        } else {
            let address = Int(bitPattern: Unmanaged.passRetained(lease).toOpaque())
            state.pointee = UnsafeMutableRawPointer(bitPattern: address | leaseTag)
        }
    }

    /// Releases the retain a queued shared body took, once MHD has destroyed the response.
    private static let releaseSharedBytes: MHD_ContentReaderFreeCallback = { context in
        guard let context else { return }
        Unmanaged<SharedBytes>.fromOpaque(context).release()
    }

    private static func lookupHeader(_ connection: OpaquePointer, _ name: StaticString) -> String? {
        guard let value = MHD_lookup_connection_value(connection, .HEADER_KIND, name.cString) else { return nil }
        return String(cString: value)
    }

    /// When the clock of a request's duration starts; 0 without an observer or an access log,
    /// to skip the clock.
    private func startTime() -> Int64 {
        observer == nil && accessLog == nil ? 0 : MonotonicClock.nanoseconds()
    }

    /// The route of a request answered before it was routed (400, 413), from its raw URL.
    private func route(rawURL url: UnsafePointer<CChar>) -> String {
        guard case .success(let target) = PercentDecoding.decode(cString: url, plusIsSpace: false),
            let path = Self.path(ofTarget: target)
        else { return HTTPExchange.unmatchedRoute }
        return router.pattern(for: path) ?? HTTPExchange.unmatchedRoute
    }

    private func requestID(_ connection: OpaquePointer) -> String {
        if let offered = Self.lookupHeader(connection, "X-Request-ID"), RequestID.isSane(offered) {
            return offered
        }
        return RequestID.generate()
    }

    /// The 400 for a query with more than `maxQueryArguments` arguments.
    static let tooManyArguments = ProblemDetails.invalidParameters(
        [.init(nil, "at most \(HTTPServerConfiguration.maxQueryArguments) query arguments")],
        detail: "The query has more than \(HTTPServerConfiguration.maxQueryArguments) arguments."
    )

    /// The 400 for a query whose arguments do not fit in the connection's memory.
    static let argumentsTooLarge = ProblemDetails.invalidParameters(
        [.init(nil, "the query's arguments need more than the header memory limit leaves")],
        detail: "The query's arguments are too long to parse beside the request's headers."
    )

    /// Whether `pointer` is one of the markers the URI callback leaves in `con_cls` for a query
    /// that was not parsed.
    static func isArgumentsMarker(_ pointer: UnsafeMutableRawPointer?) -> Bool {
        pointer == CMicroHTTPD_tooManyArgumentsMarker() || pointer == CMicroHTTPD_argumentsTooLargeMarker()
    }

    /// The 503 for a request that shutdown answered before its handler ran: it was not carried
    /// out, and may be sent again (to another instance, or to this one once it is back).
    func shuttingDown(requestID: String) -> HTTPResponse {
        ProblemDetails(
            status: 503,
            slug: "shutting-down",
            title: "Service Unavailable",
            detail: "The server is shutting down and did not carry out this request; send it again."
        ).response(requestID: requestID, extraHeaders: [("Retry-After", "1")])
    }

    /// 413; `declared` when `Content-Length` announced the size, otherwise the chunked body passed it.
    private func payloadTooLarge(requestID: String, declared: Bool = true) -> HTTPResponse {
        ProblemDetails(
            status: 413,
            slug: "payload-too-large",
            title: "Content Too Large",
            detail: "The request body is larger than the limit of \(configuration.maxBodySize) bytes.",
            errors: [
                .init(declared ? .header("Content-Length") : .pointer(""), "at most \(configuration.maxBodySize) bytes")
            ]
        ).response(requestID: requestID)
    }

    /// What collecting the query arguments gives: the decoded ones so far, or the raw name of
    /// the first that is not valid percent-encoded UTF-8, and why.
    private struct QueryCollection {
        var arguments: [(name: String, value: String)] = []
        var malformed: (name: String, failure: PercentDecoding.Failure)?
    }

    /// The query arguments of `connection` decoded, in arrival order; an argument without `=`
    /// has an empty value.
    private static func query(_ connection: OpaquePointer) -> QueryCollection {
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

    /// Builds the request handlers see: strict percent-decoding of the path and the query; the
    /// headers stay in the connection until read.
    private func makeRequest(
        connection: OpaquePointer,
        url: UnsafePointer<CChar>,
        method: UnsafePointer<CChar>,
        id: String,
        body: [UInt8]
    ) -> Result<HTTPRequest, ProblemDetails> {
        guard case .success(let target) = PercentDecoding.decode(cString: url, plusIsSpace: false),
            let path = Self.path(ofTarget: target)
        else {
            return .failure(
                ProblemDetails(
                    status: 400,
                    slug: "malformed-path",
                    title: "Bad Request",
                    detail: "The path is not a valid percent-encoded UTF-8 path."
                )
            )
        }
        let query = Self.query(connection)
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

    /// Hands a response to MHD with `X-Request-ID`, logs the request and tells the observer.
    /// - Parameters:
    ///   - route: the pattern of the route; `nil` for a request answered before it was routed,
    ///     whose route is then looked up from `url` (only when there is an observer).
    ///   - requestMethod: the parsed method; `nil` to parse it from `method`.
    ///   - started: what `startTime()` gave when the request's last call began.
    private func queue(
        _ response: HTTPResponse,
        on connection: OpaquePointer,
        state: UnsafeMutablePointer<UnsafeMutableRawPointer?>,
        method: UnsafePointer<CChar>,
        url: UnsafePointer<CChar>,
        requestID: String,
        route: String? = nil,
        requestMethod: HTTPMethod? = nil,
        started: Int64
    ) -> MHD_Result {
        let result: MHD_Result
        if let prepared = response.prepared, !isDraining.load(ordering: .relaxed),
            let queued = requestID.withCString({ lendAndQueue(prepared, on: connection, state: state, requestID: $0) })
        {
            result = queued
        } else {
            result = queueBuilt(response, on: connection, requestID: requestID)
        }
        if result == .YES {
            requestID.withCString { requestID in
                report(
                    status: response.status,
                    bytes: response.body.count,
                    route: route,
                    requestMethod: requestMethod,
                    connection: connection,
                    method: method,
                    url: url,
                    requestID: requestID,
                    started: started
                )
            }
        }
        return result
    }

    /// `queue` for an answer the memo remembered: no `HTTPResponse`, and the request id stays a
    /// C string.
    private func queue(
        remembered entry: ResponseMemo.Entry,
        on connection: OpaquePointer,
        state: UnsafeMutablePointer<UnsafeMutableRawPointer?>,
        method: UnsafePointer<CChar>,
        url: UnsafePointer<CChar>,
        requestID: UnsafePointer<CChar>,
        started: Int64
    ) -> MHD_Result {
        let prepared = entry.answer
        let result: MHD_Result
        if !isDraining.load(ordering: .relaxed),
            let queued = lendAndQueue(prepared, on: connection, state: state, requestID: requestID)
        {
            result = queued
        } else {
            result = queueBuilt(HTTPResponse(prepared), on: connection, requestID: String(cString: requestID))
        }
        if result == .YES {
            report(
                status: prepared.status,
                bytes: prepared.body.count,
                route: entry.route,
                requestMethod: entry.method,
                connection: connection,
                method: method,
                url: url,
                requestID: requestID,
                started: started
            )
        }
        return result
    }

    /// Queues one of `prepared`'s response objects, lent for this answer; `nil` when none could
    /// be lent (the caller then builds the response).
    private func lendAndQueue(
        _ prepared: PreparedResponse,
        on connection: OpaquePointer,
        state: UnsafeMutablePointer<UnsafeMutableRawPointer?>,
        requestID: UnsafePointer<CChar>
    ) -> MHD_Result? {
        guard let lease = prepared.lend(requestID: requestID) else { return nil }
        let result = MHD_queue_response(connection, UInt32(prepared.status), lease.response)
        if result == .YES { Self.record(lease, in: state) } else { lease.giveBack() }
        return result
    }

    /// Tells the observer about a queued answer and writes its access-log line.
    private func report(
        status: Int,
        bytes: Int,
        route: String?,
        requestMethod: HTTPMethod?,
        connection: OpaquePointer,
        method: UnsafePointer<CChar>,
        url: UnsafePointer<CChar>,
        requestID: UnsafePointer<CChar>,
        started: Int64
    ) {
        guard observer != nil || accessLog != nil else { return }
        let nanoseconds = MonotonicClock.nanoseconds() - started
        if let observer {
            observer(
                HTTPExchange(
                    route: route ?? self.route(rawURL: url),
                    method: requestMethod ?? HTTPMethod(cString: method),
                    status: status,
                    nanoseconds: nanoseconds
                )
            )
        }
        if let accessLog {
            accessLog.log(
                connection: connection,
                requestID: requestID,
                method: method,
                path: url,
                status: status,
                responseBytes: bytes,
                nanoseconds: nanoseconds
            )
        }
    }

    /// A response object with `body` and no headers; `nil` when MHD cannot allocate one. A shared
    /// body is retained until MHD destroys the object.
    static func makeResponse(_ body: HTTPBody) -> OpaquePointer? {
        switch body {
        case .empty:
            return MHD_create_response_from_buffer(0, nil, .RESPMEM_PERSISTENT)
        case .bytes(let bytes):
            return bytes.withUnsafeBytes { buffer in
                MHD_create_response_from_buffer(
                    buffer.count,
                    UnsafeMutableRawPointer(mutating: buffer.baseAddress),
                    .RESPMEM_MUST_COPY
                )
            }
        case .shared(let shared):
            let retained = Unmanaged.passRetained(shared).toOpaque()
            let made = MHD_create_response_from_buffer_with_free_callback_cls(
                shared.count,
                shared.pointer,
                releaseSharedBytes,
                retained
            )
            if made == nil { Unmanaged<SharedBytes>.fromOpaque(retained).release() }
            return made
        }
    }

    /// Queues a response object made for this answer alone.
    private func queueBuilt(_ response: HTTPResponse, on connection: OpaquePointer, requestID: String) -> MHD_Result {
        guard let mhdResponse = Self.makeResponse(response.body) else {
            logger.error("cannot allocate a response", metadata: ["request.id": "\(requestID)"])
            return .NO
        }
        defer { MHD_destroy_response(mhdResponse) }
        for header in response.headers {
            _ = MHD_add_response_header(mhdResponse, header.name, header.value)
        }
        _ = MHD_add_response_header(mhdResponse, requestIDHeader.cString, requestID)
        if isDraining.load(ordering: .relaxed) {
            _ = MHD_add_response_header(mhdResponse, "Connection", "close")
        }
        return MHD_queue_response(connection, UInt32(response.status), mhdResponse)
    }
}
