import CMicroHTTPD
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A response sent many times with the same status, headers and body (a pre-rendered
/// representation), kept as libmicrohttpd response objects that are reused rather than rebuilt.
///
/// Every answer must carry its own `X-Request-ID`, and libmicrohttpd 0.9.75 can add a header to
/// a response object only, not to one answer: one object cannot serve two connections at once.
/// So each object is lent to one connection at a time. It is taken from `idle` (or made, with
/// every header, the first time), given this request's id, queued, and given back when MHD
/// reports the request complete. MHD 0.9.75 reports completion before it lets go of the
/// response and only reads a queued response's headers while building that answer's header
/// block, so an object is never changed while a connection still reads it. Building a fresh
/// response per request (allocating it and copying every header twice) cost about a fifth of
/// the throughput on the 2-core development machine.
package final class PreparedResponse: Sendable {
    package let status: Int
    /// Every header but `X-Request-ID`, which the server sets per answer.
    package let headers: [(name: String, value: String)]
    package let body: HTTPBody
    /// Response objects no connection holds; each carries the id of the last request it answered.
    private let idle = Mutex<[ResponseLease]>([])

    /// - Parameter body: `nil` for no body (a 304).
    package init(status: Int, headers: [(name: String, value: String)], body: SharedBytes?) {
        self.status = status
        self.headers = headers
        self.body = body.map { .shared($0) } ?? .empty
    }

    deinit {
        // Objects lent out keep `self` alive through `ResponseLease.owner`, so these are all of them.
        for lease in idle.withLock({ $0 }) {
            MHD_destroy_response(lease.response)
        }
    }

    /// A response object for one answer, carrying `requestID` (at most
    /// `RequestID.maximumLength` bytes); `nil` when MHD cannot allocate one.
    func lend(requestID: UnsafePointer<CChar>) -> ResponseLease? {
        let length = strlen(requestID)
        guard length <= RequestID.maximumLength,
            let lease = idle.withLock({ $0.popLast() }) ?? makeLease()
        else { return nil }
        if lease.carriesID {
            _ = MHD_del_response_header(lease.response, requestIDHeader.cString, lease.requestID)
            lease.carriesID = false
        }
        guard MHD_add_response_header(lease.response, requestIDHeader.cString, requestID) == .YES else {
            giveBack(lease)
            return nil
        }
        memcpy(lease.requestID, requestID, length + 1)
        lease.carriesID = true
        lease.owner = self
        return lease
    }

    /// Takes back an object MHD no longer uses for any answer.
    func giveBack(_ lease: ResponseLease) {
        idle.withLock { $0.append(lease) }
        // May release the last reference to `self`, whose deinit then destroys the idle objects.
        lease.owner = nil
    }

    private func makeLease() -> ResponseLease? {
        guard let made = HTTPServer.makeResponse(body) else { return nil }
        for header in headers {
            _ = MHD_add_response_header(made, header.name, header.value)
        }
        return ResponseLease(response: made)
    }
}

/// One libmicrohttpd response object of a `PreparedResponse`, and whom it is lent for.
final class ResponseLease: @unchecked Sendable {
    // Unchecked: the fields change only on the thread of the connection that holds the lease,
    // and the hand-overs (`idle`'s lock, MHD's completion callback) order those changes.
    let response: OpaquePointer
    /// The `X-Request-ID` the object carries when `carriesID` (to delete it by), NUL-terminated.
    let requestID = UnsafeMutablePointer<CChar>.allocate(capacity: RequestID.maximumLength + 1)
    var carriesID = false
    /// Set while lent: keeps the prepared response, and with it the body, alive until MHD is done.
    var owner: PreparedResponse?

    init(response: OpaquePointer) {
        self.response = response
    }

    deinit {
        requestID.deallocate()
    }
}
