import CZlib

/// The CRC-32 of ISO 3309 (zlib's `crc32`), as gzip trailers and ZIP entries carry it.
package enum CRC32 {
    /// The checksum of `input` (0 for no bytes).
    package static func checksum(_ input: [UInt8]) -> UInt32 {
        input.withUnsafeBufferPointer { CZlib_crc32($0.baseAddress, $0.count) }
    }
}
