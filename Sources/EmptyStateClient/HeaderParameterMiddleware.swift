import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Sends the header parameters of `openapi.yaml` as the caller gave them, not percent-encoded.
///
/// swift-openapi-generator's client percent-encodes header values (it writes them as URI
/// components), so `"r3"` leaves as `%22r3%22`. An entity tag is not a URI component (RFC 9110
/// §8.8.3): the service compares it byte for byte, so revalidation would never get a 304 and every
/// conditional admin write would get 412. This middleware restores the entity tags the caller
/// gave before the request is sent. The service does not guess: `%22r3%22` is not an entity tag.
/// The same holds for every other header the contract's operations take as a parameter:
/// `Accept-Language` (`fr, en;q=0.9` would leave as `fr%2C%20en%3Bq%3D0.9`), `X-Installed-At`
/// (an RFC 3339 time's colons), `X-Install-ID`, `X-App-Version` (`5.2.0+431`) and
/// `X-Preview-Token`: the runtime encodes each, so decoding gives back exactly what the caller
/// passed. A client generated from `openapi.yaml` by swift-openapi-generator should pass this
/// middleware (`Client(…, middlewares: [HeaderParameterMiddleware()])`); ``EmptyStateClient``
/// always does.
public struct HeaderParameterMiddleware: ClientMiddleware {
    public init() {}

    /// The headers `openapi.yaml` declares as operation parameters.
    static let parameterHeaders: [HTTPField.Name] = [
        .ifNoneMatch, .ifMatch, .acceptLanguage,
        HTTPField.Name("X-Install-ID")!, HTTPField.Name("X-App-Version")!, HTTPField.Name("X-Installed-At")!,
        HTTPField.Name("X-Preview-Token")!,
    ]

    public func intercept(
        _ request: HTTPRequest,
        body: HTTPBody?,
        baseURL: URL,
        operationID: String,
        next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?)
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var request = request
        for name in Self.parameterHeaders {
            guard let value = request.headerFields[name], value.contains("%") else { continue }
            request.headerFields[name] = value.removingPercentEncoding ?? value
        }
        return try await next(request, body, baseURL)
    }
}

/// The former name of ``HeaderParameterMiddleware``, from when it restored only the entity tags.
@available(*, deprecated, renamed: "HeaderParameterMiddleware")
public typealias EntityTagHeaderMiddleware = HeaderParameterMiddleware
