/// Where browsers reach the service (`--public-url`): the origin the console's requests come
/// from, and whether they come over TLS.
///
/// The service cannot tell by itself: behind a proxy that terminates TLS it sees plain HTTP, and
/// an `X-Forwarded-Proto` header is whatever the client (or any proxy on the way) wrote, unless
/// the service knew which proxies to trust. An operator's setting cannot be forged by a request.
/// Without it, the console works over plain HTTP only (the cookie is not `Secure`) and a change
/// must come from `http://` and the request's own `Host`.
package struct PublicOrigin: Sendable, Equatable {
    /// `https://console.example.com` or `http://127.0.0.1:8080`, as browsers write `Origin`:
    /// lowercase, without a default port, path or trailing slash.
    package let origin: String
    package var isSecure: Bool { origin.hasPrefix("https://") }

    /// Reads a public URL: `http` or `https`, a host, an optional port, and nothing after them
    /// but an optional `/` (the console is served at `/admin/` of that origin).
    /// - Returns: `nil` when the text is not such a URL.
    package init?(url text: String) {
        let lowered = text.lowercased()
        let scheme: String
        if lowered.hasPrefix("https://") {
            scheme = "https"
        } else if lowered.hasPrefix("http://") {
            scheme = "http"
        } else {
            return nil
        }
        var rest = Substring(lowered.dropFirst(scheme.count + 3))
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        guard !rest.isEmpty,
            rest.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-.:[]".contains($0)) })
        else { return nil }
        var host = rest
        var port: Int?
        if let colon = rest.lastIndex(of: ":"), !rest[colon...].contains("]") {
            guard let value = Int(rest[rest.index(after: colon)...]), (1...65535).contains(value) else { return nil }
            host = rest[..<colon]
            port = value
        }
        guard !host.isEmpty, !host.hasPrefix("."), !host.hasPrefix("-") else { return nil }
        let isDefault = (scheme == "https" && port == 443) || (scheme == "http" && port == 80)
        origin = scheme + "://" + host + (port.map { isDefault ? "" : ":" + String($0) } ?? "")
    }
}
