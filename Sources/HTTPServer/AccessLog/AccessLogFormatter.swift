import CMicroHTTPD
import JSONCoding

#if canImport(Glibc)
    import Glibc
#endif

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

/// The date part of an RFC 3339 timestamp (`2026-11-23T19:43:13.`), formatted once per second
/// (one per thread, like nginx's and Hummingbird's `DateCache`): `gmtime_r` per line would cost
/// more than the rest of the line.
struct AccessLogDateCache {
    private var second = Int.min
    private var text: (UInt64, UInt64, UInt64) = (0, 0, 0)
    /// `YYYY-MM-DDTHH:MM:SS.` is 20 bytes.
    static let length = 20

    /// Appends `seconds` as `YYYY-MM-DDTHH:MM:SS.`.
    mutating func append(seconds: Int, to writer: inout AccessLogLineWriter) {
        if seconds != second {
            second = seconds
            var time = time_t(seconds)
            var parts = tm()
            gmtime_r(&time, &parts)
            withUnsafeMutableBytes(of: &text) { raw in
                let out = raw.bindMemory(to: UInt8.self)
                func put(_ value: Int32, _ digits: Int, at offset: Int) {
                    var value = Int(value)
                    for index in stride(from: offset + digits - 1, through: offset, by: -1) {
                        out[index] = UInt8(truncatingIfNeeded: 0x30 + value % 10)
                        value /= 10
                    }
                }
                put(parts.tm_year + 1900, 4, at: 0)
                out[4] = UInt8(ascii: "-")
                put(parts.tm_mon + 1, 2, at: 5)
                out[7] = UInt8(ascii: "-")
                put(parts.tm_mday, 2, at: 8)
                out[10] = UInt8(ascii: "T")
                put(parts.tm_hour, 2, at: 11)
                out[13] = UInt8(ascii: ":")
                put(parts.tm_min, 2, at: 14)
                out[16] = UInt8(ascii: ":")
                put(parts.tm_sec, 2, at: 17)
                out[19] = UInt8(ascii: ".")
            }
        }
        withUnsafeBytes(of: &text) { raw in
            writer.append(UnsafeRawBufferPointer(rebasing: raw[0..<Self.length]).bindMemory(to: UInt8.self))
        }
    }
}

/// Appends bytes into memory it does not own (a slice of an access-log buffer), checking the
/// capacity on each append: past it, nothing more is written and `overflow` is set, so a line is
/// either written whole or not at all. Escaped fields are written by `TextEscaper` into the
/// memory that is left, with the same rule (JSONCoding's `LentMemory`).
struct AccessLogLineWriter {
    let base: UnsafeMutablePointer<UInt8>
    let capacity: Int
    private(set) var count = 0
    private(set) var overflow = false

    init(base: UnsafeMutablePointer<UInt8>, capacity: Int) {
        self.base = base
        self.capacity = capacity
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        guard count < capacity else {
            overflow = true
            return
        }
        base[count] = byte
        count += 1
    }

    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let start = bytes.baseAddress, !bytes.isEmpty else { return }
        guard capacity - count >= bytes.count else {
            overflow = true
            return
        }
        (base + count).update(from: start, count: bytes.count)
        count += bytes.count
    }

    /// `bytes` escaped by `escaper`, cut at `limit` bytes (see `TextEscaper`), straight into the
    /// memory that is left.
    mutating func append(escaping bytes: UnsafeBufferPointer<UInt8>, with escaper: TextEscaper, limit: Int) {
        guard !overflow else { return }
        if let written = escaper.escape(bytes, limit: limit, into: base + count, capacity: capacity - count) {
            count += written
        } else {
            overflow = true
        }
    }

    @inline(__always)
    mutating func append(_ text: StaticString) {
        append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// `value` in decimal (negative values as 0: the fields are counts and sizes).
    mutating func append(decimal value: Int) {
        guard value > 0 else { return append(UInt8(ascii: "0")) }
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes hold any Int's 19 digits
        withUnsafeMutableBytes(of: &digits) { raw in
            var value = value
            var index = raw.count
            while value > 0 {
                index -= 1
                raw[index] = UInt8(truncatingIfNeeded: 0x30 + value % 10)
                value /= 10
            }
            append(UnsafeRawBufferPointer(rebasing: raw[index...]).bindMemory(to: UInt8.self))
        }
    }

    /// `value` (0–999) as exactly 3 digits, zeros in front.
    mutating func append(threeDigits value: Int) {
        guard capacity - count >= 3 else {
            overflow = true
            return
        }
        base[count] = UInt8(truncatingIfNeeded: 0x30 + value / 100 % 10)
        base[count + 1] = UInt8(truncatingIfNeeded: 0x30 + value / 10 % 10)
        base[count + 2] = UInt8(truncatingIfNeeded: 0x30 + value % 10)
        count += 3
    }
}

