internal import Crypto

/// The SHA-256 of secrets the stores keep only as a digest: console session ids (the key a
/// session is stored under) and, on PostgreSQL, admin tokens. swift-crypto's, which the server
/// links already for PostgreSQL; a digest is looked up by index, never compared in a loop, so
/// no constant-time comparison is needed here.
package enum SecretDigest {
    /// The SHA-256 of `text`'s UTF-8 bytes, as 64 lowercase hex digits.
    package static func sha256Hex(_ text: String) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var result: [UInt8] = []
        result.reserveCapacity(64)
        for byte in SHA256.hash(data: Array(text.utf8)) {
            result.append(digits[Int(byte >> 4)])
            result.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: result, as: UTF8.self)
    }
}
