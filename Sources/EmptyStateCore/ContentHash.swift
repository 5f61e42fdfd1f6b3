/// A 64-bit FNV-1a digest of bytes, as 16 hex digits: the basis of strong ETags. Not for
/// security: it only has to change when the representation changes.
package enum ContentHash {
    package static func hex(_ bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        hash ^= UInt64(bytes.count)
        hash &*= 0x0000_0100_0000_01b3
        let text = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - text.count) + text
    }
}
