import JSONCoding

extension HTTPRequest {
    /// The body parsed as JSON.
    /// - Parameters:
    ///   - acceptsJSONSuffix: also accept `application/<anything>+json` (RFC 6839).
    ///   - mediaTypeDetail: the 415's `detail`, saying what to send.
    /// - Throws: 415 `unsupported-media-type` unless the content type is JSON; 400 `invalid-json`
    ///   naming the byte offset when the body is not JSON.
    package func jsonBody(acceptsJSONSuffix: Bool, mediaTypeDetail: String) throws(ProblemDetails) -> JSONValue {
        let type = headers["content-type"]?.split(separator: ";").first?.trimmingCharacters(in: .whitespaces)
            .lowercased()
        let accepted =
            type == "application/json"
            || (acceptsJSONSuffix && type.map { $0.hasPrefix("application/") && $0.hasSuffix("+json") } == true)
        guard accepted else {
            throw ProblemDetails(
                status: 415,
                slug: "unsupported-media-type",
                title: "Unsupported Media Type",
                detail: mediaTypeDetail,
                errors: [.init(.header("Content-Type"), "must be application/json")]
            )
        }
        do {
            return try JSONParser.parse(body)
        } catch {
            throw ProblemDetails(
                status: 400,
                slug: "invalid-json",
                title: "Bad Request",
                detail: "The body is not JSON: \(error.description).",
                errors: [.init(.pointer(""), error.description)]
            )
        }
    }
}
