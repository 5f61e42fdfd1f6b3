import CMicroHTTPD

#if canImport(Glibc)
    import Glibc
#endif

/// Request headers in arrival order, looked up case-insensitively.
///
/// The server hands inline handlers headers that stay in libmicrohttpd's connection and are read
/// only when asked for: a client sends a dozen headers and a handler reads two or three, so
/// copying them all into Swift strings was a good part of the cost of a request. Such headers are
/// valid only while the handler runs on the connection's thread; the server copies them
/// (`detached()`) before a request leaves it. Reading them anywhere else (another thread, or
/// after the handler returned, when MHD may have freed the connection) stops the process, as
/// `NIOLoopBound` does: it would read freed memory otherwise.
package struct HTTPHeaders: Sendable {
    private enum Storage: @unchecked Sendable {
        // Unchecked: `connection` is only read on its own MHD thread during the access handler.
        case entries([(name: String, value: String)])
        case connection(OpaquePointer)
    }

    private var storage: Storage

    package init(_ entries: [(name: String, value: String)] = []) {
        storage = .entries(entries)
    }

    /// Headers read from `connection` when asked for.
    init(connection: OpaquePointer) {
        storage = .connection(connection)
    }

    /// Names as the client sent them.
    package var entries: [(name: String, value: String)] {
        switch storage {
        case .entries(let entries): return entries
        case .connection(let connection): return Self.copyAll(Self.owned(connection))
        }
    }

    /// The same headers, copied out of the connection.
    func detached() -> HTTPHeaders {
        HTTPHeaders(entries)
    }

    /// The field value for `name`; repeated fields are joined with ", " as RFC 9110 §5.3 allows.
    package subscript(name: String) -> String? {
        switch storage {
        case .entries(let entries):
            var result: String?
            for entry in entries where Self.equalIgnoringASCIICase(entry.name, name) {
                result = result.map { $0 + ", " + entry.value } ?? entry.value
            }
            return result
        case .connection(let connection):
            return Self.lookUp(name, in: Self.owned(connection))
        }
    }

    package mutating func add(name: String, value: String) {
        var copied = entries
        copied.append((name, value))
        storage = .entries(copied)
    }

    /// `connection`, after checking that its access handler runs on this thread now.
    private static func owned(_ connection: OpaquePointer) -> OpaquePointer {
        precondition(
            CMicroHTTPD_currentConnection() == connection,
            "request headers read outside their connection's handler; detach them first (HTTPHeaders.detached())"
        )
        return connection
    }

    /// Compares without allocating lowercased copies (header names are ASCII tokens).
    private static func equalIgnoringASCIICase(_ lhs: String, _ rhs: String) -> Bool {
        guard lhs.utf8.count == rhs.utf8.count else { return false }
        for (a, b) in zip(lhs.utf8, rhs.utf8) where a != b {
            let lowerA = a >= 0x41 && a <= 0x5A ? a | 0x20 : a
            let lowerB = b >= 0x41 && b <= 0x5A ? b | 0x20 : b
            if lowerA != lowerB { return false }
        }
        return true
    }

    /// Every header of `connection`, in arrival order.
    private static func copyAll(_ connection: OpaquePointer) -> [(name: String, value: String)] {
        var entries: [(name: String, value: String)] = []
        withUnsafeMutablePointer(to: &entries) { pointer in
            _ = MHD_get_connection_values(
                connection,
                .HEADER_KIND,
                { context, _, key, value in
                    guard let context, let key else { return .YES }
                    let entries = context.assumingMemoryBound(to: [(name: String, value: String)].self)
                    entries.pointee.append((String(cString: key), value.map { String(cString: $0) } ?? ""))
                    return .YES
                },
                pointer
            )
        }
        return entries
    }

    /// What joining repeated values in the connection is after, and what it found.
    private struct Lookup {
        let name: UnsafePointer<CChar>
        var result: String?
    }

    /// The joined values of header `name` of `connection`.
    private static func lookUp(_ name: String, in connection: OpaquePointer) -> String? {
        name.withCString { cName in
            var count: UInt32 = 0
            let first = CMicroHTTPD_headerValue(connection, cName, &count)
            guard let first else { return nil }
            if count == 1 { return String(cString: first) }
            var lookup = Lookup(name: cName, result: nil)
            withUnsafeMutablePointer(to: &lookup) { pointer in
                _ = MHD_get_connection_values(
                    connection,
                    .HEADER_KIND,
                    { context, _, key, value in
                        guard let context, let key else { return .YES }
                        let lookup = context.assumingMemoryBound(to: Lookup.self)
                        guard strcasecmp(key, lookup.pointee.name) == 0 else { return .YES }
                        let text = value.map { String(cString: $0) } ?? ""
                        lookup.pointee.result = lookup.pointee.result.map { $0 + ", " + text } ?? text
                        return .YES
                    },
                    pointer
                )
            }
            return lookup.result
        }
    }
}
