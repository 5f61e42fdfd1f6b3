/// Request ids: the client's when sane, otherwise a fresh random one.
package enum RequestID {
    /// At most this many characters of a client-supplied id are accepted.
    package static let maximumLength = 128

    /// Whether a client-supplied id can be echoed and logged as it is: 1–128 characters of
    /// letters, digits and `. _ : -` (nothing that could forge a log line or a header).
    package static func isSane(_ candidate: String) -> Bool {
        let utf8 = candidate.utf8
        guard !utf8.isEmpty, utf8.count <= maximumLength else { return false }
        return utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: ":"), UInt8(ascii: "-"):
                return true
            default:
                return false
            }
        }
    }

    /// 16 random hex digits.
    package static func generate() -> String {
        var generator = SystemRandomNumberGenerator()
        let value = generator.next() as UInt64
        let hex = String(value, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
