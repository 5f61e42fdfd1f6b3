import Crypto
import Foundation
import Testing
import WebhookClient

// The receiver's verification of docs/webhooks.md ("Swift"), verbatim between the markers
// (Tests/integration/webhooks.py checks that the page and this file agree), run against what
// the service signs.

// BEGIN docs/webhooks.md
/// Whether a webhook message is authentic and recent: one of the `v1` signatures in
/// `webhook-signature` is the HMAC-SHA256 of `id.timestamp.body` under the secret, and the
/// timestamp is within five minutes of `now`.
func verifyWebhook(
    secret: String,
    id: String,
    timestamp: String,
    signatures: String,
    body: Data,
    now: Date = Date()
) -> Bool {
    guard secret.hasPrefix("whsec_"), let key = Data(base64Encoded: String(secret.dropFirst(6))),
        let seconds = TimeInterval(timestamp), abs(now.timeIntervalSince1970 - seconds) <= 300
    else { return false }
    var signed = Data("\(id).\(timestamp).".utf8)
    signed.append(body)
    for candidate in signatures.split(separator: " ") where candidate.hasPrefix("v1,") {
        // isValidAuthenticationCode compares in constant time.
        if let mac = Data(base64Encoded: String(candidate.dropFirst(3))),
            HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: signed, using: SymmetricKey(data: key))
        {
            return true
        }
    }
    return false
}
// END docs/webhooks.md

@Suite("docs/webhooks.md: the Swift verification snippet")
struct DocumentedVerificationTests {
    private let secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw9CaHlcUs1Y8="
    private let body = Data(
        #"{"type":"appPolicy.published","timestamp":"2026-11-28T12:03:57Z","data":{"platform":"ios"}}"#.utf8
    )

    private func signature(_ secret: String, id: String, timestamp: Int64) throws -> String {
        let key = try #require(WebhookSignature.key(of: secret))
        return WebhookSignature.sign(id: id, timestamp: timestamp, body: Array(body), key: key)
    }

    @Test("it accepts what the service signs, with one signature or during a rotation")
    func accepts() throws {
        let now = Date()
        let timestamp = Int64(now.timeIntervalSince1970)
        let signed = try signature(secret, id: "msg_1", timestamp: timestamp)
        #expect(
            verifyWebhook(
                secret: secret,
                id: "msg_1",
                timestamp: "\(timestamp)",
                signatures: signed,
                body: body,
                now: now
            )
        )
        let other = WebhookSignature.newSecret()
        let rotated = try signature(other, id: "msg_1", timestamp: timestamp) + " " + signed
        #expect(
            verifyWebhook(
                secret: secret,
                id: "msg_1",
                timestamp: "\(timestamp)",
                signatures: rotated,
                body: body,
                now: now
            )
        )
    }

    @Test("it refuses a changed body, another id, another secret, an old or future timestamp")
    func refuses() throws {
        let now = Date()
        let timestamp = Int64(now.timeIntervalSince1970)
        let signed = try signature(secret, id: "msg_1", timestamp: timestamp)
        var changed = body
        changed.append(0x20)
        #expect(
            !verifyWebhook(
                secret: secret,
                id: "msg_1",
                timestamp: "\(timestamp)",
                signatures: signed,
                body: changed,
                now: now
            )
        )
        #expect(
            !verifyWebhook(
                secret: secret,
                id: "msg_2",
                timestamp: "\(timestamp)",
                signatures: signed,
                body: body,
                now: now
            )
        )
        #expect(
            !verifyWebhook(
                secret: WebhookSignature.newSecret(),
                id: "msg_1",
                timestamp: "\(timestamp)",
                signatures: signed,
                body: body,
                now: now
            )
        )
        let old = try signature(secret, id: "msg_1", timestamp: timestamp - 301)
        #expect(
            !verifyWebhook(
                secret: secret,
                id: "msg_1",
                timestamp: "\(timestamp - 301)",
                signatures: old,
                body: body,
                now: now
            )
        )
        #expect(
            !verifyWebhook(
                secret: secret,
                id: "msg_1",
                timestamp: "\(timestamp)",
                signatures: "v2,abc",
                body: body,
                now: now
            )
        )
    }
}
