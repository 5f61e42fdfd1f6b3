#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A response as it came off the wire.
struct RawHTTPResponse {
    var version: String
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    /// The first value of header `name`, compared without case.
    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    var bodyText: String { String(decoding: body, as: UTF8.self) }
}

/// Why the tiny client gave up.
struct RawHTTPError: Error, CustomStringConvertible {
    var description: String
}

/// A minimal HTTP/1.1 client over one blocking POSIX TCP socket, so tests see exactly what the
/// server sends and can put several requests on one connection. Reads time out after 5 s.
final class RawHTTPConnection {
    private let socket: Int32
    /// Bytes read past the end of the last response (the start of the next one).
    private var buffer: [UInt8] = []
    private var isOpen = true

    /// Connects to `127.0.0.1:port`.
    init(port: Int) throws {
        #if canImport(Glibc)
            let descriptor = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let descriptor = Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw RawHTTPError(description: "socket() failed: errno \(errno)") }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        _ = setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr = in_addr(s_addr: inet_addr("127.0.0.1"))
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let code = errno
            closeDescriptor(descriptor)
            throw RawHTTPError(description: "connect to 127.0.0.1:\(port) failed: errno \(code)")
        }
        socket = descriptor
    }

    deinit {
        close()
    }

    func close() {
        guard isOpen else { return }
        isOpen = false
        closeDescriptor(socket)
    }

    /// Sends `GET`-style request text; `\r\n` line ends and the blank line are added.
    func send(_ method: String, _ target: String, headers: [(String, String)] = []) throws {
        var text = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        text += "\r\n"
        try write(Array(text.utf8))
    }

    func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { raw in
                #if canImport(Glibc)
                    Glibc.send(socket, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL))
                #else
                    Darwin.send(socket, raw.baseAddress, raw.count, 0)
                #endif
            }
            guard written > 0 else { throw RawHTTPError(description: "send failed: errno \(errno)") }
            offset += written
        }
    }

    /// Reads one response. `hasBody: false` for answers to `HEAD` (a `Content-Length` but no body).
    func readResponse(hasBody: Bool = true) throws -> RawHTTPResponse {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        var headEnd = buffer.firstRange(of: separator)
        while headEnd == nil {
            try fill()
            headEnd = buffer.firstRange(of: separator)
        }
        let head = String(decoding: buffer[..<headEnd!.lowerBound], as: UTF8.self)
        buffer.removeSubrange(..<headEnd!.upperBound)

        var lines = head.split(separator: "\r\n", omittingEmptySubsequences: false).map(String.init)
        let statusLine = lines.removeFirst().split(separator: " ", maxSplits: 2).map(String.init)
        guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/"), let status = Int(statusLine[1]) else {
            throw RawHTTPError(description: "bad status line in \(head)")
        }
        var headers: [(name: String, value: String)] = []
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { throw RawHTTPError(description: "bad header \(line)") }
            let value = line[line.index(after: colon)...].drop { $0 == " " || $0 == "\t" }
            headers.append((String(line[..<colon]), String(value)))
        }
        var response = RawHTTPResponse(version: statusLine[0], status: status, headers: headers, body: [])
        guard hasBody, status != 304, status != 204, !(100..<200).contains(status) else { return response }
        if response.header("Transfer-Encoding")?.lowercased().contains("chunked") == true {
            response.body = try readChunked()
        } else if let length = response.header("Content-Length").flatMap({ Int($0) }) {
            response.body = try read(count: length)
        } else {
            throw RawHTTPError(description: "no Content-Length in \(head)")
        }
        return response
    }

    private func read(count: Int) throws -> [UInt8] {
        while buffer.count < count { try fill() }
        let bytes = Array(buffer[..<count])
        buffer.removeSubrange(..<count)
        return bytes
    }

    private func readLine() throws -> String {
        let crlf: [UInt8] = [0x0D, 0x0A]
        var end = buffer.firstRange(of: crlf)
        while end == nil {
            try fill()
            end = buffer.firstRange(of: crlf)
        }
        let line = String(decoding: buffer[..<end!.lowerBound], as: UTF8.self)
        buffer.removeSubrange(..<end!.upperBound)
        return line
    }

    private func readChunked() throws -> [UInt8] {
        var body: [UInt8] = []
        while true {
            let sizeText = try readLine().split(separator: ";").first.map(String.init) ?? ""
            guard let size = Int(sizeText.trimmingSpaces, radix: 16) else {
                throw RawHTTPError(description: "bad chunk size \(sizeText)")
            }
            if size == 0 {
                while try !readLine().isEmpty {}
                return body
            }
            body += try read(count: size)
            _ = try read(count: 2)
        }
    }

    /// Reads what the socket has into `buffer`; throws on timeout or when the peer closed.
    private func fill() throws {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        let received = chunk.withUnsafeMutableBytes { raw in recv(socket, raw.baseAddress, raw.count, 0) }
        if received == 0 { throw RawHTTPError(description: "the server closed the connection") }
        if received < 0 { throw RawHTTPError(description: "recv failed (errno \(errno)); timed out?") }
        buffer += chunk[..<received]
    }

    /// Whether the server has closed its side: a read returns end-of-file within `milliseconds`.
    func peerClosed(within milliseconds: Int32) -> Bool {
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, milliseconds) == 1 else { return false }
        var byte: UInt8 = 0
        return recv(socket, &byte, 1, Int32(MSG_PEEK)) == 0
    }
}

private func closeDescriptor(_ descriptor: Int32) {
    #if canImport(Glibc)
        _ = Glibc.close(descriptor)
    #else
        _ = Darwin.close(descriptor)
    #endif
}

extension String {
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
