#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An IPv4 or IPv6 address as the resolver returned it: what the SSRF guard classifies and what
/// a delivery connects to, so that the address checked is the address used.
package enum IPAddress: Sendable, Hashable, CustomStringConvertible {
    /// Four bytes, most significant first.
    case v4(UInt32)
    /// Sixteen bytes, network order.
    case v6([UInt8])

    /// Parses a literal (`192.0.2.1`, `2001:db8::1`, no brackets) with `inet_pton`: only the
    /// forms a URL's host may have. `nil` for anything else (a name).
    package init?(literal text: String) {
        var v4 = in_addr()
        var v6 = in6_addr()
        if inet_pton(AF_INET, text, &v4) == 1 {
            self = .v4(UInt32(bigEndian: v4.s_addr))
        } else if inet_pton(AF_INET6, text, &v6) == 1 {
            self = .v6(withUnsafeBytes(of: &v6) { Array($0) })
        } else {
            return nil
        }
    }

    /// The address of an `AF_INET` or `AF_INET6` socket address; `nil` for another family.
    package init?(_ address: UnsafePointer<sockaddr>) {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            let v4 = UnsafeRawPointer(address).assumingMemoryBound(to: sockaddr_in.self).pointee
            self = .v4(UInt32(bigEndian: v4.sin_addr.s_addr))
        case AF_INET6:
            var v6 = UnsafeRawPointer(address).assumingMemoryBound(to: sockaddr_in6.self).pointee.sin6_addr
            self = .v6(withUnsafeBytes(of: &v6) { Array($0) })
        default:
            return nil
        }
    }

    /// The usual text form: dotted quad, or `inet_ntop`'s compressed IPv6.
    package var description: String {
        switch self {
        case .v4(let value):
            return "\(value >> 24).\((value >> 16) & 0xFF).\((value >> 8) & 0xFF).\(value & 0xFF)"
        case .v6(let bytes):
            var address = in6_addr()
            withUnsafeMutableBytes(of: &address) { $0.copyBytes(from: bytes) }
            var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
            guard inet_ntop(AF_INET6, &address, &buffer, socklen_t(buffer.count)) != nil else { return "?" }
            return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
    }

    /// `host:port` as a log or an error shows it (`[2001:db8::1]:443`).
    package func description(port: Int) -> String {
        switch self {
        case .v4: "\(description):\(port)"
        case .v6: "[\(description)]:\(port)"
        }
    }

    /// The IPv4 address an IPv6 address carries, for the forms that reach an IPv4 host through
    /// it: IPv4-mapped (`::ffff:a.b.c.d`), IPv4-compatible (`::a.b.c.d`, deprecated), NAT64's
    /// well-known prefix (`64:ff9b::a.b.c.d`) and 6to4 (`2002:AABB:CCDD::`). The guard judges
    /// those by the IPv4 address, so `::ffff:127.0.0.1` or `64:ff9b::a9fe:a9fe` (the metadata
    /// address through NAT64) is refused as the address it leads to.
    package var embeddedIPv4: UInt32? {
        guard case .v6(let b) = self else { return nil }
        func word(_ at: Int) -> UInt32 {
            UInt32(b[at]) << 24 | UInt32(b[at + 1]) << 16 | UInt32(b[at + 2]) << 8 | UInt32(b[at + 3])
        }
        let zeroTo10 = b[0..<10].allSatisfy { $0 == 0 }
        if zeroTo10, b[10] == 0xFF, b[11] == 0xFF { return word(12) }  // ::ffff:0:0/96
        if zeroTo10, b[10] == 0, b[11] == 0, word(12) > 1 { return word(12) }  // ::/96 but :: and ::1
        if b[0] == 0x00, b[1] == 0x64, b[2] == 0xFF, b[3] == 0x9B, b[4..<12].allSatisfy({ $0 == 0 }) {
            return word(12)  // 64:ff9b::/96
        }
        if b[0] == 0x20, b[1] == 0x02 { return word(2) }  // 2002::/16
        return nil
    }
}
