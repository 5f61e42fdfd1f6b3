import CMicroHTTPD
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The life of one request, from the access handler's first call to its answer: a small state
/// machine that says what to do with each call MHD makes (modelled on Hummingbird's
/// `HTTPConnectionStateHandler`). It decides; the access handler reads the connection and carries
/// the actions out. Between calls its state lives in MHD's `con_cls` (`RequestSlot`), with no
/// allocation for a request without a body.
///
/// ```
/// awaitingHead ──head──▶ answered             refused: bad framing, query or size (answer now)
///      │          ├─────▶ closed               a query too large for the connection's memory (answered
///      │          │                            by the URI callback)
///      │          ├─────▶ awaitingDispatch     no body
///      │          └─────▶ readingBody(upload)  ──chunk──▶ readingBody, or closed past the limit
/// awaitingDispatch, readingBody ──end──▶ dispatched(upload?), or answered (413)
/// dispatched ──offload──▶ suspended(upload) ──end (after the resume)──▶ answered
/// ```
///
/// MHD calls the access handler first with the head, then once per body chunk, then a last time
/// with no data; a response is queued on a later call than the first, or MHD drops keep-alive.
struct RequestStateMachine {
    enum State {
        /// The first call: only the head has arrived. `refusal` when the URI callback refused the
        /// query.
        case awaitingHead(refusal: QueryRefusal?)
        /// A request without a body, dispatched on the next call.
        case awaitingDispatch
        /// A body is arriving into `upload`.
        case readingBody(UploadState)
        /// Being routed and answered on this call (`upload` when it had a body).
        case dispatched(UploadState?)
        /// Its handler runs on a worker, the connection suspended; the answer comes in `pending`.
        case suspended(UploadState)
        /// The answer is queued (or being queued on this call).
        case answered
        /// The connection is to be closed without an answer.
        case closed
    }

    /// What the URI callback found wrong with the query (see `CMicroHTTPD_tooManyArgumentsMarker`).
    enum QueryRefusal {
        /// More arguments than `HTTPServerConfiguration.maxQueryArguments`: answered 400.
        case tooManyArguments
        /// Arguments that would not fit in the connection's memory: the URI callback has answered
        /// 400 already, and ended the connection.
        case argumentsOverflow
    }

    /// What the head says about the message's framing and `Host` (`CMicroHTTPD_messageHeaders`).
    struct Head {
        /// `Content-Length` as sent, when present.
        var contentLength: String?
        var conflictingContentLength = false
        var transferEncoding = false
        var host = false
        var isHTTP11 = false
    }

    /// What the route says of the body a head announces (from its `BodyPolicy`).
    struct BodyTerms {
        /// The route's limit.
        var maxBytes: Int
        /// The answer that refuses the request before its body is read, with its request id.
        var refusal: (response: HTTPResponse, requestID: String)?
    }

    /// What to do with the head.
    enum HeadAction {
        /// Answer now with `problem`; with `closeConnection` (framing that cannot be trusted: no
        /// byte of its body may be read as a next request), with `Connection: close`.
        case refuse(ProblemDetails, closeConnection: Bool)
        /// Answer 413 now: `Content-Length` is over the limit (MHD then sends no 100 Continue).
        case refusePayloadTooLarge(limit: Int)
        /// Answer now with the route's refusal; the body is never read.
        case refuseBody(HTTPResponse, requestID: String)
        /// Answer nothing more and close the connection (the URI callback answered already).
        case close
        /// Read the body into a new `UploadState` (stored in the slot).
        case readBody
        /// Answer on the next call.
        case awaitDispatch
    }

    /// What to do with a chunk of the body.
    enum ChunkAction {
        /// Append it to `upload.body`.
        case keep(UploadState)
        /// Drop it: the body is past the limit, and a 413 waits for its end.
        case discard
        /// Close the connection: a chunked body went on past `HTTPServer.discardLimit`.
        case close(discarded: Int, limit: Int)
        /// Consume it and do nothing (a request with no body state).
        case ignore
    }

    /// What to do on the last call.
    enum EndAction {
        /// Queue the answer a worker left while the connection was suspended.
        case queuePending(HTTPResponse, UploadState)
        /// Answer 413: a chunked body passed the limit.
        case refusePayloadTooLarge(limit: Int)
        /// Route and answer the request (with its body when it has one).
        case dispatch(UploadState?)
    }

