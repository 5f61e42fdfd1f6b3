import Dispatch
import Foundation
import Synchronization
import Testing

@testable import HTTPServer

/// The access log's line format (both layouts, field order, escaping) and its buffering: lines
/// reach the sink, and a stalled writer makes lines drop, counted, without blocking the caller.
@Suite("AccessLog")
struct AccessLogTests {
    /// Formats one line with the given client-supplied fields.
    private func line(
        format: AccessLogFormat,
        path: [UInt8] = Array("/v1/templates/loading".utf8),
        query: [UInt8] = Array("locale=fr&platform=ios".utf8),
        userAgent: [UInt8]? = Array("curl/8.5.0".utf8),
        client: [UInt8] = Array("127.0.0.1".utf8),
        nanoseconds: Int64 = 42_600,
        target: [UInt8]? = nil
    ) -> String {
        let requestID = Array("trace-abc.123".utf8)
        let method = Array("GET".utf8)
        let storage = UnsafeMutablePointer<UInt8>.allocate(capacity: 32 * 1024)
        defer { storage.deallocate() }
        var writer = AccessLogLineWriter(base: storage, capacity: 32 * 1024)
        var dates = AccessLogDateCache()
        requestID.withUnsafeBufferPointer { requestID in
            method.withUnsafeBufferPointer { method in
                path.withUnsafeBufferPointer { path in
                    query.withUnsafeBufferPointer { query in
                        client.withUnsafeBufferPointer { client in
                            let write = { (userAgent: UnsafeBufferPointer<UInt8>?) in
                                (target ?? []).withUnsafeBufferPointer { written in
                                    AccessLogFormatter.write(
                                        AccessLogEntry(
                                            seconds: 1_795_462_993,  // 2026-11-23T19:43:13Z
                                            milliseconds: 7,
                                            requestID: requestID,
                                            method: method,
                                            path: path,
                                            query: .bytes(query),
                                            status: 200,
                                            responseBytes: 470,
                                            nanoseconds: nanoseconds,
                                            clientAddress: client,
                                            userAgent: userAgent,
                                            target: target == nil ? nil : written
                                        ),
                                        format: format,
                                        dates: &dates,
                                        into: &writer
                                    )
                                }
                            }
                            if let userAgent {
                                userAgent.withUnsafeBufferPointer { write($0) }
                            } else {
                                write(nil)
                            }
                        }
                    }
                }
            }
        }
        #expect(!writer.overflow)
        return String(decoding: UnsafeBufferPointer(start: storage, count: writer.count), as: UTF8.self)
    }

