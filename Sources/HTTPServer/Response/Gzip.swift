import CZlib

/// gzip (RFC 1952) compression through zlib, for `Content-Encoding: gzip` bodies.
package enum Gzip {
    /// The compressed bytes, or `nil` when zlib failed.
    package static func compress(_ input: [UInt8]) -> [UInt8]? {
        zlib(input, CZlib_gzip)
    }

    /// Runs a one-shot zlib compressor of the shim into a buffer of `CZlib_gzipBound` bytes.
    /// - Returns: what it wrote, or `nil` when it wrote nothing (zlib failed).
    fileprivate static func zlib(
        _ input: [UInt8],
        _ compressor: (UnsafePointer<UInt8>?, Int, UnsafeMutablePointer<UInt8>?, Int) -> Int
    ) -> [UInt8]? {
        let capacity = CZlib_gzipBound(input.count)
        var failed = false
        let output = [UInt8](unsafeUninitializedCapacity: capacity) { destination, count in
            count = input.withUnsafeBufferPointer { source in
                compressor(source.baseAddress, source.count, destination.baseAddress, capacity)
            }
            failed = count == 0
        }
        return failed ? nil : output
    }
}

/// Raw deflate (RFC 1951) and CRC-32 through zlib: what a ZIP archive's entries need.
package enum Deflate {
    /// The input as a raw deflate stream, or `nil` when zlib failed.
    package static func compress(_ input: [UInt8]) -> [UInt8]? {
        // An empty input deflates to two bytes (an empty final block), never to none.
        Gzip.zlib(input, CZlib_rawDeflate)
    }

    /// The CRC-32 of the input.
    package static func crc32(_ input: [UInt8]) -> UInt32 {
        input.withUnsafeBufferPointer { CZlib_crc32($0.baseAddress, $0.count) }
    }
}
