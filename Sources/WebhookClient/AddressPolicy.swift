/// Which addresses a webhook may be delivered to: the guard against server-side request forgery
/// (a subscription URL that makes the service call its own network, or a cloud's metadata
/// service).
///
/// Every address a receiver's name resolves to is classified at each delivery (`WebhookTarget`),
/// and the delivery connects only to an address that was checked: a name that resolved to a
/// public address when the subscription was saved and to `127.0.0.1` later (DNS rebinding) is
/// refused then. Public addresses are allowed; loopback and private networks only when the
/// operator says so (`--webhook-allow-loopback`, `--webhook-allow-private-networks`); link-local
/// (`169.254.169.254`, the metadata service of most clouds, is one), unspecified, multicast,
/// broadcast and reserved ranges never: no receiver lives there.
package struct AddressPolicy: Sendable, Equatable {
    /// `127.0.0.0/8` and `::1` (and `http://` URLs to them).
    package var allowsLoopback: Bool
    /// RFC 1918 (`10/8`, `172.16/12`, `192.168/16`), carrier-grade NAT (`100.64/10`) and IPv6
    /// unique local (`fc00::/7`) and site-local (`fec0::/10`) addresses.
    package var allowsPrivateNetworks: Bool

    package init(allowsLoopback: Bool = false, allowsPrivateNetworks: Bool = false) {
        self.allowsLoopback = allowsLoopback
        self.allowsPrivateNetworks = allowsPrivateNetworks
    }

    /// What kind of address it is, for the decision and for the error that names it.
    package enum Range: Sendable, Equatable {
        case global
        case loopback
        /// One of the private ranges; the associated text names it (`RFC 1918`, `CGNAT` …).
        case privateNetwork(String)
        case linkLocal
        case unspecified
        case multicast
        /// Broadcast, documentation, benchmarking, protocol assignments, Teredo, discard …
        case reserved(String)

        /// How an error names the range.
        package var name: String {
            switch self {
            case .global: "a public address"
            case .loopback: "a loopback address"
            case .privateNetwork(let name): "a private address (\(name))"
            case .linkLocal: "a link-local address (cloud metadata services live there)"
            case .unspecified: "the unspecified address"
            case .multicast: "a multicast address"
            case .reserved(let name): "a reserved address (\(name))"
            }
        }
    }

    /// The range `address` is in. An IPv6 address that carries an IPv4 one (mapped, NAT64,
    /// 6to4, compatible) is in the IPv4 address's range.
    package static func range(of address: IPAddress) -> Range {
        if let v4 = address.embeddedIPv4 { return range(ofIPv4: v4) }
        switch address {
        case .v4(let value): return range(ofIPv4: value)
        case .v6(let bytes): return range(ofIPv6: bytes)
        }
    }

    private static func range(ofIPv4 a: UInt32) -> Range {
        func within(_ base: UInt32, _ bits: UInt32) -> Bool { a >> (32 - bits) == base >> (32 - bits) }
        if within(0x0000_0000, 8) { return .unspecified }  // 0.0.0.0/8, "this network"
        if within(0x7F00_0000, 8) { return .loopback }
        if within(0x0A00_0000, 8) || within(0xAC10_0000, 12) || within(0xC0A8_0000, 16) {
            return .privateNetwork("RFC 1918")
        }
        if within(0x6440_0000, 10) { return .privateNetwork("carrier-grade NAT, RFC 6598") }
        if within(0xA9FE_0000, 16) { return .linkLocal }
        if within(0xE000_0000, 4) { return .multicast }
        if a == 0xFFFF_FFFF { return .reserved("broadcast") }
        if within(0xF000_0000, 4) { return .reserved("240.0.0.0/4") }
        if within(0xC000_0000, 24) { return .reserved("IETF protocol assignments") }
        if within(0xC000_0200, 24) || within(0xC633_6400, 24) || within(0xCB00_7100, 24) {
            return .reserved("documentation")
        }
        if within(0xC612_0000, 15) { return .reserved("benchmarking") }
        if within(0xC058_6300, 24) { return .reserved("6to4 relay anycast") }
        return .global
    }

    private static func range(ofIPv6 b: [UInt8]) -> Range {
        if b.allSatisfy({ $0 == 0 }) { return .unspecified }
        if b[0..<15].allSatisfy({ $0 == 0 }) && b[15] == 1 { return .loopback }
        if b[0] == 0xFF { return .multicast }
        if b[0] == 0xFE && b[1] & 0xC0 == 0x80 { return .linkLocal }  // fe80::/10
        if b[0] == 0xFE && b[1] & 0xC0 == 0xC0 { return .privateNetwork("IPv6 site-local") }  // fec0::/10
        if b[0] & 0xFE == 0xFC { return .privateNetwork("IPv6 unique local") }  // fc00::/7
        if b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0D && b[3] == 0xB8 { return .reserved("documentation") }
        if b[0] == 0x20 && b[1] == 0x01 && b[2] == 0 && b[3] == 0 { return .reserved("Teredo") }  // 2001::/32
        if b[0] == 0x01 && b[1..<8].allSatisfy({ $0 == 0 }) { return .reserved("discard") }  // 100::/64
        if b[0] & 0xE0 != 0x20 { return .reserved("not global unicast") }  // outside 2000::/3
        return .global
    }

    /// Whether a delivery may connect to `address`.
    package func permits(_ address: IPAddress) -> Bool {
        switch Self.range(of: address) {
        case .global: true
        case .loopback: allowsLoopback
        case .privateNetwork: allowsPrivateNetworks
        case .linkLocal, .unspecified, .multicast, .reserved: false
        }
    }

    /// Why `address` is refused, naming the flag that would allow it; `nil` when it is not.
    package func refusal(_ address: IPAddress) -> String? {
        let range = Self.range(of: address)
        guard !permits(address) else { return nil }
        switch range {
        case .loopback:
            return "\(address) is \(range.name); the operator allows those with --webhook-allow-loopback"
        case .privateNetwork:
            return "\(address) is \(range.name); the operator allows those with --webhook-allow-private-networks"
        default:
            return "\(address) is \(range.name), which no webhook is delivered to"
        }
    }
}
