import Testing

@testable import HTTPServer

@Suite("PercentDecoding")
struct PercentDecodingTests {
    private func decode(_ text: String, plusIsSpace: Bool = false) -> Result<String, PercentDecoding.Failure> {
        text.withCString { PercentDecoding.decode(cString: $0, plusIsSpace: plusIsSpace) }
    }

    @Test(
        "decodes escapes in either case",
        arguments: [
            ("%41", "A"),
            ("a%2Fb", "a/b"),
            ("a%2fb", "a/b"),
            ("%C3%A9t%C3%A9", "été"),
            ("%E6%9C%AC", "本"),
            ("%F0%9F%98%80", "😀"),
            ("plain", "plain"),
            ("", ""),
            ("%25", "%"),
            ("%2B", "+"),
        ]
    )
    func decodes(text: String, expected: String) {
        #expect(decode(text) == .success(expected))
        #expect(decode(text, plusIsSpace: true) == .success(expected))
    }

    @Test("+ is a space only in query components")
    func plus() {
        #expect(decode("a+b") == .success("a+b"))
        #expect(decode("a+b", plusIsSpace: true) == .success("a b"))
        #expect(decode("a%2Bb+c", plusIsSpace: true) == .success("a+b c"))
        #expect(decode("%20+", plusIsSpace: true) == .success("  "))
    }

    @Test("% not followed by two hex digits is malformed", arguments: ["%", "%4", "%zz", "%4g", "a%", "%%41", "%G1"])
    func malformed(text: String) {
        #expect(decode(text) == .failure(.malformedEscape))
        #expect(decode(text, plusIsSpace: true) == .failure(.malformedEscape))
    }

    @Test("decoded bytes must be UTF-8", arguments: ["%C3%28", "%FF", "%C3", "%ED%A0%80", "%C0%AF"])
    func invalidUTF8(text: String) {
        #expect(decode(text) == .failure(.invalidUTF8))
    }

    @Test(
        "control characters are refused, encoded or not",
        arguments: ["%00", "a%0Ab", "%0d%0a", "%7F", "%1F", "a\u{01}b", "\t"]
    )
    func controlCharacters(text: String) {
        #expect(decode(text) == .failure(.controlCharacter))
    }
}

@Suite("Request targets")
struct RequestTargetTests {
    @Test(
        "origin form as is, absolute form by its path (RFC 9112 §3.2.2), anything else refused",
        arguments: [
            ("/v1/templates", "/v1/templates"), ("http://127.0.0.1/v1/templates", "/v1/templates"),
            ("HTTPS://example.com:8443/a/b", "/a/b"), ("http://example.com", "/"), ("http://", nil),
            ("*", nil), ("v1/templates", nil), ("ftp://example.com/a", nil), ("", nil),
        ] as [(String, String?)]
    )
    func path(target: String, path: String?) {
        #expect(HTTPServer.path(ofTarget: target) == path)
    }
}
