import Logging
import Synchronization
import Testing

@testable import EmptyStateService

/// The lines an `EscapingLogHandler` writes, captured.
final class CapturedLines: TextOutputStream, Sendable {
    let text = Mutex("")

    func write(_ string: String) {
        text.withLock { $0 += string }
    }
}

/// A `TextOutputStream` value that appends to a shared `CapturedLines`.
struct CapturingStream: TextOutputStream, Sendable {
    let lines: CapturedLines

    mutating func write(_ string: String) {
        lines.write(string)
    }
}

struct EscapingLogHandlerTests {
    /// A logger writing through the escaping handler into `lines`.
    private func logger(_ lines: CapturedLines) -> Logger {
        Logger(label: "test") { label in
            var handler = EscapingLogHandler(
                wrapping: StreamLogHandler(label: label, stream: CapturingStream(lines: lines), metadataProvider: nil)
            )
            handler.logLevel = .trace
            return handler
        }
    }

    @Test func textWithoutControlCharactersIsUnchanged() {
        for text in ["", "/v1/templates/connectionRefused?locale=fr", "Vous êtes hors ligne", "接続できません", "لا يوجد"] {
            #expect(EscapingLogHandler.escape(text) == text)
        }
    }

    @Test func controlCharactersAreEscaped() {
        #expect(EscapingLogHandler.escape("a\nb\rc\td") == #"a\nb\rc\td"#)
        #expect(EscapingLogHandler.escape("\u{1B}[31mred") == #"\u{1B}[31mred"#)
        #expect(EscapingLogHandler.escape("nul\u{0}here") == #"nul\u{0}here"#)
        #expect(EscapingLogHandler.escape("del\u{7F}") == #"del\u{7F}"#)
        #expect(EscapingLogHandler.escape("c1\u{85}\u{9B}") == #"c1\u{85}\u{9B}"#)
        #expect(EscapingLogHandler.escape("ls\u{2028}ps\u{2029}") == #"ls\u{2028}ps\u{2029}"#)
        #expect(EscapingLogHandler.escape("bad\u{FFFD}utf8") == #"bad\u{FFFD}utf8"#)
        // A backslash is doubled, so text that reads like an escape is told apart from one.
        #expect(EscapingLogHandler.escape(#"a\nb"#) == #"a\\nb"#)
        // Characters next to the escaped ones (U+00A0 after the C1 range, U+2027) are kept.
        #expect(EscapingLogHandler.escape("\u{A0}\u{2027}é\n") == "\u{A0}\u{2027}é\\n")
    }

    @Test func quotesInsideListsAreEscaped() {
        #expect(EscapingLogHandler.escape(.array(["a\"b", "c"])) == .string(#"["a\"b", "c"]"#))
        #expect(EscapingLogHandler.escape(.dictionary(["b": "2", "a": ["1"]])) == .string(#"["a": ["1"], "b": "2"]"#))
        #expect(EscapingLogHandler.escape(.dictionary([:])) == .string("[:]"))
    }

    @Test func invalidUTF8ReachesTheLogAsAnEscapedReplacementCharacter() {
        let bytes: [UInt8] = [0x2F, 0x61, 0xFF, 0x1B, 0x62]
        let decoded = String(decoding: bytes, as: UTF8.self)
        #expect(EscapingLogHandler.escape(decoded) == #"/a\u{FFFD}\u{1B}b"#)
    }

    @Test func messageAndMetadataKeysAndValuesAreEscapedAllTheWayDown() {
        let lines = CapturedLines()
        var logger = logger(lines)
        logger[metadataKey: "logger\nkey"] = "logger\u{1B}value"
        logger.info(
            "EmptyState: displayed \"a\r\nforged line\"",
            metadata: [
                "http.path": "/v1/templates/a\u{1B}[2J\u{0}",
                "bad\rkey": "v",
                "list": .array(["x\ny", .dictionary(["k\t": "v\u{85}"])]),
                "number": .stringConvertible(42),
            ]
        )
        let text = lines.text.withLock { $0 }
        #expect(text.split(separator: "\n").count == 1)
        #expect(text.hasSuffix("\n"))
        let line = String(text.dropLast())
        #expect(!line.unicodeScalars.contains { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        #expect(line.contains(#"EmptyState: displayed "a\r\nforged line""#))
        #expect(line.contains(#"http.path=/v1/templates/a\u{1B}[2J\u{0}"#))
        #expect(line.contains(#"bad\rkey=v"#))
        #expect(line.contains(#"logger\nkey=logger\u{1B}value"#))
        // Lists keep swift-log's layout, their strings escaped once (not doubled by debugDescription).
        #expect(line.contains(#"list=["x\ny", ["k\t": "v\u{85}"]]"#))
        #expect(line.contains("number=42"))
    }

    @Test func errorsAndProvidedMetadataAreEscaped() {
        struct Failure: Error, CustomStringConvertible {
            var description: String { "broken\nline" }
        }
        let lines = CapturedLines()
        let provider = Logger.MetadataProvider { ["provided": "p\u{1B}"] }
        var handler = EscapingLogHandler(
            wrapping: StreamLogHandler(label: "test", stream: CapturingStream(lines: lines), metadataProvider: provider)
        )
        handler.logLevel = .trace
        let logger = Logger(label: "test", factory: { _ in handler })
        logger.error("failed", error: Failure())
        let text = lines.text.withLock { $0 }
        #expect(text.split(separator: "\n").count == 1)
        #expect(text.contains(#"error.message=broken\nline"#))
        #expect(text.contains(#"provided=p\u{1B}"#))
    }
}
