/// A receiver's URL, parsed strictly: `https://host[:port][/path][?query]`, or `http://` to a
/// loopback receiver when the operator allows loopback (`AddressPolicy.allowsLoopback`).
///
/// Strict because the guard against request forgery judges the host it parsed, and the
/// connection must go where the guard looked: no user info (`https://trusted@127.0.0.1/` reads
/// differently to different parsers), no fragment, no whitespace or control characters, ASCII
/// only (an internationalized host name is written in its `xn--` form), at most 2,048 bytes.
package struct WebhookURL: Sendable, Equatable, CustomStringConvertible {
    package var isHTTPS: Bool
    /// Lowercased; an IPv6 literal without its brackets; a trailing dot removed.
    package var host: String
    package var port: Int
    /// The request target: the path (`/` when empty) and the query as written.
    package var target: String
    /// The URL as given.
    package var description: String

    /// The host when it is an address literal, `nil` for a name.
    package var literalAddress: IPAddress? { IPAddress(literal: host) }

    /// The `Host` header: the host (bracketed when IPv6) and the port unless it is the scheme's.
    package var hostHeader: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return port == (isHTTPS ? 443 : 80) ? name : "\(name):\(port)"
    }

    /// The longest URL accepted, in bytes.
    package static let maximumLength = 2048

    /// Parses `text`.
    /// - Returns: the URL, or the rule it breaks (for a problem naming the field).
    package static func parse(_ text: String) -> Result<WebhookURL, Refusal> {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty else { return .failure(.init("required: the receiver's https:// URL")) }
        guard bytes.count <= maximumLength else {
            return .failure(.init("longer than \(maximumLength) bytes"))
        }
        guard bytes.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            return .failure(
                .init("has spaces, control or non-ASCII characters (percent-encode them; write a host name as xn--)")
            )
        }
        let lower = text.lowercased()
        let isHTTPS: Bool
        let rest: Substring
        if lower.hasPrefix("https://") {
            isHTTPS = true
            rest = text.dropFirst(8)
        } else if lower.hasPrefix("http://") {
            isHTTPS = false
            rest = text.dropFirst(7)
        } else {
            return .failure(.init("must be an https:// URL"))
        }
        guard !rest.contains("#") else { return .failure(.init("must not have a fragment (#…)")) }
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        var target = String(rest[authorityEnd...])
        if target.isEmpty || target.hasPrefix("?") { target = "/" + target }
        guard !authority.contains("@") else {
            return .failure(.init("must not have user information (user:password@): the signature authenticates"))
        }
        let host: Substring
        var portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else {
                return .failure(.init("has an IPv6 address without its closing ]"))
            }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let after = authority[authority.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { return .failure(.init("has characters after the IPv6 address")) }
                portText = after.dropFirst()
            }
            guard case .v6? = IPAddress(literal: String(host)) else {
                return .failure(.init("has an invalid IPv6 address in brackets"))
            }
        } else if authority.filter({ $0 == ":" }).count > 1 {
            return .failure(.init("has an IPv6 address without brackets (write https://[2001:db8::1]/)"))
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            host = authority
        }
        var port = isHTTPS ? 443 : 80
        if let portText {
            guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy(\.isASCII),
                portText.allSatisfy(\.isNumber), let value = Int(portText), (1...65535).contains(value)
            else {
                return .failure(.init("has an invalid port (1 to 65535)"))
            }
            port = value
        }
        var name = host.lowercased()
        if name.hasSuffix("."), name.count > 1 { name.removeLast() }
        guard !name.isEmpty else { return .failure(.init("has no host")) }
        if !authority.hasPrefix("["), IPAddress(literal: name) == nil, let problem = hostNameProblem(name) {
            return .failure(.init(problem))
        }
        return .success(
            WebhookURL(isHTTPS: isHTTPS, host: name, port: port, target: target, description: text)
        )
    }

    /// Why `name` is not a DNS host name (letters, digits, hyphens and underscores in labels of
    /// 1 to 63 characters, 253 in all); `nil` when it is one.
    private static func hostNameProblem(_ name: String) -> String? {
        guard name.utf8.count <= 253 else { return "has a host name longer than 253 characters" }
        for label in name.split(separator: ".", omittingEmptySubsequences: false) {
            guard (1...63).contains(label.utf8.count) else { return "has an empty or over-long label in its host name" }
            guard
                label.utf8.allSatisfy({ $0.isASCIILetterOrDigit || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_") })
            else {
                return "has a character that no host name has (letters, digits, - and _ only)"
            }
        }
        return nil
    }

    /// Why a URL is refused: one rule, said the way a problem's `errors` say it.
    package struct Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        package var description: String

        package init(_ description: String) { self.description = description }
    }

    /// Whether the URL may be saved under `policy`, judged from the URL alone: `https://` always;
    /// `http://` only to a loopback host (`localhost` or a loopback literal) and only when the
    /// operator allows loopback; a literal address only when the policy permits it. (Names are
    /// judged by the addresses they resolve to, at each delivery: `WebhookTarget`.)
    package func refusal(under policy: AddressPolicy) -> Refusal? {
        if let address = literalAddress, let why = policy.refusal(address) { return Refusal("refused: \(why)") }
        if !isHTTPS {
            let loopbackHost =
                host == "localhost" || host.hasSuffix(".localhost")
                || literalAddress.map { AddressPolicy.range(of: $0) == .loopback } == true
            guard policy.allowsLoopback, loopbackHost else {
                return Refusal(
                    policy.allowsLoopback
                        ? "must be an https:// URL (plain http:// only to localhost or a loopback address)"
                        : "must be an https:// URL (plain http:// only to a loopback receiver, when the operator allows loopback with --webhook-allow-loopback)"
                )
            }
        }
        return nil
    }
}

extension UInt8 {
    fileprivate var isASCIILetterOrDigit: Bool {
        (0x30...0x39).contains(self) || (0x41...0x5A).contains(self) || (0x61...0x7A).contains(self)
    }
}
