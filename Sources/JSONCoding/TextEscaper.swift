/// Where escaped bytes go: a byte array, or memory a caller lends (`LentMemory`).
protocol EscapedOutput {
    /// Bytes written so far: what a limit on the escaped length counts from.
    var count: Int { get }
    mutating func append(_ byte: UInt8)
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>)
}

extension Array: EscapedOutput where Element == UInt8 {
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        append(contentsOf: bytes)
    }
}

/// Memory a caller lends (a slice of an access-log buffer), checked on each append: past its
/// capacity nothing more is written and `overflow` is set. HTTPServer's `AccessLogLineWriter`
/// does the same for the rest of a line; it is not this type because `package` declarations are
/// not inlined across modules (Swift 6.3), and the formatter makes some thirty appends a line.
struct LentMemory: EscapedOutput {
    let base: UnsafeMutablePointer<UInt8>
    let capacity: Int
    private(set) var count = 0
    private(set) var overflow = false

    mutating func append(_ byte: UInt8) {
        guard count < capacity else {
            overflow = true
            return
        }
        base[count] = byte
        count += 1
    }

    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let start = bytes.baseAddress, !bytes.isEmpty else { return }
        guard capacity - count >= bytes.count else {
            overflow = true
            return
        }
        (base + count).update(from: start, count: bytes.count)
        count += bytes.count
    }
}

