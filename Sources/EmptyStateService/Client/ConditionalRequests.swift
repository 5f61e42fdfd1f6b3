#if canImport(Glibc)
    import Glibc
#endif

/// Header parsing for content negotiation and revalidation.
///
/// Both run on every client request, so they read the header's bytes in place: splitting it
/// into `Substring`s and `Character`s cost more than the rest of answering a 304.
enum ConditionalRequests {
    /// Whether `If-None-Match` matches `etag`, the tag of the selected representation (weak
    /// comparison, RFC 9110 §13.1.2). Only that one: a tag of the other content coding does not
    /// match, since the 304 would carry a tag the client's stored response does not have, and
    /// a cache may then update nothing (RFC 9111 §4.3.4).
    static func noneMatch(_ header: String, matches etag: String) -> Bool {
        var header = header
        return header.withUTF8 { bytes in
            var found = false
            forEachListItem(bytes) { item in
                var tag = item
                if tag.count == 1, tag[0] == UInt8(ascii: "*") {
                    found = true
                } else {
                    if tag.count >= 2, tag[0] == UInt8(ascii: "W"), tag[1] == UInt8(ascii: "/") {
                        tag = UnsafeBufferPointer(rebasing: tag[2...])
                    }
                    found = equal(tag, etag)
                }
                return !found
            }
            return found
        }
    }

    /// Whether `Accept-Encoding` accepts gzip (explicitly or through `*`) with a non-zero weight.
    static func acceptsGzip(_ header: String?) -> Bool {
        guard var header, !header.isEmpty else { return false }
        return header.withUTF8 { bytes in
            var gzipQuality: Double?
            var wildcardQuality: Double?
            forEachListItem(bytes) { item in
                let semicolon = item.firstIndex(of: UInt8(ascii: ";")) ?? item.count
                let coding = trimmed(UnsafeBufferPointer(rebasing: item[..<semicolon]))
                var quality = 1.0
                if semicolon < item.count {
                    let parameters = UnsafeBufferPointer(rebasing: item[(semicolon + 1)...])
                    forEachElement(parameters, separator: UInt8(ascii: ";"), quoteAware: false) { parameter in
                        guard let equals = parameter.firstIndex(of: UInt8(ascii: "=")) else { return true }
                        let name = trimmed(UnsafeBufferPointer(rebasing: parameter[..<equals]))
                        guard name.count == 1, name[0] | 0x20 == UInt8(ascii: "q") else { return true }
                        // Whitespace anywhere in the value is ignored, as `q = 0.5` is meant.
                        let value = parameter[(equals + 1)...].filter { !isWhitespace($0) }
                        if let parsed = Double(String(decoding: value, as: UTF8.self)) { quality = parsed }
                        return true
                    }
                }
                if equalIgnoringCase(coding, "gzip") || equalIgnoringCase(coding, "x-gzip") {
                    gzipQuality = quality
                } else if coding.count == 1, coding[0] == UInt8(ascii: "*") {
                    wildcardQuality = quality
                }
                return true
            }
            return (gzipQuality ?? wildcardQuality ?? 0) > 0
        }
    }

    // MARK: - Bytes

    private typealias Bytes = UnsafeBufferPointer<UInt8>

    /// Calls `body` with each element of a comma-separated header list, without the whitespace
    /// around it and skipping empty ones, until `body` returns false. Commas inside a quoted
    /// string (an entity-tag may contain one) do not separate elements.
    private static func forEachListItem(_ bytes: Bytes, _ body: (Bytes) -> Bool) {
        forEachElement(bytes, separator: UInt8(ascii: ","), quoteAware: true, body)
    }

    /// `forEachListItem` with any separator; `quoteAware` says whether quoted strings protect it.
    private static func forEachElement(_ bytes: Bytes, separator: UInt8, quoteAware: Bool, _ body: (Bytes) -> Bool) {
        var start = 0
        var quoted = false
        for index in 0...bytes.count {
            if index < bytes.count {
                if quoteAware, bytes[index] == UInt8(ascii: "\"") { quoted.toggle() }
                if quoted || bytes[index] != separator { continue }
            }
            let item = trimmed(UnsafeBufferPointer(rebasing: bytes[start..<index]))
            start = index + 1
            if !item.isEmpty, !body(item) { return }
        }
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
    }

    private static func trimmed(_ bytes: Bytes) -> Bytes {
        var lower = 0
        var upper = bytes.count
        while lower < upper, isWhitespace(bytes[lower]) { lower += 1 }
        while upper > lower, isWhitespace(bytes[upper - 1]) { upper -= 1 }
        return UnsafeBufferPointer(rebasing: bytes[lower..<upper])
    }

    private static func equal(_ bytes: Bytes, _ text: String) -> Bool {
        var text = text
        return text.withUTF8 { other in
            other.count == bytes.count
                && (bytes.isEmpty || memcmp(other.baseAddress!, bytes.baseAddress!, bytes.count) == 0)
        }
    }

    /// ASCII case-insensitive comparison with a lower-case `token`.
    private static func equalIgnoringCase(_ bytes: Bytes, _ token: StaticString) -> Bool {
        guard bytes.count == token.utf8CodeUnitCount else { return false }
        for index in 0..<bytes.count {
            let byte = bytes[index]
            let lower = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
            if lower != token.utf8Start[index] { return false }
        }
        return true
    }
}
