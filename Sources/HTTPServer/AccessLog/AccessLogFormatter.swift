import CMicroHTTPD
import JSONCoding

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
