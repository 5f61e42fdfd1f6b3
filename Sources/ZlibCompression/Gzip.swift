import CZlib

/// gzip (RFC 1952) compression through zlib, for `Content-Encoding: gzip` bodies.
///
/// Each thread keeps one deflate stream and resets it between calls (`CZlib_gzip`): the
/// catalogue compresses many small documents, and initializing a stream dominated that cost.
package enum Gzip {
    /// The input as one gzip member at zlib's default level, or `nil` when zlib failed.
    package static func compress(_ input: [UInt8]) -> [UInt8]? {
        ZlibOneShot.run(input, CZlib_gzip)
    }
}
