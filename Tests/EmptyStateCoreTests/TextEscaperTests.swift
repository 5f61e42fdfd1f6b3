import JSONCoding
import Testing

/// The one escaper of JSON strings and log lines: its four rule sets, ill-formed input, the limit
/// a log field is cut at, and memory lent to it.
@Suite("TextEscaper")
struct TextEscaperTests {
    /// A quote, a backslash, LF, U+0001, DEL, a C1 control, U+2028, U+FFFD and a letter kept as is.
    private let hostile = "a\"b\\c\n\u{1}\u{7F}\u{85}\u{2028}\u{FFFD}é"

    private func escaped(_ bytes: [UInt8], _ escaper: TextEscaper, limit: Int? = nil, capacity: Int = 4096) -> String? {
        let memory = UnsafeMutablePointer<UInt8>.allocate(capacity: max(capacity, 1))
        defer { memory.deallocate() }
        let written = bytes.withUnsafeBufferPointer {
            escaper.escape($0, limit: limit, into: memory, capacity: capacity)
        }
        return written.map { String(decoding: UnsafeBufferPointer(start: memory, count: $0), as: UTF8.self) }
    }

    @Test("each rule set escapes what it says, in its notation")
    func rules() {
        #expect(TextEscaper.json.escaping(hostile) == #"a\"b\\c\n\u0001\u007f"# + "\u{85}\u{2028}\u{FFFD}é")
        #expect(TextEscaper.jsonLog.escaping(hostile) == #"a\"b\\c\n\u0001\u007f\u0085\u2028\ufffdé"#)
        #expect(TextEscaper.textLog.escaping(hostile) == #"a"b\\c\n\u{1}\u{7F}\u{85}\u{2028}\u{FFFD}é"#)
        #expect(TextEscaper.quotedTextLog.escaping(hostile) == #"a\"b\\c\n\u{1}\u{7F}\u{85}\u{2028}\u{FFFD}é"#)
        #expect(TextEscaper.json.escaping("\r\t\u{0}\u{1F}") == #"\r\t\u0000\u001f"#)
    }

    @Test("text with nothing to escape comes back as it is")
    func clean() {
        for text in ["", "/v1/templates/loading?locale=fr", "Vous êtes hors ligne", "接続できません", "\u{A0}\u{2027}"] {
            #expect(TextEscaper.jsonLog.escaping(text) == text)
            #expect(!TextEscaper.jsonLog.needsEscaping(text))
        }
        #expect(TextEscaper.textLog.escaping("a \"quoted\" word") == "a \"quoted\" word")
        #expect(TextEscaper.quotedTextLog.needsEscaping("a \"quoted\" word"))
    }

    @Test("each ill-formed sequence becomes one U+FFFD, escaped where the rules escape it")
    func illFormed() {
        // A lone 0xFF, a truncated 3-byte sequence, an overlong encoding (two maximal subparts).
        let bytes: [UInt8] = [0x61, 0xFF, 0xE2, 0x82, 0x41, 0xC0, 0xAF]
        #expect(escaped(bytes, .jsonLog) == #"a\ufffd\ufffdA\ufffd\ufffd"#)
        #expect(escaped(bytes, .quotedTextLog) == #"a\u{FFFD}\u{FFFD}A\u{FFFD}\u{FFFD}"#)
        #expect(escaped(bytes, .json) == "a\u{FFFD}\u{FFFD}A\u{FFFD}\u{FFFD}")
    }

    @Test("what needs escaping is found at every position of a word read at once", arguments: 0..<17)
    func everyPosition(position: Int) {
        for special: UInt8 in [0x22, 0x5C, 0x0A, 0x1F, 0x7F, 0x80, 0xFF] {
            var bytes = Array(repeating: UInt8(ascii: "x"), count: 17)
            bytes[position] = special
            let expected: String
            switch special {
            case 0x22: expected = #"\""#
            case 0x5C: expected = #"\\"#
            case 0x0A: expected = #"\n"#
            case 0x1F: expected = #"\u{1F}"#
            case 0x7F: expected = #"\u{7F}"#
            default: expected = #"\u{FFFD}"#
            }
            let text = String(repeating: "x", count: position) + expected + String(repeating: "x", count: 16 - position)
            #expect(escaped(bytes, .quotedTextLog) == text, "byte \(special) at \(position)")
        }
    }

    @Test("with a limit, an element starts only while at most limit - 8 bytes are written; then ...")
    func limit() {
        #expect(
            escaped(Array(repeating: UInt8(ascii: "x"), count: 100), .quotedTextLog, limit: 20) == "xxxxxxxxxxxxx..."
        )
        #expect(
            escaped(Array(repeating: 0x01, count: 100), .quotedTextLog, limit: 20) == #"\u{1}\u{1}\u{1}..."#
        )
        // A letter of three bytes starts at 12 and is written whole.
        #expect(escaped(Array("xxxxxxxxxxxx日本".utf8), .quotedTextLog, limit: 20) == "xxxxxxxxxxxx日...")
        #expect(escaped(Array("short".utf8), .quotedTextLog, limit: 20) == "short")
    }

    @Test("lent memory: the bytes written, or nil when they do not fit")
    func lentMemory() {
        let bytes = Array("a\nb".utf8)
        #expect(escaped(bytes, .jsonLog, capacity: 4) == #"a\nb"#)
        #expect(escaped(bytes, .jsonLog, capacity: 3) == nil)
        #expect(escaped([], .jsonLog, capacity: 0) == "")
    }
}
