import CMicroHTTPD
import Logging

// Response lending: how an answer reaches MHD. A prepared answer's reusable response object is
// lent to this request (`lendAndQueue`) and given back when MHD completes it
// (`completedHandler`); any other answer gets a response object of its own (`queueBuilt`).
// Every queued answer is reported once: to the observer (metrics) and the access log.

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
    /// Hands a response to MHD with `X-Request-ID`, tells the observer and writes the access log.
    /// - Parameters:
    ///   - route: the pattern of the route; `nil` for a request answered before it was routed,
    ///     whose route is then looked up from `url` (only when there is an observer).
    ///   - requestMethod: the parsed method; `nil` to parse it from `method`.
    ///   - started: what `startTime()` gave when the request's last call began.
    func queue(
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
    func queue(
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
                started: started,
                logTarget: entry.logTarget
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
        started: Int64,
        logTarget: [UInt8] = []
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
                nanoseconds: nanoseconds,
                target: logTarget
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
}
