/// A 64-bit FNV-1a digest of bytes, as 16 hex digits: the basis of strong ETags. Not for
/// security: it only has to change when the representation changes.
package enum ContentHash {
    package static func hex(_ bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        hash ^= UInt64(bytes.count)
        hash &*= 0x0000_0100_0000_01b3
        let text = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - text.count) + text
    }
}

/// A 128-bit digest of a template's content, from which bundle ETags are derived without
/// rendering or hashing the bundles: a bundle's bytes are a function of its locale, platform and
/// the documents of its templates, so the wrapping sum of the templates' digests names its
/// content. A publication changes the sum by one subtraction and one addition.
package struct ContentDigest: Sendable, Equatable {
    package var high: UInt64
    package var low: UInt64

    package static let zero = ContentDigest(high: 0, low: 0)

    package init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// Two independent FNV-1a lanes over `bytes` (not for security: only a change must show).
    package init(_ bytes: [UInt8]) {
        var a: UInt64 = 0xcbf2_9ce4_8422_2325
        var b: UInt64 = 0x8422_2325_cbf2_9ce4
        for byte in bytes {
            a = (a ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            b = (b ^ UInt64(byte ^ 0x5a)) &* 0x0000_0100_0000_01b3
        }
        // Finalize (splitmix64), so that sums of close lanes do not cancel out patterns.
        high = Self.mix(a ^ UInt64(bytes.count))
        low = Self.mix(b &+ UInt64(bytes.count))
    }

    package static func &+ (lhs: ContentDigest, rhs: ContentDigest) -> ContentDigest {
        let (low, carry) = lhs.low.addingReportingOverflow(rhs.low)
        return ContentDigest(high: lhs.high &+ rhs.high &+ (carry ? 1 : 0), low: low)
    }

    package static func &- (lhs: ContentDigest, rhs: ContentDigest) -> ContentDigest {
        let (low, borrow) = lhs.low.subtractingReportingOverflow(rhs.low)
        return ContentDigest(high: lhs.high &- rhs.high &- (borrow ? 1 : 0), low: low)
    }

    /// 32 hex digits.
    package var hex: String {
        func padded(_ value: UInt64) -> String {
            let text = String(value, radix: 16)
            return String(repeating: "0", count: 16 - text.count) + text
        }
        return padded(high) + padded(low)
    }

    private static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
