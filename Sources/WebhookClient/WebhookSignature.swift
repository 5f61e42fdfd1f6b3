internal import Crypto
import Foundation

/// The Standard Webhooks signature scheme (https://www.standardwebhooks.com/, "Signature
/// scheme"): a secret `whsec_<base64>`, and `webhook-signature: v1,<base64 HMAC-SHA256>` of
/// `<webhook-id>.<webhook-timestamp>.<body>` under the secret's bytes, so receivers verify with
/// the specification's libraries (`standardwebhooks` on PyPI and others) or a few lines of their
/// own.
package enum WebhookSignature {
    /// The prefix of a serialized secret.
    package static let secretPrefix = "whsec_"
    /// Bytes of a new secret: 256 bits (the specification asks for 24 to 64 bytes).
    package static let secretByteCount = 32

    /// A new random secret, `whsec_` and the base64 of `secretByteCount` random bytes.
    package static func newSecret() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<secretByteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return secretPrefix + Data(bytes).base64EncodedString()
    }

    /// The key bytes of a serialized secret; `nil` when it is not `whsec_` and base64 of 24 to 64
    /// bytes.
    package static func key(of secret: String) -> [UInt8]? {
        guard secret.hasPrefix(secretPrefix),
            let data = Data(base64Encoded: String(secret.dropFirst(secretPrefix.count))),
            (24...64).contains(data.count)
        else { return nil }
        return Array(data)
    }

    /// One signature, `v1,<base64>`, of a delivery under `key`.
    /// - Parameters:
    ///   - id: the `webhook-id` header.
    ///   - timestamp: the `webhook-timestamp` header, seconds since the epoch.
    ///   - body: the exact bytes sent.
    package static func sign(id: String, timestamp: Int64, body: [UInt8], key: [UInt8]) -> String {
        var message = Array("\(id).\(timestamp).".utf8)
        message.append(contentsOf: body)
        let mac = HMAC<SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key))
        return "v1," + Data(mac).base64EncodedString()
    }

    /// The `webhook-signature` header: a signature per key, space-separated, the current
    /// secret's first (during a rotation, the previous secret signs too, so receivers that still
    /// hold it keep verifying).
    package static func header(id: String, timestamp: Int64, body: [UInt8], keys: [[UInt8]]) -> String {
        keys.map { sign(id: id, timestamp: timestamp, body: body, key: $0) }.joined(separator: " ")
    }
}