    @Test("text: every field, in order, on one line")
    func textLine() {
        #expect(
            line(format: .text)
                == "2026-11-23T19:43:13.007Z access request.id=trace-abc.123 http.method=GET "
                + #"http.path="/v1/templates/loading" http.query="locale=fr&platform=ios" http.status=200 "#
                + #"http.response_bytes=470 http.duration_ms=0.042 client.address=127.0.0.1 "#
                + #"http.user_agent="curl/8.5.0""# + "\n"
        )
    }

    @Test("json: every field, in order, one object per line")
    func jsonLine() throws {
        let text = line(format: .json)
        #expect(
            text
                == #"{"time":"2026-11-23T19:43:13.007Z","log":"access","request.id":"trace-abc.123","#
                + #""http.method":"GET","http.path":"/v1/templates/loading","http.query":"locale=fr&platform=ios","#
                + #""http.status":200,"http.response_bytes":470,"http.duration_ms":0.042,"#
                + #""client.address":"127.0.0.1","http.user_agent":"curl/8.5.0"}"# + "\n"
        )
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        #expect(object?["http.status"] as? Int == 200)
    }

    @Test("a missing user agent and client address, a long duration")
    func missingFields() {
        let text = line(format: .text, userAgent: nil, client: [], nanoseconds: 12_345_678_901)
        #expect(text.hasSuffix(" http.duration_ms=12345.678 client.address=- http.user_agent=-\n"))
        let json = line(format: .json, userAgent: nil, client: [], nanoseconds: 999)
        #expect(json.hasSuffix(#""http.duration_ms":0.000,"client.address":"","http.user_agent":null}"# + "\n"))
    }

    /// ESC, CR, LF, NUL, tab, DEL, a C1 control, U+2028, a literal U+FFFD, a quote, a backslash,
    /// ill-formed UTF-8 (a lone 0xFF, a truncated 3-byte sequence, an overlong encoding) and a
    /// letter that must stay as it is.
    private let hostile: [UInt8] =
        Array("/a".utf8) + [0x1B] + Array("[31m".utf8) + [0x0D, 0x0A, 0x00, 0x09, 0x7F, 0xC2, 0x85]
        + [0xE2, 0x80, 0xA8, 0xEF, 0xBF, 0xBD] + Array("\"\\".utf8) + [0xFF, 0xE2, 0x82, 0x41, 0xC0, 0xAF]
        + Array("é".utf8)

    @Test("text: control characters, quotes and ill-formed UTF-8 are escaped")
    func textEscaping() {
        let text = line(format: .text, path: hostile, query: hostile, userAgent: hostile)
        let escaped =
            #"/a\u{1B}[31m\r\n\u{0}\t\u{7F}\u{85}\u{2028}\u{FFFD}\"\\\u{FFFD}\u{FFFD}A\u{FFFD}\u{FFFD}é"#
        #expect(text.contains(#"http.path=""# + escaped + #"" http.query=""# + escaped + #"""#))
        #expect(text.hasSuffix(#"http.user_agent=""# + escaped + "\"\n"))
        // One line, and nothing a terminal acts on.
        #expect(text.utf8.filter { $0 < 0x20 }.elementsEqual([0x0A]))
        #expect(!text.unicodeScalars.contains { (0x7F...0x9F).contains($0.value) || $0.value == 0xFFFD })
    }

    @Test("json: the same characters escaped, and the line parses back to the text")
    func jsonEscaping() throws {
        let text = line(format: .json, path: hostile, query: hostile, userAgent: hostile)
        #expect(text.utf8.filter { $0 < 0x20 }.elementsEqual([0x0A]))
        #expect(text.contains(#""http.path":"/a\u001b[31m\r\n\u0000\t\u007f\u0085\u2028\ufffd\"\\\ufffd\ufffdA"#))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(
            object["http.user_agent"] as? String
                == "/a\u{1B}[31m\r\n\u{0}\t\u{7F}\u{85}\u{2028}\u{FFFD}\"\\\u{FFFD}\u{FFFD}A\u{FFFD}\u{FFFD}é"
        )
    }

    /// A remembered answer's line: its path and query fields written once (`ResponseMemo.Entry`)
    /// and copied into every line, which must then read as the line written field by field.
    @Test("path and query written once: the same line, in both formats, hostile bytes included")
    func writtenTarget() {
        for format in [AccessLogFormat.text, .json] {
            for bytes in [Array("/v1/templates/loading".utf8), hostile] {
                let target = bytes.withUnsafeBufferPointer { path in
                    bytes.withUnsafeBufferPointer { query in
                        AccessLogFormatter.target(path: path, query: .bytes(query), format: format)
                    }
                }
                #expect(!target.isEmpty)
                #expect(
                    line(format: format, path: bytes, query: bytes, target: target)
                        == line(format: format, path: bytes, query: bytes)
                )
                // The fields come from `target` alone.
                #expect(
                    line(format: format, path: [], query: [], target: target)
                        == line(format: format, path: bytes, query: bytes)
                )
            }
        }
    }

    @Test("a field past its limit is cut, and marked")
    func longField() {
        let text = line(format: .text, path: Array(repeating: 0x01, count: 10_000))
        let path = text.split(separator: " ")[4]
        #expect(path.hasSuffix(#"...""#))
        #expect(path.utf8.count <= AccessLogFormatter.maximumFieldBytes + #"http.path="""#.utf8.count)
    }

    @Test("lines reach the sink whole, in order, once stopped")
    func linesAreWritten() {
        let received = Mutex<[UInt8]>([])
        // The default buffers hold a burst of 500 lines even if the writer has not run yet.
        let log = AccessLog(format: .text, flushInterval: .seconds(10)) { bytes in
            received.withLock { $0.append(contentsOf: bytes) }
            return bytes.count
        }
        log.start()
        for index in 0..<500 { logLine(log, requestID: "r\(index)") }
        log.stop()
        let lines = received.withLock { String(decoding: $0, as: UTF8.self) }.split(separator: "\n")
        #expect(lines.count == 500)
        #expect(lines.first?.contains("request.id=r0 ") == true)
        #expect(lines.last?.contains("request.id=r499 ") == true)
        #expect(log.droppedLines == 0)
    }

    @Test("the flush timer writes a buffer that is not full")
    func timerFlush() async throws {
        let received = Atomic<Int>(0)
        let log = AccessLog(format: .json, flushInterval: .milliseconds(50)) { bytes in
            received.add(bytes.count, ordering: .relaxed)
            return bytes.count
        }
        log.start()
        logLine(log, requestID: "one")
        for _ in 0..<100 where received.load(ordering: .relaxed) == 0 { try await Task.sleep(for: .milliseconds(20)) }
        #expect(received.load(ordering: .relaxed) > 0)
        log.stop()
    }

    @Test("a stalled writer: lines are dropped and counted, and the caller never waits")
    func stalledWriter() {
        let release = DispatchSemaphore(value: 0)
        let lines = Atomic<Int>(0)
        let log = AccessLog(format: .text, bufferSize: 16 * 1024, buffersPerThread: 2, flushInterval: .seconds(10)) {
            bytes in
            release.wait()  // stalled until the test lets it go
            lines.add(bytes.reduce(0) { $0 + ($1 == 0x0A ? 1 : 0) }, ordering: .relaxed)
            return bytes.count
        }
        log.start()
        let total = 5_000
        let started = ContinuousClock.now
        for index in 0..<total { logLine(log, requestID: "r\(index)") }
        let elapsed = ContinuousClock.now - started
        // Two 16 KiB buffers hold a few hundred lines; the rest found no room.
        #expect(log.droppedLines > total / 2)
        #expect(elapsed < .seconds(2))
        // Let the writer go; what it holds is written at stop, and every line is either written or counted.
        let releasing = Atomic<Bool>(true)
        DispatchQueue.global().async {
            while releasing.load(ordering: .relaxed) {
                release.signal()
                usleep(1000)
            }
        }
        log.stop()
        releasing.store(false, ordering: .relaxed)
        #expect(lines.load(ordering: .relaxed) + log.droppedLines == total)
        #expect(lines.load(ordering: .relaxed) > 0)
    }

    /// Logs a plain line with `requestID`.
    private func logLine(_ log: AccessLog, requestID: String) {
        var requestID = requestID
        requestID.withUTF8 { id in
            StaticString("GET").withUTF8Buffer { method in
                StaticString("/v1/templates/loading").withUTF8Buffer { path in
                    StaticString("locale=fr").withUTF8Buffer { query in
                        StaticString("127.0.0.1").withUTF8Buffer { client in
                            log.log(
                                AccessLogEntry(
                                    seconds: 1_795_462_993,
                                    milliseconds: 0,
                                    requestID: id,
                                    method: method,
                                    path: path,
                                    query: .bytes(query),
                                    status: 200,
                                    responseBytes: 470,
                                    nanoseconds: 30_000,
                                    clientAddress: client,
                                    userAgent: nil
                                )
                            )
                        }
                    }
                }
            }
        }
    }
}
