#if canImport(Glibc)
    import Glibc
#endif

/// One request to a server these tests started, on a connection of its own, over a blocking
/// socket: what the server sends, as it sends it.
enum LiveHTTP {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Sends `method target` with `headers` (and `Connection: close`), reads the answer until
    /// the server closes the connection.
    /// - Returns: the status, the head (status line and headers) and the body, as text.
    static func send(
        port: Int,
        _ method: String,
        _ target: String,
        headers: [(String, String)] = []
    ) throws -> (status: Int, head: String, body: String) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw Failure(description: "socket() failed: errno \(errno)") }
        defer { close(descriptor) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr = in_addr(s_addr: inet_addr("127.0.0.1"))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw Failure(description: "connect failed: errno \(errno)") }
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        let request = Array((head + "\r\n").utf8)
        guard request.withUnsafeBytes({ Glibc.send(descriptor, $0.baseAddress, $0.count, 0) }) == request.count else {
            throw Failure(description: "send failed: errno \(errno)")
        }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            received += chunk[0..<count]
        }
        let text = String(decoding: received, as: UTF8.self)
        let parts = text.split(separator: " ", maxSplits: 2)
        guard let split = text.range(of: "\r\n\r\n"), parts.count > 1, let status = Int(parts[1]) else {
            throw Failure(description: "not an HTTP response: \(text)")
        }
        return (status, String(text[..<split.lowerBound]), String(text[split.upperBound...]))
    }
}
