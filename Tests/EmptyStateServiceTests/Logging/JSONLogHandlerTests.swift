import EmptyStateService
import Foundation
import Logging
import Synchronization
import Testing

/// `--log-format json`: each swift-log line is one JSON object, metadata included, escaped.
@Suite("JSONLogHandler")
struct JSONLogHandlerTests {
    @Test("one JSON object per line: fixed members, then metadata; control characters escaped")
    func line() throws {
        let lines = Mutex<[String]>([])
        var handler = JSONLogHandler(label: "test") { line in lines.withLock { $0.append(line) } }
        handler.logLevel = .info
        let logger = Logger(label: "test", factory: { _ in handler })
        logger.info(
            "request\u{1B}[31m",
            metadata: ["http.path": "/a\nb\u{85}\u{FFFD}\"", "list": ["x", "y"], "level": "shadowed"]
        )
        logger.debug("not at info")
        let written = lines.withLock { $0 }
        #expect(written.count == 1)
        let text = try #require(written.first)
        #expect(text.hasSuffix("}\n"))
        #expect(text.utf8.filter { $0 < 0x20 }.elementsEqual([0x0A]))
        #expect(text.contains(#""message":"request\u001b[31m""#))
        #expect(text.contains(#""http.path":"/a\nb\u0085\ufffd\"""#))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(object["level"] as? String == "info")
        #expect(object["label"] as? String == "test")
        #expect(object["list"] as? [String] == ["x", "y"])
        #expect((object["time"] as? String)?.hasSuffix("Z") == true)
    }
}
