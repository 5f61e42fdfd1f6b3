import Testing
import WebhookClient

/// A receiver URL's rules, and the ones it breaks each named the way the admin API says them.
@Suite("WebhookURL: what a receiver's URL may be")
struct WebhookURLTests {
    private func parse(_ text: String) throws -> WebhookURL {
        try WebhookURL.parse(text).get()
    }

    private func refusal(_ text: String) -> String? {
        if case .failure(let refusal) = WebhookURL.parse(text) { return refusal.description }
        return nil
    }

    @Test("https URLs: host, port, target, Host header")
    func accepted() throws {
        let url = try parse("https://Hooks.Example.com/empty-states?team=ops")
        #expect(url.isHTTPS && url.host == "hooks.example.com" && url.port == 443)
        #expect(url.target == "/empty-states?team=ops" && url.hostHeader == "hooks.example.com")
        let bare = try parse("https://example.com")
        #expect(bare.target == "/")
        let query = try parse("https://example.com?x=1")
        #expect(query.target == "/?x=1")
        let ported = try parse("https://[2001:db8::1]:8443/x")
        #expect(ported.host == "2001:db8::1" && ported.port == 8443 && ported.hostHeader == "[2001:db8::1]:8443")
        #expect(ported.literalAddress != nil)
        let dotted = try parse("https://example.com./")
        #expect(dotted.host == "example.com")
    }

    @Test(
        "URLs refused whatever the operator allows",
        arguments: [
            ("", "required"), ("ftp://example.com/", "https://"), ("example.com/hook", "https://"),
            ("https://user:pw@example.com/", "user information"), ("https://example.com/#top", "fragment"),
            ("https://exa mple.com/", "spaces"), ("https://exämple.com/", "non-ASCII"),
            ("https://example.com:0/", "port"), ("https://example.com:99999/", "port"),
            ("https://example.com:x/", "port"), ("https:///path", "no host"), ("https://[::1/", "closing ]"),
            ("https://2001:db8::1/", "brackets"), ("https://ex!ample.com/", "character"),
        ]
    )
    func refused(_ text: String, _ expected: String) {
        let reason = refusal(text)
        #expect(reason?.contains(expected) == true, "\(text): \(reason ?? "accepted")")
    }

    @Test("a URL longer than 2,048 bytes is refused")
    func tooLong() {
        #expect(refusal("https://example.com/" + String(repeating: "a", count: 2048))?.contains("2048") == true)
    }

    @Test("http:// only to a loopback host, and only when the operator allows loopback")
    func plainHTTP() throws {
        let strict = AddressPolicy()
        let loopback = AddressPolicy(allowsLoopback: true)
        #expect(try parse("http://127.0.0.1:9000/").refusal(under: strict) != nil)
        #expect(try parse("http://127.0.0.1:9000/").refusal(under: loopback) == nil)
        #expect(try parse("http://localhost:9000/").refusal(under: loopback) == nil)
        #expect(try parse("http://[::1]:9000/").refusal(under: loopback) == nil)
        let remote = try #require(try parse("http://example.com/").refusal(under: loopback))
        #expect(remote.description.contains("https://"))
        #expect(try parse("https://example.com/").refusal(under: strict) == nil)
    }

    @Test("a literal address is judged when the URL is saved; a name only when it is resolved")
    func literals() throws {
        let strict = AddressPolicy()
        let refusal = try #require(try parse("https://127.0.0.1/").refusal(under: strict))
        #expect(refusal.description.contains("loopback") && refusal.description.contains("--webhook-allow-loopback"))
        #expect(try parse("https://169.254.169.254/").refusal(under: AddressPolicy(allowsPrivateNetworks: true)) != nil)
        #expect(try parse("https://10.0.0.1/").refusal(under: AddressPolicy(allowsPrivateNetworks: true)) == nil)
        #expect(try parse("https://localhost/").refusal(under: strict) == nil)  // resolved at delivery
    }
}
