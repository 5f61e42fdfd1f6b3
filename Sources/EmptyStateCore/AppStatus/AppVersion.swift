/// A version of an app or an operating system, ordered as Semantic Versioning 2.0 orders versions.
///
/// Parsing is lenient in one way only: missing minor and patch parts are zero (`5`, `5.2` and
/// `5.2.0` are the same version), since app stores and OS vendors write them that way. Everything
/// else is strict SemVer: numbers without leading zeros, a pre-release after `-` (dot-separated
/// identifiers of `[0-9A-Za-z-]`, numeric ones without leading zeros), build metadata after `+`.
///
/// Equality and ordering are SemVer precedence (§11): build metadata is kept for `description`
/// but ignored, so `5.2.0+41` == `5.2.0+42`.
package struct AppVersion: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// One dot-separated pre-release identifier.
    package enum Identifier: Sendable, Hashable, Comparable {
        case numeric(UInt64)
        case alphanumeric(String)

        /// §11.4: numeric identifiers compare numerically, alphanumeric ones in ASCII order, and a
        /// numeric identifier is lower than an alphanumeric one.
        package static func < (lhs: Identifier, rhs: Identifier) -> Bool {
            switch (lhs, rhs) {
            case (.numeric(let a), .numeric(let b)): return a < b
            case (.numeric, .alphanumeric): return true
            case (.alphanumeric, .numeric): return false
            case (.alphanumeric(let a), .alphanumeric(let b)): return Array(a.utf8).lexicographicallyPrecedes(b.utf8)
            }
        }

        var text: String {
            switch self {
            case .numeric(let value): return String(value)
            case .alphanumeric(let text): return text
            }
        }
    }

    /// The longest version string accepted, and the longest one written (`description`, where
    /// the missing parts become zeros: `5+…` of 127 characters is refused, as `5.0.0+…` would be
    /// 131).
    package static let maximumLength = 128

    package let major: UInt64
    package let minor: UInt64
    package let patch: UInt64
    /// Empty for a release.
    package let preRelease: [Identifier]
    /// Dot-separated build identifiers, as written; ignored in comparisons.
    package let build: [String]

    package init(
        major: UInt64,
        minor: UInt64 = 0,
        patch: UInt64 = 0,
        preRelease: [Identifier] = [],
        build: [String] = []
    ) {
        self.major = major
        self.minor = minor
        self.patch = patch
        self.preRelease = preRelease
        self.build = build
    }

    /// Parses `text`; `nil` when it is not a version.
    package init?(_ text: String) {
        guard !text.isEmpty, text.utf8.count <= Self.maximumLength else { return nil }
        // Most versions are one to three numbers: read them from the bytes, without splitting.
        if let numbers = Self.releaseNumbers(text) {
            self.init(major: numbers.0, minor: numbers.1, patch: numbers.2)
            return
        }
        var rest = Substring(text)
        var build: [String] = []
        if let plus = rest.firstIndex(of: "+") {
            let parts = rest[rest.index(after: plus)...].split(separator: ".", omittingEmptySubsequences: false)
            guard parts.allSatisfy({ !$0.isEmpty && Self.isIdentifierText($0) }) else { return nil }
            build = parts.map(String.init)
            rest = rest[..<plus]
        }
        var preRelease: [Identifier] = []
        if let dash = rest.firstIndex(of: "-") {
            let parts = rest[rest.index(after: dash)...].split(separator: ".", omittingEmptySubsequences: false)
            for part in parts {
                guard !part.isEmpty, Self.isIdentifierText(part) else { return nil }
                if part.utf8.allSatisfy(Self.isDigit) {
                    guard let number = Self.number(part) else { return nil }
                    preRelease.append(.numeric(number))
                } else {
                    preRelease.append(.alphanumeric(String(part)))
                }
            }
            rest = rest[..<dash]
        }
        let core = rest.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...3).contains(core.count) else { return nil }
        var numbers: [UInt64] = []
        for part in core {
            guard part.utf8.allSatisfy(Self.isDigit), let number = Self.number(part) else { return nil }
            numbers.append(number)
        }
        // The parts written out must still fit (see `maximumLength`).
        guard text.utf8.count + 2 * (3 - numbers.count) <= Self.maximumLength else { return nil }
        while numbers.count < 3 { numbers.append(0) }
        self.init(major: numbers[0], minor: numbers[1], patch: numbers[2], preRelease: preRelease, build: build)
    }

    /// `major.minor.patch[-pre][+build]`, with the missing parts written as zeros.
    package var description: String {
        var text = "\(major).\(minor).\(patch)"
        if !preRelease.isEmpty { text += "-" + preRelease.map(\.text).joined(separator: ".") }
        if !build.isEmpty { text += "+" + build.joined(separator: ".") }
        return text
    }

    /// The version without build metadata: what identifies it in comparisons.
    package var precedenceText: String {
        var text = "\(major).\(minor).\(patch)"
        if !preRelease.isEmpty { text += "-" + preRelease.map(\.text).joined(separator: ".") }
        return text
    }

    package static func == (lhs: AppVersion, rhs: AppVersion) -> Bool {
        lhs.major == rhs.major && lhs.minor == rhs.minor && lhs.patch == rhs.patch && lhs.preRelease == rhs.preRelease
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(major)
        hasher.combine(minor)
        hasher.combine(patch)
        hasher.combine(preRelease)
    }

    /// §11: numbers first; a pre-release is lower than its release; pre-releases compare
    /// identifier by identifier, and a shorter list is lower when all before it are equal.
    package static func < (lhs: AppVersion, rhs: AppVersion) -> Bool {
        if lhs.major != rhs.major { return lhs.major < rhs.major }
        if lhs.minor != rhs.minor { return lhs.minor < rhs.minor }
        if lhs.patch != rhs.patch { return lhs.patch < rhs.patch }
        switch (lhs.preRelease.isEmpty, rhs.preRelease.isEmpty) {
        case (true, true), (true, false): return false
        case (false, true): return true
        case (false, false): return lhs.preRelease.lexicographicallyPrecedes(rhs.preRelease)
        }
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }

    /// The numbers of a release version (`5`, `5.2`, `5.2.0`); `nil` for anything else,
    /// including what `init?` refuses, which then takes the general path.
    private static func releaseNumbers(_ text: String) -> (UInt64, UInt64, UInt64)? {
        var numbers: (UInt64, UInt64, UInt64) = (0, 0, 0)
        var part = 0
        var value: UInt64 = 0
        var digits = 0
        var leadingZero = false
        func store() -> Bool {
            guard digits > 0, !(leadingZero && digits > 1), part < 3 else { return false }
            switch part {
            case 0: numbers.0 = value
            case 1: numbers.1 = value
            default: numbers.2 = value
            }
            part += 1
            value = 0
            digits = 0
            return true
        }
        for byte in text.utf8 {
            if isDigit(byte) {
                if digits == 0 { leadingZero = byte == 0x30 }
                let (times, overflow) = value.multipliedReportingOverflow(by: 10)
                let (sum, carry) = times.addingReportingOverflow(UInt64(byte - 0x30))
                guard !overflow, !carry else { return nil }
                value = sum
                digits += 1
            } else if byte == UInt8(ascii: ".") {
                guard store() else { return nil }
            } else {
                return nil
            }
        }
        return store() ? numbers : nil
    }

    private static func isIdentifierText(_ text: Substring) -> Bool {
        text.utf8.allSatisfy { isDigit($0) || (($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x7A) || $0 == UInt8(ascii: "-") }
    }

    /// A decimal number without leading zeros that fits 64 bits.
    private static func number(_ digits: Substring) -> UInt64? {
        guard !digits.isEmpty, digits == "0" || digits.first != "0" else { return nil }
        return UInt64(digits)
    }
}
