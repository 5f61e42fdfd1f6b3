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
    /// Sane (`RequestID.isSane`): written as it is.
    var requestID: UnsafeBufferPointer<UInt8>
    var method: UnsafeBufferPointer<UInt8>
    var path: UnsafeBufferPointer<UInt8>
    var query: Query
    var status: Int
    var responseBytes: Int
    /// From the request fully read to its answer queued, as in `http_request_duration_seconds`.
    var nanoseconds: Int64
    /// Empty when unknown; otherwise as `CMicroHTTPD_clientAddress` formats it (written as it is).
    var clientAddress: UnsafeBufferPointer<UInt8>
    /// `nil` when the request has no `User-Agent`.
    var userAgent: UnsafeBufferPointer<UInt8>?
    /// The path and query fields, already written for this log's format (`AccessLogFormatter.target`):
    /// a remembered answer's, the same for every request it answers. `path` and `query` are then
    /// not read.
    var target: UnsafeBufferPointer<UInt8>? = nil
}
