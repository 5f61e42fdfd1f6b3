/// What one access-log line says about a request, as the bytes MHD and the server hold: nothing
/// is copied or decoded before it is written into the line.
struct AccessLogEntry {
    /// Where the query comes from: bytes (tests), or the arguments MHD parsed from the request on a
    /// connection, joined again as `name=value&…` (MHD keeps no copy of the raw query).
    enum Query {
        case bytes(UnsafeBufferPointer<UInt8>)
        case arguments(OpaquePointer)
    }

    /// Wall-clock time of the answer: seconds since 1970 and the milliseconds within that second.
    var seconds: Int
    var milliseconds: Int
    var requestID: UnsafeBufferPointer<UInt8>
    var method: UnsafeBufferPointer<UInt8>
    var path: UnsafeBufferPointer<UInt8>
    var query: Query
    var status: Int
    var responseBytes: Int
    /// From the request fully read to its answer queued, as in `http_request_duration_seconds`.
    var nanoseconds: Int64
    /// Empty when unknown.
    var clientAddress: UnsafeBufferPointer<UInt8>
    /// `nil` when the request has no `User-Agent`.
    var userAgent: UnsafeBufferPointer<UInt8>?
}