    private(set) var state: State
    /// The server's limit, for routes without a `BodyPolicy`.
    let maxBodySize: Int

    init(state: State, maxBodySize: Int) {
        self.state = state
        self.maxBodySize = maxBodySize
    }

    /// The first call: refuses what cannot be served and decides whether a body follows.
    /// - Parameter terms: the route's terms, asked only when a body is announced; `nil` for the
    ///   server's limit.
    mutating func receivedHead(_ head: Head, terms: () -> BodyTerms? = { nil }) -> HeadAction {
        guard case .awaitingHead(let refusal) = state else { preconditionFailure("a second head for one request") }
        switch refusal {
        case .tooManyArguments:
            state = .answered
            return .refuse(HTTPServer.tooManyArguments, closeConnection: true)
        case .argumentsOverflow:
            state = .closed
            return .close
        case nil:
            break
        }
        if let problem = Self.badMessage(head) {
            state = .answered
            return .refuse(problem, closeConnection: true)
        }
        if let lengthText = head.contentLength {
            guard let length = Int(lengthText), length >= 0 else {
                state = .answered
                return .refuse(
                    ProblemDetails.invalidHeader(
                        "Content-Length",
                        "not a non-negative integer",
                        detail: "Content-Length must be a non-negative integer."
                    ),
                    closeConnection: false
                )
            }
            if length > 0 {
                return readBody(declaredLength: length, terms: terms())
            }
        } else if head.transferEncoding {
            return readBody(declaredLength: nil, terms: terms())
        }
        state = .awaitingDispatch
        return .awaitDispatch
    }

    /// A body is announced: refused by the route, too large, or to be read under its limit.
    private mutating func readBody(declaredLength: Int?, terms: BodyTerms?) -> HeadAction {
        if let refusal = terms?.refusal {
            state = .answered
            return .refuseBody(refusal.response, requestID: refusal.requestID)
        }
        let limit = terms?.maxBytes ?? maxBodySize
        if let declaredLength, declaredLength > limit {
            state = .answered
            return .refusePayloadTooLarge(limit: limit)
        }
        let upload = UploadState()
        upload.limit = limit
        state = .readingBody(upload)
        return .readBody
    }

    /// A body chunk of `count` bytes: kept while under the limit. Past it (only a chunked body
    /// gets there: a declared length was refused with the head) the 413 can only be sent once
    /// the body ends, as libmicrohttpd queues no answer while a body is arriving; so the rest is
    /// read and dropped, up to `HTTPServer.discardLimit`, then the connection is closed: a client
    /// that never stops sending cannot hold a thread's attention forever.
    mutating func receivedBody(count: Int) -> ChunkAction {
        guard case .readingBody(let upload) = state else { return .ignore }
        guard upload.tooLarge || upload.body.count + count > upload.limit else { return .keep(upload) }
        // What was kept is dropped with this chunk; once dropped, the body stays empty.
        upload.discarded += upload.body.count + count
        upload.body = []
        guard upload.discarded <= HTTPServer.discardLimit(maxBodySize: upload.limit) else {
            state = .closed
            return .close(discarded: upload.discarded, limit: upload.limit)
        }
        return .discard
    }

    /// The last call for the request (or the call after a worker resumed its connection).
    mutating func receivedEnd() -> EndAction {
        switch state {
        case .suspended(let upload):
            guard let pending = upload.pending else { preconditionFailure("resumed without an answer") }
            upload.pending = nil
            state = .answered
            return .queuePending(pending, upload)
        case .readingBody(let upload):
            if upload.tooLarge {
                state = .answered
                return .refusePayloadTooLarge(limit: upload.limit)
            }
            state = .dispatched(upload)
            return .dispatch(upload)
        case .awaitingDispatch:
            state = .dispatched(nil)
            return .dispatch(nil)
        case .awaitingHead, .dispatched, .answered, .closed:
            preconditionFailure("the end of a request in state \(state)")
        }
    }

    /// The dispatched request's handler is to run on a worker: the connection is suspended, and
    /// the returned state (the body's, or a new one) carries the answer back.
    mutating func offload() -> UploadState {
        guard case .dispatched(let upload) = state else { preconditionFailure("offloading in state \(state)") }
        let holder = upload ?? UploadState()
        state = .suspended(holder)
        return holder
    }

