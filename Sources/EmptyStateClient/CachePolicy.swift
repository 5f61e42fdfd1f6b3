import Foundation

/// How long a response may be used, from its `Cache-Control` (RFC 9111, RFC 5861).
struct CachePolicy: Sendable, Hashable, Codable {
    /// Fresh for this long after it was received (`max-age`).
    var maxAge: TimeInterval
    /// Then served while it is revalidated in the background for this long (`stale-while-revalidate`).
    var staleWhileRevalidate: TimeInterval
    /// Served when the service is unreachable or answers 5xx for this long after it went stale
    /// (`stale-if-error`).
    var staleIfError: TimeInterval

    /// The service's defaults, for a response that says nothing.
    static let `default` = CachePolicy(maxAge: 300, staleWhileRevalidate: 86_400, staleIfError: 604_800)

    /// The policy a `Cache-Control` value states; directives it lacks are 0 (`max-age` falls back
    /// to the default when the header is missing altogether).
    init(cacheControl: String?) {
        guard let cacheControl else {
            self = .default
            return
        }
        var policy = CachePolicy(maxAge: 0, staleWhileRevalidate: 0, staleIfError: 0)
        for directive in cacheControl.split(separator: ",") {
            let parts = directive.split(separator: "=", maxSplits: 1).map {
                $0.trimmingCharacters(in: .whitespaces).lowercased()
            }
            guard parts.count == 2, let seconds = TimeInterval(parts[1].trimmingCharacters(in: ["\""])) else {
                continue
            }
            switch parts[0] {
            case "max-age": policy.maxAge = seconds
            case "stale-while-revalidate": policy.staleWhileRevalidate = seconds
            case "stale-if-error": policy.staleIfError = seconds
            default: break
            }
        }
        self = policy
    }

    init(maxAge: TimeInterval, staleWhileRevalidate: TimeInterval, staleIfError: TimeInterval) {
        self.maxAge = maxAge
        self.staleWhileRevalidate = staleWhileRevalidate
        self.staleIfError = staleIfError
    }
}
