#if canImport(Glibc)
    import Glibc
#endif

/// The date part of an RFC 3339 timestamp (`2026-11-23T19:43:13.`), formatted once per second
/// (one per thread, like nginx's and Hummingbird's `DateCache`): `gmtime_r` per line would cost
/// more than the rest of the line.
struct AccessLogDateCache {
    private var second = Int.min
    private var text: (UInt64, UInt64, UInt64) = (0, 0, 0)
    /// `YYYY-MM-DDTHH:MM:SS.` is 20 bytes.
    static let length = 20

    /// Appends `seconds` as `YYYY-MM-DDTHH:MM:SS.`.
    mutating func append(seconds: Int, to writer: inout AccessLogLineWriter) {
        if seconds != second {
            second = seconds
            var time = time_t(seconds)
            var parts = tm()
            gmtime_r(&time, &parts)
            withUnsafeMutableBytes(of: &text) { raw in
                let out = raw.bindMemory(to: UInt8.self)
                func put(_ value: Int32, _ digits: Int, at offset: Int) {
                    var value = Int(value)
                    for index in stride(from: offset + digits - 1, through: offset, by: -1) {
                        out[index] = UInt8(truncatingIfNeeded: 0x30 + value % 10)
                        value /= 10
                    }
                }
                put(parts.tm_year + 1900, 4, at: 0)
                out[4] = UInt8(ascii: "-")
                put(parts.tm_mon + 1, 2, at: 5)
                out[7] = UInt8(ascii: "-")
                put(parts.tm_mday, 2, at: 8)
                out[10] = UInt8(ascii: "T")
                put(parts.tm_hour, 2, at: 11)
                out[13] = UInt8(ascii: ":")
                put(parts.tm_min, 2, at: 14)
                out[16] = UInt8(ascii: ":")
                put(parts.tm_sec, 2, at: 17)
                out[19] = UInt8(ascii: ".")
            }
        }
        withUnsafeBytes(of: &text) { raw in
            writer.append(UnsafeRawBufferPointer(rebasing: raw[0..<Self.length]).bindMemory(to: UInt8.self))
        }
    }
}