/// How an access-log line is laid out: `text` (one `key=value` line, greppable like the rest of
/// the log) or `json` (one JSON object per line, for log shippers).
package enum AccessLogFormat: String, Sendable, CaseIterable {
    case text
    case json
}

/// Writes access-log lines, byte by byte, into a buffer: no `String`, no dictionary.
///
/// Fields, in this order: time (RFC 3339, UTC, milliseconds), request id, method, path, query,
/// status, response bytes, duration in milliseconds (3 decimals), client address, user agent.
///
/// Text that comes from the client is escaped as `EscapingLogHandler` escapes every other line
/// (`TextEscaper`), so a line stays one line and no terminal acts on it: `\n`, `\r`, `\t`, `\\`,
/// `\"`; every other C0 control, DEL, the C1 controls, U+2028, U+2029 and U+FFFD as `\u{X}` in
/// text and `\uXXXX` in JSON; and each ill-formed UTF-8 sequence as an escaped U+FFFD (the same
/// replacement Swift makes, maximal subpart by maximal subpart). The path, the query and the user
/// agent stop at `maximumFieldBytes` bytes written, followed by `...`.
enum AccessLogFormatter {
    /// Bytes of escaped output a client-supplied field may take; past it the field is cut.
    static let maximumFieldBytes = 4096

