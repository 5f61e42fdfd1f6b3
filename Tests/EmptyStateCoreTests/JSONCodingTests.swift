import JSONCoding
import Testing

@Suite("JSONParser and JSONWriter")
struct JSONCodingTests {
    /// The error parsing `text` gives, or `nil` when it parses.
    private func parseError(_ text: String, maximumDepth: Int = 64) -> JSONParseError? {
        parseError(Array(text.utf8), maximumDepth: maximumDepth)
    }

    private func parseError(_ bytes: [UInt8], maximumDepth: Int = 64) -> JSONParseError? {
        do {
            _ = try JSONParser.parse(bytes, maximumDepth: maximumDepth)
            return nil
        } catch {
            return error
        }
    }

    private func written(_ value: JSONValue) -> String {
        var writer = JSONWriter()
        writer.value(value)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    @Test("parses every kind of value, objects in document order")
    func parsesValues() throws {
        let value = try JSONParser.parse(
            Array(#" { "b" : [1, -2.5, 3e2, 0, true, false, null], "a": {"x": "y"}, "c": "" } "#.utf8)
        )
        #expect(
            value
                == .object([
                    (
                        "b",
                        .array([.number(1), .number(-2.5), .number(300), .number(0), .bool(true), .bool(false), .null])
                    ),
                    ("a", .object([("x", .string("y"))])),
                    ("c", .string("")),
                ])
        )
        #expect(value.keys == ["b", "a", "c"])
        #expect(value["a"]?["x"] == .string("y"))
        #expect(value["missing"] == nil)
    }

    @Test("writes compact JSON in the order written")
    func writes() {
        var writer = JSONWriter()
        writer.beginObject()
        writer.member("z", "last")
        writer.key("a")
        writer.beginArray()
        writer.int(1)
        writer.bool(true)
        writer.null()
        writer.beginObject()
        writer.endObject()
        writer.endArray()
        writer.key("n")
        writer.int(-42)
        writer.endObject()
        #expect(String(decoding: writer.bytes, as: UTF8.self) == #"{"z":"last","a":[1,true,null,{}],"n":-42}"#)
    }

    @Test(
        "round trip: write then parse gives the same value",
        arguments: [
            #"{"a":[1,2.5,true,false,null,"x"],"b":{},"c":[]}"#,
            #"[[[]],{"k":{"k":{"k":-0.125}}}]"#,
            #""just a string""#,
            "1e+20",
            #"{"emoji":"😀","accents":"éàü","cjk":"本人確認","rtl":"تحديث"}"#,
        ]
    )
    func roundTrip(text: String) throws {
        let value = try JSONParser.parse(Array(text.utf8))
        let again = try JSONParser.parse(Array(written(value).utf8))
        #expect(again == value)
    }

    @Test("integers are written without a fraction, others as Swift prints them")
    func numbers() {
        #expect(written(.number(3)) == "3")
        #expect(written(.number(-0.5)) == "-0.5")
        #expect(written(.array([.number(1e20)])) == "[1e+20]")
    }

    @Test("the writer escapes quotes, backslashes and control characters; the parser undoes it")
    func writerEscapes() throws {
        let text = "quote \" backslash \\ newline \n return \r tab \t bell \u{07} nul \u{00} del \u{7F} é 😀"
        let json = written(.string(text))
        #expect(
            json
                == #""quote \" backslash \\ newline \n return \r tab \t bell \u0007 nul \u0000 del \u007f é 😀""#
        )
        #expect(try JSONParser.parse(Array(json.utf8)) == .string(text))
        #expect(written(.object([("k\"ey", .null)])) == #"{"k\"ey":null}"#)
    }

