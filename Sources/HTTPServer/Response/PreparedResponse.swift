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
    ///
    /// An id as long as the one the object carries (generated ids always are, and a client's
    /// are usually as long as its last) is written over it in place; another length replaces
    /// the header. The in-place write is what makes a lent answer cheap: removing and adding
    /// the header frees and allocates three blocks and checks the name against MHD's special
    /// headers each time, a third of what the server itself spent on a remembered answer.
    func lend(requestID: UnsafePointer<CChar>) -> ResponseLease? {
        let length = strlen(requestID)
        guard length <= RequestID.maximumLength,
            let lease = idle.withLock({ $0.popLast() }) ?? makeLease()
        else { return nil }
        if let carried = lease.requestID, lease.requestIDLength == length {
            memcpy(carried, requestID, length)
        } else if !lease.replaceRequestID(with: requestID, length: length) {
            putBack(lease)
            return nil
        }
        lease.owner = self
        return lease
    }

    /// Puts an object no connection uses among the idle ones. From then on another thread may
    /// lend it: the caller must not touch it again (see `ResponseLease.giveBack()`).
    fileprivate func putBack(_ lease: ResponseLease) {
        idle.withLock { $0.append(lease) }
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
    /// The value of the object's `X-Request-ID` header: MHD's own NUL-terminated copy (a block
    /// it allocated), which `lend` overwrites in place with an id of the same length. MHD
    /// 0.9.75 keeps a header's value and its length in the header's entry and copies them into
    /// the connection's buffer when it builds an answer's header block, which it does after
    /// `MHD_queue_response` and before it reports the request complete, that is while the
    /// object is lent to that request alone. `nil` while the object carries no id.
    private(set) var requestID: UnsafeMutablePointer<CChar>?
    private(set) var requestIDLength = 0
    /// Set while lent: keeps the prepared response, and with it the body, alive until MHD is done.
    var owner: PreparedResponse?

    init(response: OpaquePointer) {
        self.response = response
    }

    /// Gives the object back to the prepared response it was lent from, once MHD no longer uses
    /// it for any answer.
    ///
    /// `owner` is cleared before the object is idle, never after: once idle, another thread may
    /// lend it at once and set `owner` itself, and two threads writing a strong reference at the
    /// same time over-release what it held (a prepared response freed while still served).
    func giveBack() {
        guard let owner else { return }  // this local reference keeps the owner alive meanwhile
        self.owner = nil
        owner.putBack(self)
    }

    /// Replaces the object's `X-Request-ID` header with one of `id` (`length` bytes, NUL-terminated).
    /// - Returns: `false` when MHD could not add it (out of memory); the object then carries no id.
    func replaceRequestID(with id: UnsafePointer<CChar>, length: Int) -> Bool {
        if let carried = requestID {
            // MHD finds the header by this value before it frees the value: passing its own copy is safe.
            _ = MHD_del_response_header(response, requestIDHeader.cString, carried)
            requestID = nil
        }
        guard MHD_add_response_header(response, requestIDHeader.cString, id) == .YES else { return false }
        guard let stored = MHD_get_response_header(response, requestIDHeader.cString) else {
            _ = MHD_del_response_header(response, requestIDHeader.cString, id)
            return false
        }
        requestID = UnsafeMutablePointer(mutating: stored)
        requestIDLength = length
        return true
    }
}
