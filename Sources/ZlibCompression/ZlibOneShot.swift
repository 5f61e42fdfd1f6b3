import CZlib

/// Runs one of the shim's one-shot compressors (`CZlib_gzip`, `CZlib_rawDeflate`) into a buffer
/// of `CZlib_gzipBound` bytes, which zlib guarantees is enough for any input.
enum ZlibOneShot {
    /// - Returns: what the compressor wrote, or `nil` when it wrote nothing (zlib failed).
    static func run(
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
