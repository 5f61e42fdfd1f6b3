import Synchronization

/// Request ids: the client's when sane, otherwise a fresh random one.
package enum RequestID {
    /// At most this many characters of a client-supplied id are accepted.
    package static let maximumLength = 128

    /// Whether a client-supplied id can be echoed and logged as it is: 1–128 characters of
    /// letters, digits and `. _ : -` (nothing that could forge a log line or a header).
    package static func isSane(_ candidate: String) -> Bool {
        var candidate = candidate
        return candidate.withUTF8 { isSane($0) }
    }

    /// `isSane` for bytes as they arrived.
    static func isSane(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
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

    /// A per-process random start, advanced for each id: ids are unique within a process and
    /// unpredictable across processes, without a system call per request.
    private static let sequence = Atomic<UInt64>(UInt64.random(in: .min ... .max))
    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    /// 16 hex digits: the next value of `sequence` mixed by SplitMix64, so consecutive ids share
    /// no visible pattern.
    package static func generate() -> String {
        String(unsafeUninitializedCapacity: 16) { buffer in
            write(into: buffer.baseAddress!)
            return 16
        }
    }

    /// Calls `body` with the request's id as a C string: `offered` (the client's
    /// `X-Request-ID`, NUL-terminated in MHD's memory) when sane, else a fresh one on the stack.
    static func withCString<Result>(
        offered: UnsafeBufferPointer<UInt8>?,
        _ body: (UnsafePointer<CChar>) -> Result
    ) -> Result {
        if let offered, isSane(offered), let start = offered.baseAddress {
            return body(UnsafeRawPointer(start).assumingMemoryBound(to: CChar.self))
        }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 17) { buffer in
            write(into: buffer.baseAddress!)
            buffer[16] = 0
            return body(UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self))
        }
    }

    /// Writes a fresh id's 16 hex digits at `out`.
    private static func write(into out: UnsafeMutablePointer<UInt8>) {
        var value = sequence.wrappingAdd(0x9E37_79B9_7F4A_7C15, ordering: .relaxed).newValue
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        value ^= value >> 31
        hexDigits.withUnsafeBufferPointer { digits in
            for index in 0..<16 {
                out[index] = digits[Int((value >> UInt64(60 - 4 * index)) & 0xF)]
            }
        }
    }
}
