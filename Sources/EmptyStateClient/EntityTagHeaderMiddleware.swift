import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Sends `If-None-Match` and `If-Match` as entity tags, not percent-encoded.
///
/// swift-openapi-generator's client percent-encodes header values (it writes them as URI
/// components), so `"r3"` leaves as `%22r3%22`. An entity tag is not a URI component (RFC 9110
/// §8.8.3): the service compares it byte for byte, so revalidation would never get a 304 and every
/// conditional admin write would get 412. This middleware restores the entity tags the caller
/// gave before the request is sent. The service does not guess: `%22r3%22` is not an entity tag.
/// A client generated from `openapi.yaml` by swift-openapi-generator should pass this middleware
/// (`Client(…, middlewares: [EntityTagHeaderMiddleware()])`); ``EmptyStateClient`` always does.
public struct EntityTagHeaderMiddleware: ClientMiddleware {
    public init() {}

    public func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        for name in [HTTPField.Name.ifNoneMatch, .ifMatch] {
            guard let value = request.headerFields[name], value.contains("%") else { continue }
            request.headerFields[name] = value.removingPercentEncoding ?? value
        }
        return try await next(request, body, baseURL)
    }
}
