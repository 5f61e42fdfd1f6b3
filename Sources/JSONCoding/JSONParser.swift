/// Why a document is not JSON: the byte offset and what was expected there.
package struct JSONParseError: Error, Sendable, Equatable, CustomStringConvertible {
    package let offset: Int
    package let reason: String

    package var description: String { "invalid JSON at byte \(offset): \(reason)" }
}

/// A strict RFC 8259 parser: no comments, no trailing commas, no duplicate keys, UTF-8 only.
///
/// Kept (rather than `JSONDecoder`) wherever a document is validated: request bodies, whose
/// errors name the byte offset and refuse duplicate keys `JSONDecoder` would silently merge, and
/// stored documents, whose member order it keeps so they render and hash (ETags) the same.
package struct JSONParser {
    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0
    private let maximumDepth: Int

    /// Parses one JSON document.
    /// - Parameters:
    ///   - bytes: the UTF-8 text.
    ///   - maximumDepth: how deeply arrays and objects may nest before the input is refused.
    /// - Throws: `JSONParseError` naming the offset of the first problem.
    package static func parse(_ bytes: [UInt8], maximumDepth: Int = 64) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(bytes: bytes, maximumDepth: maximumDepth)
        parser.skipWhitespace()
        let value = try parser.parseValue()
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw parser.error("unexpected data after the document") }
        return value
    }

    private init(bytes: [UInt8], maximumDepth: Int) {
        self.bytes = bytes
        self.maximumDepth = maximumDepth
    }

    private func error(_ reason: String) -> JSONParseError { JSONParseError(offset: index, reason: reason) }

    private mutating func skipWhitespace() {
        while index < bytes.count,
            bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09
        {
            index += 1
        }
    }

    private mutating func parseValue() throws(JSONParseError) -> JSONValue {
        guard index < bytes.count else { throw error("unexpected end of input") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject()
        case UInt8(ascii: "["): return try parseArray()
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expectLiteral("true"); return .bool(true)
        case UInt8(ascii: "f"): try expectLiteral("false"); return .bool(false)
        case UInt8(ascii: "n"): try expectLiteral("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try parseNumber())
        default: throw error("expected a value")
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let count = literal.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw error("unexpected end of input") }
        for offset in 0..<count where bytes[index + offset] != literal.utf8Start[offset] {
            throw error("expected \(literal)")
        }
        index += count
    }

    private mutating func enter() throws(JSONParseError) {
        depth += 1
        if depth > maximumDepth { throw error("nesting deeper than \(maximumDepth) levels") }
    }

    private mutating func parseObject() throws(JSONParseError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var members: [(key: String, value: JSONValue)] = []
        var seen = Set<String>()
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw error("expected a member name") }
            let keyOffset = index
            let key = try parseString()
            // A scan beats hashing for the small objects events and templates are.
            let repeated: Bool
            if members.count < 16 {
                repeated = members.contains { $0.key == key }
            } else {
                if seen.isEmpty { seen = Set(members.map(\.key)) }
                repeated = !seen.insert(key).inserted
            }
            guard !repeated else {
                throw JSONParseError(offset: keyOffset, reason: "duplicate member \"\(key)\"")
            }
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':'") }
            index += 1
            skipWhitespace()
            members.append((key, try parseValue()))
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard bytes[index] == UInt8(ascii: "}") else { throw error("expected ',' or '}'") }
            index += 1
            return .object(members)
        }
    }

    private mutating func parseArray() throws(JSONParseError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            guard index < bytes.count else { throw error("unexpected end of input") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
                continue
            }
            guard bytes[index] == UInt8(ascii: "]") else { throw error("expected ',' or ']'") }
            index += 1
            return .array(elements)
        }
    }

    private mutating func parseNumber() throws(JSONParseError) -> Double {
        let start = index
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count else { throw error("unexpected end of input") }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
        } else {
            guard consumeDigits() else { throw error("expected a digit") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard consumeDigits() else { throw error("expected a digit after '.'") }
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
                index += 1
            }
            guard consumeDigits() else { throw error("expected a digit in the exponent") }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            throw JSONParseError(offset: start, reason: "number out of range")
        }
        return value
    }

    private mutating func consumeDigits() -> Bool {
        let start = index
        while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") { index += 1 }
        return index > start
    }

    private mutating func parseString() throws(JSONParseError) -> String {
        index += 1  // opening quote
        let start = index
        // Fast path: no escapes, so the string is the bytes between the quotes, validated once.
        var bits: UInt8 = 0  // every byte's bits: below 0x80 when the string is ASCII
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let end = index
                index += 1
                return try decodeUTF8(start, end, isASCII: bits < 0x80)
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw error("control character in a string (escape it)") }
            bits |= byte
            index += 1
        }
        // Escapes: copy runs and decoded escapes into a byte buffer, then validate it once.
        var buffer = Array(bytes[start..<index])
        while true {
            guard index < bytes.count else { throw error("unterminated string") }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                guard let text = String(validating: buffer, as: UTF8.self) else {
                    throw JSONParseError(offset: start, reason: "invalid UTF-8 in a string")
                }
                return text
            }
            if byte < 0x20 { throw error("control character in a string (escape it)") }
            if byte != UInt8(ascii: "\\") {
                buffer.append(byte)
                index += 1
                continue
            }
            index += 1
            guard index < bytes.count else { throw error("unterminated escape") }
            let escape = bytes[index]
            index += 1
            switch escape {
            case UInt8(ascii: "\""): buffer.append(UInt8(ascii: "\""))
            case UInt8(ascii: "\\"): buffer.append(UInt8(ascii: "\\"))
            case UInt8(ascii: "/"): buffer.append(UInt8(ascii: "/"))
            case UInt8(ascii: "b"): buffer.append(0x08)
            case UInt8(ascii: "f"): buffer.append(0x0C)
            case UInt8(ascii: "n"): buffer.append(0x0A)
            case UInt8(ascii: "r"): buffer.append(0x0D)
            case UInt8(ascii: "t"): buffer.append(0x09)
            case UInt8(ascii: "u"):
                let first = try parseHex4()
                let scalar: Unicode.Scalar
                if (0xD800...0xDBFF).contains(first) {
                    guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                        bytes[index + 1] == UInt8(ascii: "u")
                    else {
                        throw error("unpaired surrogate")
                    }
                    index += 2
                    let second = try parseHex4()
                    guard (0xDC00...0xDFFF).contains(second) else { throw error("unpaired surrogate") }
                    scalar = Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))!
                } else if (0xDC00...0xDFFF).contains(first) {
                    throw error("unpaired surrogate")
                } else {
                    scalar = Unicode.Scalar(first)!
                }
                buffer.append(contentsOf: UTF8.encode(scalar)!)
            default:
                throw error("invalid escape")
            }
        }
    }

    /// The UTF-8 text of `bytes[start..<end]`, validated unless it is ASCII. ASCII (almost every
    /// string a request holds) needs no validating, and the generic `String(validating:as:)`
    /// looks its metadata up at runtime on every call: under perf at full event ingestion it and
    /// that lookup took about 6 % of the machine, half the time of parsing the events.
    private func decodeUTF8(_ start: Int, _ end: Int, isASCII: Bool) throws(JSONParseError) -> String {
        let text = bytes.withUnsafeBufferPointer { buffer in
            let slice = UnsafeBufferPointer(rebasing: buffer[start..<end])
            return isASCII ? String(decoding: slice, as: UTF8.self) : String(validating: slice, as: UTF8.self)
        }
        guard let text else { throw JSONParseError(offset: start, reason: "invalid UTF-8 in a string") }
        return text
    }

    private mutating func parseHex4() throws(JSONParseError) -> UInt32 {
        guard index + 4 <= bytes.count else { throw error("unterminated \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("invalid hex digit in \\u escape")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }
}
