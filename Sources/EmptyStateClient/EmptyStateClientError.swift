/// Why ``EmptyStateClient/template(_:parameters:)`` could give no template.
public struct EmptyStateClientError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Kind: Hashable, Sendable {
        case unknownTemplate(String)
        case invalidRequest(String)
        case unavailable(String)
        case previewRefused(String)
    }

    private let kind: Kind

    /// The service does not know this id or alias (404), and no snapshot has it.
    public static func unknownTemplate(_ id: String) -> Self { Self(kind: .unknownTemplate(id)) }
    /// The service refused the request (400): a malformed locale or placeholder name.
    static func invalidRequest(_ detail: String) -> Self { Self(kind: .invalidRequest(detail)) }
    /// The service could not be reached or failed, and no usable copy was cached or bundled.
    static func unavailable(_ detail: String) -> Self { Self(kind: .unavailable(detail)) }

    /// The service refused the preview token (401): unknown, revoked, expired, or its change
    /// request is no longer open. Ask an editor for a new one.
    static func previewRefused(_ detail: String) -> Self { Self(kind: .previewRefused(detail)) }

    /// Whether the preview token was refused (revoked, expired, or its change request closed).
    public var isPreviewRefused: Bool {
        if case .previewRefused = kind { return true }
        return false
    }

    /// Whether the template does not exist (as opposed to not being reachable).
    public var isUnknownTemplate: Bool {
        if case .unknownTemplate = kind { return true }
        return false
    }

    /// What went wrong, for logs (not for users: the template's own copy is what users read).
    public var description: String {
        switch kind {
        case .unknownTemplate(let id): return "unknown template \(id)"
        case .invalidRequest(let detail): return "invalid request: \(detail)"
        case .unavailable(let detail): return "service unavailable and nothing cached: \(detail)"
        case .previewRefused(let detail): return "preview token refused: \(detail)"
        }
    }
}
