import Testing
import WebhookClient

/// The guard's classification of addresses: every range the SSRF rules name, IPv6 forms that
/// carry an IPv4 address, and what each operator setting allows.
@Suite("AddressPolicy: which addresses a webhook may reach")
struct AddressPolicyTests {
    private func range(_ text: String) throws -> AddressPolicy.Range {
        AddressPolicy.range(of: try #require(IPAddress(literal: text), "\(text) parses"))
    }

    @Test(
        "ranges of IPv4 addresses",
        arguments: [
            ("8.8.8.8", AddressPolicy.Range.global), ("1.1.1.1", .global), ("172.32.0.1", .global),
            ("100.128.0.1", .global), ("127.0.0.1", .loopback), ("127.255.255.254", .loopback),
            ("10.1.2.3", .privateNetwork("RFC 1918")), ("172.16.0.1", .privateNetwork("RFC 1918")),
            ("172.31.255.255", .privateNetwork("RFC 1918")), ("192.168.1.1", .privateNetwork("RFC 1918")),
            ("100.64.0.1", .privateNetwork("carrier-grade NAT, RFC 6598")),
            ("100.127.255.255", .privateNetwork("carrier-grade NAT, RFC 6598")), ("169.254.169.254", .linkLocal),
            ("0.0.0.0", .unspecified), ("0.1.2.3", .unspecified), ("224.0.0.1", .multicast),
            ("239.255.255.250", .multicast), ("255.255.255.255", .reserved("broadcast")),
            ("240.0.0.1", .reserved("240.0.0.0/4")), ("192.0.2.10", .reserved("documentation")),
            ("198.18.0.1", .reserved("benchmarking")),
        ]
    )
    func ipv4(_ text: String, _ expected: AddressPolicy.Range) throws {
        #expect(try range(text) == expected)
    }

    @Test(
        "ranges of IPv6 addresses, and of the IPv4 addresses some of them carry",
        arguments: [
            ("2606:4700:4700::1111", AddressPolicy.Range.global), ("::1", .loopback), ("::", .unspecified),
            ("fe80::1", .linkLocal), ("fd00::1", .privateNetwork("IPv6 unique local")),
            ("fc12:3456::1", .privateNetwork("IPv6 unique local")), ("fec0::1", .privateNetwork("IPv6 site-local")),
            ("ff02::1", .multicast), ("2001:db8::1", .reserved("documentation")), ("2001::1", .reserved("Teredo")),
            // IPv4-mapped, NAT64 and 6to4 forms are judged by the IPv4 address they lead to.
            ("::ffff:127.0.0.1", .loopback), ("::ffff:169.254.169.254", .linkLocal),
            ("64:ff9b::a9fe:a9fe", .linkLocal), ("64:ff9b::808:808", .global),
            ("2002:0a00:0001::1", .privateNetwork("RFC 1918")), ("::ffff:8.8.8.8", .global),
        ]
    )
    func ipv6(_ text: String, _ expected: AddressPolicy.Range) throws {
        #expect(try range(text) == expected)
    }

    @Test("the operator's settings: loopback and private networks each by their flag, the rest never")
    func settings() throws {
        let strict = AddressPolicy()
        let loopback = AddressPolicy(allowsLoopback: true)
        let both = AddressPolicy(allowsLoopback: true, allowsPrivateNetworks: true)
        let address = { (text: String) in IPAddress(literal: text)! }
        #expect(strict.permits(address("93.184.216.34")))
        #expect(!strict.permits(address("127.0.0.1")) && loopback.permits(address("127.0.0.1")))
        #expect(!loopback.permits(address("10.0.0.1")) && both.permits(address("10.0.0.1")))
        #expect(!both.permits(address("169.254.169.254")) && !both.permits(address("0.0.0.0")))
        #expect(!both.permits(address("fe80::1")) && !both.permits(address("224.0.0.1")))
        let refusal = try #require(strict.refusal(address("127.0.0.1")))
        #expect(refusal.contains("--webhook-allow-loopback"))
        let metadata = try #require(both.refusal(address("169.254.169.254")))
        #expect(metadata.contains("link-local") && !metadata.contains("--webhook-allow"))
    }

    @Test("addresses print as they are written, with a port")
    func printing() throws {
        #expect(IPAddress(literal: "10.0.0.1")!.description(port: 443) == "10.0.0.1:443")
        #expect(IPAddress(literal: "2001:DB8::1")!.description(port: 8443) == "[2001:db8::1]:8443")
        #expect(IPAddress(literal: "example.com") == nil)
    }
}
