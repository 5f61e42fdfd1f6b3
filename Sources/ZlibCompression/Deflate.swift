import CZlib

/// Raw deflate (RFC 1951: no header, no trailer) through zlib: what a ZIP archive's entries hold.
package enum Deflate {
    /// The input as a raw deflate stream at zlib's default level, or `nil` when zlib failed.
    /// An empty input deflates to two bytes (an empty final block), never to none.
    package static func compress(_ input: [UInt8]) -> [UInt8]? {
        ZlibOneShot.run(input, CZlib_rawDeflate)
    }
}
