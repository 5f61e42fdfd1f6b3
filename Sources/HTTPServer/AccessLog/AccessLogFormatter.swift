import CMicroHTTPD
import JSONCoding

#if canImport(Glibc)
    import Glibc
#endif

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
            // Request ids are sane (`RequestID.isSane`): nothing in them is escaped.
            out.append(entry.requestID)
            out.append(#"","http.method":""#)
            method(entry.method, json: true, into: &out)
            out.append(#"","#)
            target(entry, json: true, into: &out)
            out.append(#","http.status":"#)
            out.append(decimal: entry.status)
            out.append(#","http.response_bytes":"#)
            out.append(decimal: entry.responseBytes)
            out.append(#","http.duration_ms":"#)
            milliseconds(entry.nanoseconds, into: &out)
            out.append(#","client.address":""#)
            // Formatted by the server from the socket address: digits, dots, colons, hex.
            out.append(entry.clientAddress)
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
            out.append(entry.requestID)
            out.append(" http.method=")
            method(entry.method, json: false, into: &out)
            out.append(UInt8(ascii: " "))
            target(entry, json: false, into: &out)
            out.append(" http.status=")
            out.append(decimal: entry.status)
            out.append(" http.response_bytes=")
            out.append(decimal: entry.responseBytes)
            out.append(" http.duration_ms=")
            milliseconds(entry.nanoseconds, into: &out)
            out.append(" client.address=")
            if entry.clientAddress.isEmpty {
                out.append(UInt8(ascii: "-"))
            } else {
                out.append(entry.clientAddress)
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

    /// The method: `GET` and `HEAD` (nearly every line) as they are, any other escaped (MHD hands
    /// over whatever token the request line had).
    private static func method(_ bytes: UnsafeBufferPointer<UInt8>, json: Bool, into out: inout AccessLogLineWriter) {
        if bytes.elementsEqual("GET".utf8) || bytes.elementsEqual("HEAD".utf8) {
            out.append(bytes)
        } else {
            escape(bytes, json: json, into: &out)
        }
    }

    /// The path and query fields: `http.path="…" http.query="…"` (`"http.path":"…","http.query":"…"`
    /// in JSON), escaped; or what `entry.target` holds already.
    private static func target(_ entry: AccessLogEntry, json: Bool, into out: inout AccessLogLineWriter) {
        if let target = entry.target {
            out.append(target)
            return
        }
        out.append(json ? #""http.path":""# : #"http.path=""#)
        escape(entry.path, json: json, into: &out)
        out.append(json ? #"","http.query":""# : #"" http.query=""#)
        query(entry.query, json: json, into: &out)
        out.append(UInt8(ascii: "\""))
    }

    /// The path and query fields of a request's line, as `write` writes them in `format`, for an
    /// answer that is sent again to the same request (`ResponseMemo.Entry`): what `target` then
    /// holds. Empty when they do not fit in 16 KiB (the fields are then written per line).
    static func target(
        path: UnsafeBufferPointer<UInt8>,
        query: AccessLogEntry.Query,
        format: AccessLogFormat
    ) -> [UInt8] {
        let capacity = 16 * 1024
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
            var out = AccessLogLineWriter(base: buffer.baseAddress!, capacity: capacity)
            let none = UnsafeBufferPointer<UInt8>(start: nil, count: 0)
            let entry = AccessLogEntry(
                seconds: 0,
                milliseconds: 0,
                requestID: none,
                method: none,
                path: path,
                query: query,
                status: 0,
                responseBytes: 0,
                nanoseconds: 0,
                clientAddress: none,
                userAgent: nil
            )
            target(entry, json: format == .json, into: &out)
            return out.overflow ? [] : Array(UnsafeBufferPointer(start: buffer.baseAddress, count: out.count))
        }
    }

    /// `target(path:query:format:)` for the request on `connection` (its raw URL and the query
    /// arguments MHD parsed).
    static func target(path: UnsafePointer<CChar>, query connection: OpaquePointer, format: AccessLogFormat) -> [UInt8]
    {
        UnsafeRawPointer(path).withMemoryRebound(to: UInt8.self, capacity: 1) { start in
            target(
                path: UnsafeBufferPointer(start: start, count: strlen(path)),
                query: .arguments(connection),
                format: format
            )
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
