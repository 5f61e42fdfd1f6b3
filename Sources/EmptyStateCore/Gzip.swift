import CZlib

/// gzip (RFC 1952) compression through zlib.
package enum Gzip {
    /// The compressed bytes, or `nil` when zlib failed.
    package static func compress(_ input: [UInt8]) -> [UInt8]? {
        let capacity = CZlib_gzipBound(input.count)
        var output = [UInt8](repeating: 0, count: capacity)
        let written = input.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBufferPointer { destination in
                CZlib_gzip(source.baseAddress, source.count, destination.baseAddress, capacity)
            }
        }
        guard written > 0 else { return nil }
        output.removeSubrange(written...)
        return output
    }
}