/// Escapes text for a JSON string or a log line, byte by byte: the one escaper of the JSON
/// writer, the access log and both swift-log handlers, which differ only in its rules.
///
/// Its entry points are not generic and not `@inlinable` (which `package` declarations do not
/// get the benefit of across modules): each call escapes a whole string or field with code
/// specialized here, for byte arrays and for memory a caller lends (the access log's buffers,
/// written per request with no allocation).
///
/// Always escaped: `\` as `\\`; line feed, carriage return and tab as `\n`, `\r`, `\t`; every other
/// C0 control (U+0000–U+001F) and DEL (U+007F) as a code point (`notation`). With
/// `escapesQuotes`, `"` as `\"`. With `escapesInvisibles`, also what a terminal or a log viewer
/// acts on or hides: the C1 controls (U+0080–U+009F), the line and paragraph separators (U+2028,
/// U+2029), and U+FFFD, so that a log shows where a request held bytes that are not UTF-8.
/// Everything else, non-ASCII letters included, is copied as it is, in runs.
///
/// Input need not be UTF-8: each ill-formed sequence becomes one U+FFFD (maximal subpart by
/// maximal subpart, the replacement Swift's `String(decoding:)` makes), escaped or not as the
/// rules say, so the output always is.
package struct TextEscaper: Sendable {
    /// How an escaped code point is written.
    package enum Notation: Sendable {
        /// `\u001b`: four lowercase hex digits, as JSON has it.
        case json
        /// `\u{1B}`: uppercase hex without leading zeros, as a Swift string literal has it.
        case swift
    }

    package let notation: Notation
    package let escapesQuotes: Bool
    package let escapesInvisibles: Bool

    package init(notation: Notation, escapesQuotes: Bool, escapesInvisibles: Bool) {
        self.notation = notation
        self.escapesQuotes = escapesQuotes
        self.escapesInvisibles = escapesInvisibles
    }

    /// A JSON string's contents (`JSONWriter`): the escapes JSON requires, nothing more, so the
    /// bytes of rendered documents (and their ETags) are what they always were.
    package static var json: TextEscaper { TextEscaper(notation: .json, escapesQuotes: true, escapesInvisibles: false) }

    /// A string in a JSON log line (`JSONLogHandler`, the access log's `json` format).
    package static var jsonLog: TextEscaper {
        TextEscaper(notation: .json, escapesQuotes: true, escapesInvisibles: true)
    }

    /// Text in a plain log line (`EscapingLogHandler`): quotes as they are.
    package static var textLog: TextEscaper {
        TextEscaper(notation: .swift, escapesQuotes: false, escapesInvisibles: true)
    }

    /// Text between quotes in a plain log line (the access log's `text` format, strings inside
    /// lists in `EscapingLogHandler`).
    package static var quotedTextLog: TextEscaper {
        TextEscaper(notation: .swift, escapesQuotes: true, escapesInvisibles: true)
    }

    // MARK: - Escaping

    /// Escapes `bytes` into `capacity` bytes at `base`, memory the caller lends; nothing is
    /// allocated.
    ///
    /// With a `limit`, a field from a client cannot fill a log line: each escape, UTF-8 sequence
    /// or byte is written only while at most `limit - 8` bytes have been (8: the longest escape,
    /// `\u{FFFD}`), and once one is not, `...` ends the output instead.
    /// - Returns: the bytes written; `nil` when they do not fit in `capacity`.
    package func escape(
        _ bytes: UnsafeBufferPointer<UInt8>,
        limit: Int? = nil,
        into base: UnsafeMutablePointer<UInt8>,
        capacity: Int
    ) -> Int? {
        var out = LentMemory(base: base, capacity: capacity)
        escape(bytes, limit: limit, into: &out)
        return out.overflow ? nil : out.count
    }

    /// Appends the bytes of `text` escaped to `bytes` (`JSONWriter`).
    func escape(_ text: String, into bytes: inout [UInt8]) {
        var text = text
        text.withUTF8 { escape($0, into: &bytes) }
    }

    /// Appends `bytes` escaped to `out` (see `escape(_:limit:into:capacity:)` for `limit`).
    func escape<Output: EscapedOutput>(
        _ bytes: UnsafeBufferPointer<UInt8>,
        limit: Int? = nil,
        into out: inout Output
    ) {
        let end = limit.map { out.count + $0 } ?? Int.max
        var index = 0
        while index < bytes.count {
            if out.count > end - 8 {
                for _ in 0..<3 { out.append(UInt8(ascii: ".")) }
                return
            }
            // What may be copied as it is (most of a line), at once.
            let room = end - 8 - out.count
            let run = plainRunEnd(bytes, from: index, startingAtMost: room)
            if run > index {
                out.append(UnsafeBufferPointer(rebasing: bytes[index..<run]))
                // The run ends at the end, where the limit cuts it (checked above, next time
                // round), or at something to escape, which the limit allows when it starts
                // within `room`: escaped now, without scanning for the run again.
                guard run < bytes.count, run - index <= room else {
                    index = run
                    continue
                }
                index = run
            }
            let byte = bytes[index]
            if byte < 0x80 {
                switch byte {
                case UInt8(ascii: "\\"), UInt8(ascii: "\""):
                    out.append(UInt8(ascii: "\\"))
                    out.append(byte)
                case 0x0A: Self.append("\\n", to: &out)
                case 0x0D: Self.append("\\r", to: &out)
                case 0x09: Self.append("\\t", to: &out)
                default: append(codePoint: UInt32(byte), to: &out)
                }
                index += 1
                continue
            }
            let length = Self.wellFormedLength(bytes, at: index)
            guard length > 0 else {
                if escapesInvisibles {
                    append(codePoint: 0xFFFD, to: &out)
                } else {
                    // U+FFFD as UTF-8.
                    out.append(0xEF)
                    out.append(0xBF)
                    out.append(0xBD)
                }
                index += -length
                continue
            }
            // Only an invisible stops a run at a well-formed sequence.
            append(codePoint: Self.decode(bytes, at: index, length: length), to: &out)
            index += length
        }
    }

    /// `text` escaped; `text` itself, not a copy, when nothing in it is escaped.
    package func escaping(_ text: String) -> String {
        var text = text
        let escaped: [UInt8]? = text.withUTF8 { bytes in
            guard plainRunEnd(bytes, from: 0, startingAtMost: .max) < bytes.count else { return nil }
            var out: [UInt8] = []
            out.reserveCapacity(bytes.count + 16)
            escape(bytes, into: &out)
            return out
        }
        return escaped.map { String(decoding: $0, as: UTF8.self) } ?? text
    }

    /// Whether anything in `text` is escaped.
    package func needsEscaping(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { plainRunEnd($0, from: 0, startingAtMost: .max) < $0.count }
    }

    // MARK: - The parts

    /// The end of the run from `start` that is copied as it is: printable ASCII (but `\`, and
    /// `"` when quoting) and well-formed UTF-8 sequences that are not escaped, each starting at
    /// most `limit` bytes after `start`.
    func plainRunEnd(_ bytes: UnsafeBufferPointer<UInt8>, from start: Int, startingAtMost limit: Int) -> Int {
        guard let base = bytes.baseAddress else { return start }
        let stop = limit >= bytes.count - start ? bytes.count : start + limit + 1
        var index = start
        while index < stop {
            // Eight bytes at a time while they are all printable ASCII with nothing to escape:
            // the access log formats a line per request, and most of a line is such bytes.
            while stop - index >= 8,
                !hasByteToLookAt(UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self))
            {
                index &+= 8
            }
            guard index < stop else { break }
            // The next eight bytes hold one to look at: byte by byte through them (a run of
            // non-ASCII letters would otherwise test a word again for each letter).
            let wordEnd = min(stop, index &+ 8)
            repeat {
                let byte = base[index]
                if byte < 0x80 {
                    guard byte >= 0x20, byte != 0x7F, byte != UInt8(ascii: "\\"),
                        byte != UInt8(ascii: "\"") || !escapesQuotes
                    else { return index }
                    index &+= 1
                } else {
                    let length = Self.wellFormedLength(bytes, at: index)
                    guard length > 0, !(escapesInvisibles && Self.isInvisible(bytes, at: index, length: length))
                    else { return index }
                    index &+= length
                }
            } while index < wordEnd
        }
        return index
    }

    /// Whether any of the 8 bytes in `word` is not printable ASCII, or is `\\`, or `"` when
    /// quoting. Exact when it says no (a byte then sets its high bit in `look` only if it is one
    /// of those, and no borrow or carry crosses bytes); the byte loop finds which when it says yes.
    func hasByteToLookAt(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        // Below 0x20 (borrows), at or above 0x80, DEL (0x7F + 1 carries into the high bit).
        var look = (word &- ones &* 0x20) & ~word | word | (word &+ ones)
        // Zero bytes once XORed with `\` or `"` are those characters.
        let backslashes = word ^ (ones &* 0x5C)
        look |= (backslashes &- ones) & ~backslashes
        if escapesQuotes {
            let quotes = word ^ (ones &* 0x22)
            look |= (quotes &- ones) & ~quotes
        }
        return look & (ones &* 0x80) != 0
    }

    /// Whether the well-formed sequence at `index` is a C1 control, U+2028, U+2029 or U+FFFD.
    static func isInvisible(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int, length: Int) -> Bool {
        let lead = bytes[index]
        if length == 2 { return lead == 0xC2 && bytes[index + 1] <= 0x9F }
        guard length == 3 else { return false }
        let (second, third) = (bytes[index + 1], bytes[index + 2])
        return (lead == 0xE2 && second == 0x80 && (third == 0xA8 || third == 0xA9))
            || (lead == 0xEF && second == 0xBF && third == 0xBD)
    }

    /// `\u001b` or `\u{1B}`.
    func append<Output: EscapedOutput>(codePoint: UInt32, to out: inout Output) {
        switch notation {
        case .json:
            Self.append("\\u", to: &out)
            for shift in stride(from: 12, through: 0, by: -4) {
                out.append(Self.hexDigit(codePoint >> UInt32(shift) & 0xF, uppercase: false))
            }
        case .swift:
            Self.append("\\u{", to: &out)
            var shift = 28
            while shift > 0, codePoint >> UInt32(shift) == 0 { shift -= 4 }
            while shift >= 0 {
                out.append(Self.hexDigit(codePoint >> UInt32(shift) & 0xF, uppercase: true))
                shift -= 4
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    static func hexDigit(_ value: UInt32, uppercase: Bool) -> UInt8 {
        UInt8(truncatingIfNeeded: value < 10 ? 0x30 + value : (uppercase ? 0x37 : 0x57) + value)
    }

    static func append<Output: EscapedOutput>(_ text: StaticString, to out: inout Output) {
        out.append(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// The length of the well-formed UTF-8 sequence starting at `index` (a byte ≥ 0x80), or, when
    /// it is ill-formed, minus the length of its maximal subpart (the bytes one U+FFFD replaces).
    static func wellFormedLength(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Int {
        let lead = bytes[index]
        let length: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: (length, low) = (3, 0xA0)
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: (length, high) = (3, 0x9F)
        case 0xF0: (length, low) = (4, 0x90)
        case 0xF1...0xF3: length = 4
        case 0xF4: (length, high) = (4, 0x8F)
        default: return -1
        }
        for offset in 1..<length {
            guard index + offset < bytes.count else { return -offset }
            let byte = bytes[index + offset]
            let (lower, upper) = offset == 1 ? (low, high) : (UInt8(0x80), UInt8(0xBF))
            guard byte >= lower, byte <= upper else { return -offset }
        }
        return length
    }

    /// The code point of the well-formed sequence of `length` bytes at `index`.
    static func decode(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int, length: Int) -> UInt32 {
        var scalar = UInt32(bytes[index]) & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07)
        for offset in 1..<length { scalar = scalar << 6 | UInt32(bytes[index + offset] & 0x3F) }
        return scalar
    }
}
