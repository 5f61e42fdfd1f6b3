// libFuzzer target: strict percent-decoding of path and query components.
//
// The input, cut at its first NUL (libmicrohttpd hands over C strings), is decoded with and
// without `plusIsSpace`, and compared with a plain reference decoder written from RFC 3986 §2.1.
// Invariants:
// - the result (success or the kind of failure) equals the reference's;
// - a decoded text has no control characters (below 0x20, or 0x7F);
// - percent-encoding the decoded text and decoding that again gives the decoded text back;
// - without `%` or `+` in the input, a decoded text is the input itself.
import HTTPServer

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    var component = Array(UnsafeBufferPointer(start: data, count: size).prefix { $0 != 0 })
    component.append(0)
    for plusIsSpace in [false, true] {
        // Bytes, not Strings: String equality is canonical equivalence and would hide a change.
        let result = decode(component, plusIsSpace: plusIsSpace)
        let expected = reference(component.dropLast(), plusIsSpace: plusIsSpace)
        precondition(
            result.map { Array($0.utf8) } == expected.map { Array($0.utf8) },
            "decode gave \(result), the reference \(expected)"
        )
        guard case .success(let text) = result else { continue }
        precondition(!text.utf8.contains { $0 < 0x20 || $0 == 0x7F }, "a control character survived decoding")
        var encoded = Array(encode(text).utf8)
        encoded.append(0)
        precondition(
            decode(encoded, plusIsSpace: plusIsSpace).map { Array($0.utf8) } == .success(Array(text.utf8)),
            "encode then decode changed \(text)"
        )
        if !component.contains(UInt8(ascii: "%")), !component.contains(UInt8(ascii: "+")) {
            precondition(Array(text.utf8) == component.dropLast(), "an input without escapes changed")
        }
    }
    return 0
}

private func decode(_ cString: [UInt8], plusIsSpace: Bool) -> Result<String, PercentDecoding.Failure> {
    cString.withUnsafeBufferPointer { buffer in
        buffer.withMemoryRebound(to: CChar.self) {
            PercentDecoding.decode(cString: $0.baseAddress!, plusIsSpace: plusIsSpace)
        }
    }
}

/// Escapes every byte outside RFC 3986's unreserved set.
private func encode(_ text: String) -> String {
    let hex = Array("0123456789ABCDEF".utf8)
    var out: [UInt8] = []
    for byte in text.utf8 {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            out.append(byte)
        default:
            out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
        }
    }
    return String(decoding: out, as: UTF8.self)
}

/// The decoder as the RFC and the doc comments describe it, written for clarity, not speed:
/// escapes first, then control characters, then UTF-8.
private func reference(_ input: ArraySlice<UInt8>, plusIsSpace: Bool) -> Result<String, PercentDecoding.Failure> {
    func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: nil
        }
    }
    let bytes = Array(input)
    var out: [UInt8] = []
    var i = 0
    while i < bytes.count {
        if bytes[i] == UInt8(ascii: "%") {
            guard i + 2 < bytes.count, let high = hex(bytes[i + 1]), let low = hex(bytes[i + 2]) else {
                return .failure(.malformedEscape)
            }
            out.append(high << 4 | low)
            i += 3
        } else {
            out.append(plusIsSpace && bytes[i] == UInt8(ascii: "+") ? 0x20 : bytes[i])
            i += 1
        }
    }
    if out.contains(where: { $0 < 0x20 || $0 == 0x7F }) { return .failure(.controlCharacter) }
    guard let text = String(validating: out, as: UTF8.self) else { return .failure(.invalidUTF8) }
    return .success(text)
}
