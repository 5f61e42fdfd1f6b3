#if canImport(Glibc)
    import Glibc
#endif

/// Strict percent-decoding (RFC 3986 §2.1) of a path or query component.
package enum PercentDecoding {
    /// Why a component could not be decoded.
    package enum Failure: Error, Equatable, Sendable {
        /// `%` not followed by two hex digits.
        case malformedEscape
        /// The decoded bytes are not UTF-8.
        case invalidUTF8
        /// A decoded NUL or other control character.
        case controlCharacter

        /// What a problem's field error says about it.
        package var reason: String {
            switch self {
            case .malformedEscape: "malformed percent-encoding (% must be followed by two hex digits)"
            case .invalidUTF8: "not UTF-8 once percent-decoded"
            case .controlCharacter: "contains a control character once percent-decoded"
            }
        }
    }

    /// Decodes `%XX` escapes in a component as libmicrohttpd hands it over; with `plusIsSpace`
    /// (query components) `+` becomes a space. Bytes that are not UTF-8 are a failure, escaped
    /// or not.
    package static func decode(cString: UnsafePointer<CChar>, plusIsSpace: Bool) -> Result<String, Failure> {
        let utf8 = UnsafeBufferPointer(
            start: UnsafeRawPointer(cString).assumingMemoryBound(to: UInt8.self),
            count: strlen(cString)
        )
        var ascii = true
        for byte in utf8 {
            if needsDecoding(byte) { return decode(bytes: utf8, plusIsSpace: plusIsSpace) }
            ascii = ascii && byte < 0x80
        }
        // ASCII needs no validating (the generic `String(validating:)` costs more than the rest
        // of decoding a request's path and query together).
        if ascii { return .success(String(decoding: utf8, as: UTF8.self)) }
        guard let text = String(validating: utf8, as: UTF8.self) else { return .failure(.invalidUTF8) }
        return .success(text)
    }

    /// `%` and `+`, or a byte that must be refused.
    private static func needsDecoding(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: "%") || byte == UInt8(ascii: "+") || byte < 0x20 || byte == 0x7F
    }

    private static func decode(bytes utf8: UnsafeBufferPointer<UInt8>, plusIsSpace: Bool) -> Result<String, Failure> {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count)
        var index = utf8.startIndex
        while index != utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%") {
                let high = utf8.index(after: index)
                guard high != utf8.endIndex, let highValue = hexValue(utf8[high]) else {
                    return .failure(.malformedEscape)
                }
                let low = utf8.index(after: high)
                guard low != utf8.endIndex, let lowValue = hexValue(utf8[low]) else {
                    return .failure(.malformedEscape)
                }
                bytes.append(highValue << 4 | lowValue)
                index = utf8.index(after: low)
            } else {
                bytes.append(plusIsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                index = utf8.index(after: index)
            }
        }
        if bytes.contains(where: { $0 < 0x20 || $0 == 0x7F }) { return .failure(.controlCharacter) }
        guard let decoded = String(validating: bytes, as: UTF8.self) else { return .failure(.invalidUTF8) }
        return .success(decoded)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
