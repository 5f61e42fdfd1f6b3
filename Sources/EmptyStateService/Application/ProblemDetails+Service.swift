import HTTPServer

extension ProblemTypeNamespace {
    /// The service's problem types, `urn:empty-state:problem:<slug>`: part of its contract
    /// (`openapi.yaml` lists each slug), for the HTTP layer's own refusals as for the service's.
    static let emptyState = ProblemTypeNamespace(prefix: "urn:empty-state:problem:")
}

extension ProblemDetails {
    /// The problem as the service sends it: an `application/problem+json` response that must not
    /// be cached, its type in the service's namespace.
    func response(requestID: String, extraHeaders: [(name: String, value: String)] = []) -> HTTPResponse {
        response(requestID: requestID, in: .emptyState, extraHeaders: extraHeaders)
    }
}
