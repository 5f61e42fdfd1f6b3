import Foundation
import Testing
import WebhookClient

/// One attempt against a real receiver on loopback: what is sent, what is read, and every way an
/// attempt ends without a 2xx (refused, redirect, hang, TLS) — each as an outcome, never a throw.
@Suite("WebhookHTTPClient: one bounded attempt")
struct WebhookHTTPClientTests {
    // Bounds far above what an attempt takes here (milliseconds): in the whole suite, other
    // suites' blocking set-up can hold Swift's cooperative threads (two on two cores) for
    // seconds, and an attempt waits for them; its timeouts are the client's, not the machine's.
    private func client(
        loopback: Bool = true,
        total: Duration = .seconds(60),
        trustTestCA: Bool = false
    ) throws -> WebhookHTTPClient {
        var configuration = WebhookHTTPClient.Configuration(policy: AddressPolicy(allowsLoopback: loopback))
        configuration.totalTimeout = total
        configuration.connectTimeout = .seconds(30)
        if trustTestCA { configuration.additionalTrustRoots = TestCertificates.path("ca.pem") }
        return try WebhookHTTPClient(configuration: configuration, group: TestEventLoops.group)
    }

    private func request(_ url: String, body: String = #"{"type":"webhook.test"}"#) throws -> WebhookHTTPClient.Request
    {
        WebhookHTTPClient.Request(
            url: try WebhookURL.parse(url).get(),
            headers: [("Content-Type", "application/json"), ("webhook-id", "msg_1")],
            body: Array(body.utf8)
        )
    }

    @Test("a POST with the body, the headers given, Host and Content-Length; the answer's status and body")
    func delivered() async throws {
        let receiver = try TestReceiver()
        defer { receiver.close() }
        let outcome = try await client().send(try request("http://127.0.0.1:\(receiver.port)/ok?x=1"))
        #expect(outcome.status == 200 && outcome.error == nil && outcome.failure == nil)
        #expect(outcome.excerpt == "fine" && outcome.address == "127.0.0.1:\(receiver.port)")
        let got = try #require(receiver.received.first)
        #expect(got.path == "/ok?x=1" && String(decoding: got.body, as: UTF8.self) == #"{"type":"webhook.test"}"#)
        #expect(got.header("Host") == "127.0.0.1:\(receiver.port)" && got.header("webhook-id") == "msg_1")
        #expect(got.header("Content-Length") == "23" && got.header("Connection") == "close")
    }

    @Test("a redirect is an answer, not followed: its status and Location, and one request only")
    func redirectNotFollowed() async throws {
        let receiver = try TestReceiver()
        defer { receiver.close() }
        let outcome = try await client().send(try request("http://127.0.0.1:\(receiver.port)/redirect"))
        #expect(outcome.status == 302 && outcome.location == "/ok")
        #expect(receiver.received.map(\.path) == ["/redirect"])
    }

    @Test("500 with its body; 503's Retry-After")
    func failures() async throws {
        let receiver = try TestReceiver()
        defer { receiver.close() }
        let failed = try await client().send(try request("http://127.0.0.1:\(receiver.port)/fail"))
        #expect(failed.status == 500 && failed.excerpt == "broken on purpose")
        let busy = try await client().send(try request("http://127.0.0.1:\(receiver.port)/busy"))
        #expect(busy.status == 503 && busy.retryAfter == 120)
    }

    @Test("a receiver that never answers ends at the total timeout")
    func hang() async throws {
        let receiver = try TestReceiver()
        defer { receiver.close() }
        let started = ContinuousClock.now
        let outcome = try await client(total: .milliseconds(500)).send(
            try request("http://127.0.0.1:\(receiver.port)/hang")
        )
        let elapsed = ContinuousClock.now - started
        #expect(outcome.status == nil && outcome.failure == .timeout)
        // Not much later either, but how much later depends on the machine's load (see `client`).
        #expect(elapsed >= .milliseconds(450) && elapsed < .seconds(30), "took \(elapsed)")
    }

    @Test("at most the response limit is read of a large answer")
    func boundedRead() async throws {
        let receiver = try TestReceiver()
        defer { receiver.close() }
        let outcome = try await client().send(try request("http://127.0.0.1:\(receiver.port)/big"))
        #expect(outcome.status == 200 && outcome.excerpt?.utf8.count == 1024)
    }

    @Test("loopback refused without the operator's permission: nothing is sent")
    func loopbackRefused() async throws {
        let receiver = try TestReceiver()
        defer { receiver.close() }
        let outcome = try await client(loopback: false).send(try request("https://127.0.0.1:\(receiver.port)/ok"))
        #expect(outcome.failure == .refused && outcome.error?.contains("--webhook-allow-loopback") == true)
        let byName = try await client(loopback: false).send(try request("https://localhost:\(receiver.port)/ok"))
        #expect(byName.failure == .refused && byName.error?.contains("localhost resolves to") == true)
        #expect(receiver.received.isEmpty)
    }

    @Test("a connection refused, and a name that does not resolve")
    func unreachable() async throws {
        let receiver = try TestReceiver()
        let port = receiver.port
        receiver.close()
        let refused = try await client().send(try request("http://127.0.0.1:\(port)/ok"))
        #expect(refused.failure == .connect && refused.error?.contains("refused") == true)
        let unknown = try await client().send(try request("https://no-such-host.invalid/ok"))
        #expect(unknown.failure == .dns && unknown.error?.contains("does not resolve") == true)
    }

    @Test("TLS: the certificate is checked against the host name, with SNI, and against the trust roots")
    func tls() async throws {
        let good = try TestReceiver(certificate: "localhost")
        defer { good.close() }
        let trusted = try await client(trustTestCA: true).send(try request("https://localhost:\(good.port)/ok"))
        #expect(trusted.status == 200, "\(trusted.error ?? "")")
        let byAddress = try await client(trustTestCA: true).send(try request("https://127.0.0.1:\(good.port)/ok"))
        #expect(byAddress.status == 200, "\(byAddress.error ?? "")")
        let untrusted = try await client().send(try request("https://localhost:\(good.port)/ok"))
        #expect(untrusted.failure == .tls && untrusted.status == nil)
        let wrong = try TestReceiver(certificate: "wrong")
        defer { wrong.close() }
        let mismatched = try await client(trustTestCA: true).send(try request("https://localhost:\(wrong.port)/ok"))
        #expect(mismatched.failure == .tls && mismatched.status == nil, "\(mismatched.error ?? "")")
        #expect(good.received.count == 2 && wrong.received.isEmpty)
    }
}

/// The Standard Webhooks signature, against the specification's own test vector.
@Suite("WebhookSignature")
struct WebhookSignatureTests {
    @Test("the reference vector: v1,g0hM9SsE…")
    func vector() throws {
        let key = try #require(WebhookSignature.key(of: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"))
        let signature = WebhookSignature.sign(
            id: "msg_p5jXN8AQM9LWM0D4loKWxJek",
            timestamp: 1_614_265_330,
            body: Array(#"{"test": 2432232314}"#.utf8),
            key: key
        )
        #expect(signature == "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=")
    }

    @Test("new secrets: whsec_ and 32 random bytes, each different; the header signs with every key")
    func secrets() throws {
        let a = WebhookSignature.newSecret()
        let b = WebhookSignature.newSecret()
        #expect(a != b && a.hasPrefix("whsec_"))
        #expect(try #require(WebhookSignature.key(of: a)).count == 32)
        #expect(WebhookSignature.key(of: "whsec_c2hvcnQ=") == nil && WebhookSignature.key(of: "nope") == nil)
        let header = WebhookSignature.header(
            id: "msg_1",
            timestamp: 1,
            body: [],
            keys: [try #require(WebhookSignature.key(of: a)), try #require(WebhookSignature.key(of: b))]
        )
        #expect(header.split(separator: " ").count == 2 && header.hasPrefix("v1,"))
    }
}
