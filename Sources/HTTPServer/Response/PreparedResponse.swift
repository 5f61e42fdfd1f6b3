import CMicroHTTPD
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A response sent many times with the same status, headers and body (a pre-rendered
/// representation), kept as libmicrohttpd response objects that are reused rather than rebuilt.
///
/// Every answer must carry its own `X-Request-ID`, and libmicrohttpd (0.9.75 and 1.0.x alike) can
/// add a header to a response object only, not to one answer. Its documentation allows one
/// object to answer many requests "as long as the header information is not
/// connection-specific" (`MHD_create_response_for_upgrade`); this one's is. So each object is
/// lent to one request at a time: taken from `idle` (or made, with every header, the first
/// time), given this request's id through the library's API (`MHD_del_response_header`, then
/// `MHD_add_response_header`), queued, and given back when MHD reports the request complete
/// (`MHD_OPTION_NOTIFY_COMPLETED`, after the answer was sent). Between those two points no
/// other request holds the object, so its headers only ever change while no answer is being
/// built from it. MHD holds its own reference while it sends (`MHD_destroy_response`'s
/// reference count), so an object is never freed under a connection either. Building a fresh
/// response per request instead (allocating it and copying every header) costs several
/// allocations per header; swapping the one header costs three frees and three allocations.
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

    /// A response object for one answer, carrying `requestID` (1 to `RequestID.maximumLength`
    /// bytes, NUL-terminated); `nil` when MHD cannot allocate one.
    func lend(requestID: UnsafePointer<CChar>) -> ResponseLease? {
        let length = strlen(requestID)
        guard length > 0, length <= RequestID.maximumLength,
            let lease = idle.withLock({ $0.popLast() }) ?? makeLease()
        else { return nil }
        guard lease.carry(requestID, length: length) else {
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
    /// Our copy of the `X-Request-ID` value the object carries (NUL-terminated; `count` is 0
    /// while it carries none): `MHD_del_response_header` finds the header by name and value.
    private let carried = UnsafeMutablePointer<CChar>.allocate(capacity: RequestID.maximumLength + 1)
    private var carriedLength = 0
    /// Set while lent: keeps the prepared response, and with it the body, alive until MHD is done.
    var owner: PreparedResponse?

    init(response: OpaquePointer) {
        self.response = response
        carried[0] = 0
    }

    deinit {
        carried.deallocate()
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

    /// Makes the object's `X-Request-ID` header `id` (`length` bytes, NUL-terminated): the one it
    /// carries is removed and `id` added, through the library's API (the object is lent to no
    /// request meanwhile). An id equal to the one carried (a client that repeats its own) is kept.
    /// - Returns: `false` when MHD could not add it (out of memory); the object then carries no id.
    func carry(_ id: UnsafePointer<CChar>, length: Int) -> Bool {
        if carriedLength == length, memcmp(carried, id, length) == 0 { return true }
        if carriedLength > 0 {
            _ = MHD_del_response_header(response, requestIDHeader.cString, carried)
            carriedLength = 0
            carried[0] = 0
        }
        guard MHD_add_response_header(response, requestIDHeader.cString, id) == .YES else { return false }
        memcpy(carried, id, length + 1)
        carriedLength = length
        return true
    }
}

extension ResponseLease {
    /// The values of the object's `X-Request-ID` headers, as libmicrohttpd reports them (for
    /// tests: an object must carry exactly one).
    var requestIDValues: [String] {
        var values: [String] = []
        withUnsafeMutablePointer(to: &values) { pointer in
            _ = MHD_get_response_headers(
                response,
                { context, _, name, value in
                    guard let context, let name, let value,
                        strcasecmp(name, requestIDHeader.cString) == 0
                    else { return .YES }
                    context.assumingMemoryBound(to: [String].self).pointee.append(String(cString: value))
                    return .YES
                },
                pointer
            )
        }
        return values
    }
}