    /// Appends the line for `entry`, `\n` included.
    static func write(
        _ entry: AccessLogEntry,
        format: AccessLogFormat,
        dates: inout AccessLogDateCache,
        into out: inout AccessLogLineWriter
    ) {
        let json = format == .json
        if json { out.append(#"{"time":""#) }
        dates.append(seconds: entry.seconds, to: &out)
        out.append(threeDigits: entry.milliseconds)
        if json {
            out.append(#"Z","log":"access","request.id":""#)
            escape(entry.requestID, json: true, into: &out)
            out.append(#"","http.method":""#)
            escape(entry.method, json: true, into: &out)
            out.append(#"","http.path":""#)
            escape(entry.path, json: true, into: &out)
            out.append(#"","http.query":""#)
            query(entry.query, json: true, into: &out)
            out.append(#"","http.status":"#)
            out.append(decimal: entry.status)
            out.append(#","http.response_bytes":"#)
            out.append(decimal: entry.responseBytes)
            out.append(#","http.duration_ms":"#)
            milliseconds(entry.nanoseconds, into: &out)
            out.append(#","client.address":""#)
            escape(entry.clientAddress, json: true, into: &out)
            out.append(#"","http.user_agent":"#)
            if let userAgent = entry.userAgent {
                out.append(UInt8(ascii: "\""))
                escape(userAgent, json: true, into: &out)
                out.append("\"}\n")
            } else {
                out.append("null}\n")
            }
        } else {
            out.append("Z access request.id=")
            escape(entry.requestID, json: false, into: &out)
            out.append(" http.method=")
            escape(entry.method, json: false, into: &out)
            out.append(#" http.path=""#)
            escape(entry.path, json: false, into: &out)
            out.append(#"" http.query=""#)
            query(entry.query, json: false, into: &out)
            out.append(#"" http.status="#)
            out.append(decimal: entry.status)
            out.append(" http.response_bytes=")
            out.append(decimal: entry.responseBytes)
            out.append(" http.duration_ms=")
            milliseconds(entry.nanoseconds, into: &out)
            out.append(" client.address=")
            if entry.clientAddress.isEmpty {
                out.append(UInt8(ascii: "-"))
            } else {
                escape(entry.clientAddress, json: false, into: &out)
            }
            if let userAgent = entry.userAgent {
                out.append(#" http.user_agent=""#)
                escape(userAgent, json: false, into: &out)
                out.append("\"\n")
            } else {
                out.append(" http.user_agent=-\n")
            }
        }
    }

    /// `nanoseconds` as milliseconds with 3 decimals (microsecond resolution).
    private static func milliseconds(_ nanoseconds: Int64, into out: inout AccessLogLineWriter) {
        let microseconds = max(0, Int(nanoseconds / 1000))
        out.append(decimal: microseconds / 1000)
        out.append(UInt8(ascii: "."))
        out.append(threeDigits: microseconds % 1000)
    }

    /// The query, escaped: the bytes given, or MHD's parsed arguments joined again.
    private static func query(_ query: AccessLogEntry.Query, json: Bool, into out: inout AccessLogLineWriter) {
        switch query {
        case .bytes(let bytes):
            escape(bytes, json: json, into: &out)
        case .arguments(let connection):
            var walk = QueryWalk(out: out, json: json, start: out.count)
            withUnsafeMutablePointer(to: &walk) { pointer in
                _ = MHD_get_connection_values_n(connection, .GET_ARGUMENT_KIND, appendArgument, pointer)
            }
            out = walk.out
        }
    }

    /// Appends one query argument (an `MHD_KeyValueIteratorN` over a `QueryWalk`).
    private static let appendArgument: MHD_KeyValueIteratorN = { context, _, key, keySize, value, valueSize in
        guard let context, let key else { return .YES }
        let walk = context.assumingMemoryBound(to: QueryWalk.self)
        let limit = AccessLogFormatter.maximumFieldBytes
        let budget = limit - (walk.pointee.out.count - walk.pointee.start)
        guard budget > 0 else { return .NO }
        if walk.pointee.out.count > walk.pointee.start { walk.pointee.out.append(UInt8(ascii: "&")) }
        key.withMemoryRebound(to: UInt8.self, capacity: keySize) { bytes in
            AccessLogFormatter.escape(
                UnsafeBufferPointer(start: bytes, count: keySize),
                json: walk.pointee.json,
                limit: budget,
                into: &walk.pointee.out
            )
        }
        if let value {
            walk.pointee.out.append(UInt8(ascii: "="))
            let budget = limit - (walk.pointee.out.count - walk.pointee.start)
            value.withMemoryRebound(to: UInt8.self, capacity: valueSize) { bytes in
                AccessLogFormatter.escape(
                    UnsafeBufferPointer(start: bytes, count: valueSize),
                    json: walk.pointee.json,
                    limit: max(budget, 0),
                    into: &walk.pointee.out
                )
            }
        }
        return .YES
    }

    /// The line being written while MHD walks the query arguments.
    private struct QueryWalk {
        var out: AccessLogLineWriter
        let json: Bool
        let start: Int
    }

    /// Appends `bytes` escaped (see the type's documentation), cut at `limit` bytes of output.
    static func escape(
        _ bytes: UnsafeBufferPointer<UInt8>,
        json: Bool,
        limit: Int = maximumFieldBytes,
        into out: inout AccessLogLineWriter
    ) {
        out.append(escaping: bytes, with: json ? .jsonLog : .quotedTextLog, limit: limit)
    }
}