    /// The dispatched request's answer is queued.
    mutating func answered() {
        state = .answered
    }

    /// The 400 for a request whose headers break HTTP/1.1's message rules (RFC 9112), or `nil`.
    static func badMessage(_ head: Head) -> ProblemDetails? {
        if head.conflictingContentLength {
            return ProblemDetails.invalidHeader(
                "Content-Length",
                "sent twice with different values",
                detail: "Content-Length is sent more than once with different values (RFC 9112 §6.3)."
            )
        }
        if head.contentLength != nil, head.transferEncoding {
            return ProblemDetails.invalidHeader(
                "Content-Length",
                "not allowed with Transfer-Encoding",
                detail: "A request carries Content-Length or Transfer-Encoding, not both (RFC 9112 §6.1)."
            )
        }
        if !head.host, head.isHTTP11 {
            return ProblemDetails.invalidHeader(
                "Host",
                "required in HTTP/1.1",
                detail: "An HTTP/1.1 request must carry a Host header (RFC 9112 §3.2)."
            )
        }
        return nil
    }
}

extension RequestStateMachine.Head {
    /// The head of the request on `connection`, in one pass over its headers in C. Only a
    /// `Content-Length` that is present becomes a `String`.
    init(connection: OpaquePointer, version: UnsafePointer<CChar>?) {
        let headers = CMicroHTTPD_messageHeaders(connection)
        self.init(
            contentLength: headers.contentLength.map { String(cString: $0) },
            conflictingContentLength: headers.conflictingContentLength != 0,
            transferEncoding: headers.transferEncoding != 0,
            host: headers.host != 0,
            isHTTP11: version.map { strcmp($0, "HTTP/1.1") == 0 } ?? false
        )
    }
}

/// Per-request state for requests that carry a body or run a blocking handler, kept in MHD's
/// `con_cls`. A worker thread writes `pending` before resuming the connection; MHD's resume is the
/// hand-over, so the MHD thread that reads it afterwards sees the write.
final class UploadState: @unchecked Sendable {
    var body: [UInt8] = []
    /// The largest body taken: the server's `maxBodySize`, or the route's (`BodyPolicy`).
    var limit = Int.max
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

/// Marks a connection whose request has no body: no state needs allocating for it.
var bodilessRequest: UnsafeMutableRawPointer { UnsafeMutableRawPointer(bitPattern: 1)! }

/// Set in the `con_cls` of a bodiless request whose answer is a lent `ResponseLease`: the
/// lease's (16-byte aligned) address with this bit set, so no state object is allocated for it.
let leaseTag = 2

/// MHD's `con_cls` for one request, where `RequestStateMachine` keeps its state between calls:
/// `nil` or a query marker before the head is read, `bodilessRequest` for a request without a
/// body, a retained `UploadState` for one with a body or a handler on a worker; once answered,
/// what `HTTPServer.record` puts there for `completedHandler`.
struct RequestSlot {
    let pointer: UnsafeMutablePointer<UnsafeMutableRawPointer?>

    /// The state the slot holds at the start of a call.
    var state: RequestStateMachine.State {
        guard let value = pointer.pointee else { return .awaitingHead(refusal: nil) }
        if value == CMicroHTTPD_tooManyArgumentsMarker() { return .awaitingHead(refusal: .tooManyArguments) }
        if value == CMicroHTTPD_argumentsOverflowMarker() { return .awaitingHead(refusal: .argumentsOverflow) }
        if value == bodilessRequest { return .awaitingDispatch }
        let upload = Unmanaged<UploadState>.fromOpaque(value).takeUnretainedValue()
        return upload.pending == nil ? .readingBody(upload) : .suspended(upload)
    }

    /// Keeps `state` for the next call: the sentinel, or the state object (retained once, when it
    /// is new); a query marker is cleared once the head is read.
    func store(_ state: RequestStateMachine.State) {
        switch state {
        case .awaitingDispatch:
            pointer.pointee = bodilessRequest
        case .readingBody(let upload), .suspended(let upload):
            if pointer.pointee != Unmanaged.passUnretained(upload).toOpaque() {
                pointer.pointee = Unmanaged.passRetained(upload).toOpaque()
            }
        case .answered, .closed:
            if HTTPServer.isArgumentsMarker(pointer.pointee) { pointer.pointee = nil }
        case .awaitingHead, .dispatched:
            break
        }
    }
}
