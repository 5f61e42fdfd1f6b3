import CZlib

/// gzip (RFC 1952) compression through zlib, for `Content-Encoding: gzip` bodies.
package enum Gzip {
    /// The compressed bytes, or `nil` when zlib failed.
    package static func compress(_ input: [UInt8]) -> [UInt8]? {
        let capacity = CZlib_gzipBound(input.count)
        var failed = false
        let output = [UInt8](unsafeUninitializedCapacity: capacity) { destination, count in
            count = input.withUnsafeBufferPointer { source in
                CZlib_gzip(source.baseAddress, source.count, destination.baseAddress, capacity)
            }
            failed = count == 0
        }
        return failed ? nil : output
    }
}