    @Test("the parser reads every escape, including \\u and surrogate pairs")
    func parserEscapes() throws {
        let value = try JSONParser.parse(Array(#""\" \\ \/ \b \f \n \r \t \u00e9 \u00C9 \ud83d\ude00 \u2028""#.utf8))
        #expect(value == .string("\" \\ / \u{08} \u{0C} \n \r \t é É 😀 \u{2028}"))
    }

    @Test(
        "refuses malformed documents, naming the offset",
        arguments: [
            ("[1,2,]", 5, "expected a value"),
            (#"{"a":1,}"#, 7, "expected a member name"),
            (#"{"a":1,"a":2}"#, 7, "duplicate member \"a\""),
            (#"{"a" 1}"#, 5, "expected ':'"),
            ("[1 2]", 3, "expected ',' or ']'"),
            (#"{"a":1 "b":2}"#, 7, "expected ',' or '}'"),
            ("", 0, "unexpected end of input"),
            ("[", 1, "unexpected end of input"),
            ("tru", 0, "unexpected end of input"),
            ("trux", 0, "expected true"),
            ("nul", 0, "unexpected end of input"),
            ("{} {}", 3, "unexpected data after the document"),
            ("01", 1, "unexpected data after the document"),
            ("1.", 2, "expected a digit after '.'"),
            ("-", 1, "unexpected end of input"),
            ("-a", 1, "expected a digit"),
            ("1e", 2, "expected a digit in the exponent"),
            ("1e400", 0, "number out of range"),
            ("NaN", 0, "expected a value"),
            ("'a'", 0, "expected a value"),
            (#"{a:1}"#, 1, "expected a member name"),
            (#"["abc"#, 5, "unterminated string"),
            (#""\u12G4""#, 5, "invalid hex digit"),
            (#""\u12""#, 3, #"unterminated \u escape"#),
            (#""\ud83d""#, 7, "unpaired surrogate"),
            (#""\ud83d\u0041""#, 13, "unpaired surrogate"),
            (#""\ude00""#, 7, "unpaired surrogate"),
            ("\"a\tb\"", 2, "control character"),
            ("[1] // comment", 4, "unexpected data after the document"),
        ]
    )
    func refuses(text: String, offset: Int, reason: String) throws {
        let error = try #require(parseError(text))
        #expect(error.offset == offset, "\(error)")
        #expect(error.reason.contains(reason), "\(error)")
        #expect(error.description == "invalid JSON at byte \(offset): \(error.reason)")
    }

    @Test("refuses an unknown escape at the escape", arguments: [#""\x""#, #""ab\'""#, #""\U0041""#])
    func badEscape(text: String) throws {
        let error = try #require(parseError(text))
        #expect(error.reason == "invalid escape")
        let backslash = try #require(Array(text.utf8).firstIndex(of: UInt8(ascii: "\\")))
        #expect((backslash...backslash + 2).contains(error.offset), "\(error)")
    }

    @Test("refuses invalid UTF-8 in a string, at the start of the run that holds it")
    func invalidUTF8() throws {
        let bytes: [UInt8] = Array(#"["ok", "a"#.utf8) + [0xC3, 0x28] + Array(#""]"#.utf8)
        let error = try #require(parseError(bytes))
        #expect(error.offset == 8)
        #expect(error.reason == "invalid UTF-8 in a string")
        #expect(parseError([0x22, 0xFF, 0x22])?.offset == 1)
        #expect(parseError([0x22, 0xED, 0xA0, 0x80, 0x22])?.reason == "invalid UTF-8 in a string")
    }

    @Test("strings without escapes: ASCII as it is, other UTF-8 validated, a lone high byte refused")
    func unescapedStrings() throws {
        #expect(
            try JSONParser.parse(Array(#"["fr-CA", "", "é 😀 ع"]"#.utf8))
                == .array([.string("fr-CA"), .string(""), .string("é 😀 ع")])
        )
        // One byte over 0x7F among ASCII makes the string one to validate.
        #expect(
            parseError(Array(#""abcdefgh"#.utf8) + [0x80] + Array(#"ijk""#.utf8))?.reason == "invalid UTF-8 in a string"
        )
        #expect(parseError(Array(#""abc"#.utf8) + [0xC3] + Array(#"""#.utf8))?.offset == 1)
    }

    @Test("accepts nesting up to the limit and refuses one level more, at the bracket")
    func nesting() throws {
        let limit = 64
        let deepest = String(repeating: "[", count: limit) + String(repeating: "]", count: limit)
        #expect(parseError(deepest) == nil)
        let tooDeep = String(repeating: "[", count: limit + 1) + String(repeating: "]", count: limit + 1)
        let error = try #require(parseError(tooDeep))
        #expect(error.offset == limit)
        #expect(error.reason == "nesting deeper than 64 levels")
        let objects = String(repeating: #"{"a":"#, count: 3) + "1" + String(repeating: "}", count: 3)
        #expect(parseError(objects, maximumDepth: 3) == nil)
        #expect(parseError(objects, maximumDepth: 2)?.offset == 10)
    }

    @Test("JSON pointer tokens escape ~ and /")
    func pointerTokens() {
        #expect(jsonPointerToken("a/b~c") == "a~1b~0c")
        #expect(jsonPointerToken("actions.retry") == "actions.retry")
        #expect(jsonPointerToken("~/") == "~0~1")
    }

    @Test("kind names read well in messages")
    func kindNames() {
        #expect(JSONValue.null.kindName == "null")
        #expect(JSONValue.bool(true).kindName == "a boolean")
        #expect(JSONValue.number(1).kindName == "a number")
        #expect(JSONValue.string("").kindName == "a string")
        #expect(JSONValue.array([]).kindName == "an array")
        #expect(JSONValue.object([]).kindName == "an object")
    }

    @Test("objects compare member by member, in order")
    func equality() {
        let ab = JSONValue.object([("a", .null), ("b", .null)])
        #expect(ab == .object([("a", .null), ("b", .null)]))
        #expect(ab != .object([("b", .null), ("a", .null)]))
        #expect(ab != .object([("a", .null)]))
        #expect(JSONValue.number(1) != .string("1"))
    }
}

@Suite("JSONParser fast paths")
struct JSONParserFastPathTests {
    @Test("a duplicate key is found in large objects too (past the linear scan)", arguments: [3, 15, 16, 17, 40])
    func duplicateInLargeObject(size: Int) {
        let members = (0..<size).map { "\"k\($0)\": \($0)" } + ["\"k\(size - 1)\": 0"]
        let text = "{" + members.joined(separator: ",") + "}"
        #expect(throws: JSONParseError.self) { try JSONParser.parse(Array(text.utf8)) }
        let unique = "{" + (0..<size).map { "\"k\($0)\": \($0)" }.joined(separator: ",") + "}"
        #expect(throws: Never.self) { try JSONParser.parse(Array(unique.utf8)) }
    }

    @Test("strings with and without escapes decode to the same text")
    func escapesAndPlain() throws {
        let plain = try JSONParser.parse(Array(#""Vérifiez — 確認 🙂""#.utf8))
        let escaped = try JSONParser.parse(Array(#""V\u00e9rifiez \u2014 \u78ba\u8a8d \ud83d\ude42""#.utf8))
        #expect(plain == escaped)
        #expect(try JSONParser.parse(Array(#""a\"b\\c\/d\n""#.utf8)) == .string("a\"b\\c/d\n"))
    }
}
