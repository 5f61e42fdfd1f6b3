import JSONCoding

/// How the `type` of a problem is made from its slug: RFC 9457 wants a URI that names the kind of
/// problem, and which URIs those are is the application's to say (`urn:example:problem:` +
/// `not-found`). The HTTP layer names none of its own: its refusals (400 for a query it cannot
/// parse, 404, 405, 413, 503 while shutting down) use the namespace the application configures
/// (`HTTPServerConfiguration.problemTypes`).
package struct ProblemTypeNamespace: Sendable, Equatable {
    /// What each slug is appended to; `nil`: every type is `about:blank`.
    package let prefix: String?

    /// Types `prefix` + slug.
    package init(prefix: String) {
        self.prefix = prefix
    }

    private init() {
        prefix = nil
    }

    /// `about:blank` for every problem, RFC 9457's type for a problem the status code says all
    /// about (§4.2.1): the default of a server whose application named no namespace.
    package static let blank = ProblemTypeNamespace()

    /// The `type` URI of the problem `slug`.
    package func type(of slug: String) -> String {
        prefix.map { $0 + slug } ?? "about:blank"
    }
}

/// An RFC 9457 problem document, the body of every error a server of this module sends.
package struct ProblemDetails: Error, Sendable {
    /// One field-level reason: which parameter, header or body member, and what is wrong with it.
    package struct FieldError: Sendable, Equatable {
        package enum Location: Sendable, Equatable {
            case parameter(String)
            case header(String)
            /// A JSON pointer into the request body.
            case pointer(String)
        }

        package var location: Location?
        package var detail: String
        /// Where in a body that is a file rather than JSON (an uploaded translation file): its
        /// line and column, 1-based.
        package var line: Int?
        package var column: Int?

        package init(_ location: Location?, _ detail: String, line: Int? = nil, column: Int? = nil) {
            self.location = location
            self.detail = detail
            self.line = line
            self.column = column
        }
    }

    package var status: Int
    /// A stable identifier such as `not-found`; the `type` is it in a namespace
    /// (`ProblemTypeNamespace`).
    package var slug: String
    package var title: String
    package var detail: String
    package var errors: [FieldError]
    /// Members of this problem type beside the standard ones (RFC 9457 §3.2), written after them
    /// in this order (a conflict's `conflicts`).
    package var extensions: [(key: String, value: JSONValue)]

    package init(
        status: Int,
        slug: String,
        title: String,
        detail: String,
        errors: [FieldError] = [],
        extensions: [(key: String, value: JSONValue)] = []
    ) {
        self.status = status
        self.slug = slug
        self.title = title
        self.detail = detail
        self.errors = errors
        self.extensions = extensions
    }

    /// 400 `invalid-parameter`: one or more query or path parameters are wrong, each with its reason.
    package static func invalidParameters(_ errors: [FieldError], detail: String) -> ProblemDetails {
        ProblemDetails(status: 400, slug: "invalid-parameter", title: "Bad Request", detail: detail, errors: errors)
    }

    /// 400 `invalid-header`: the request header `name` is wrong, for `reason`.
    package static func invalidHeader(_ name: String, _ reason: String, detail: String) -> ProblemDetails {
        ProblemDetails(
            status: 400,
            slug: "invalid-header",
            title: "Bad Request",
            detail: detail,
            errors: [.init(.header(name), reason)]
        )
    }

    /// The problem as an `application/problem+json` response that must not be cached, its `type`
    /// the slug in `namespace`.
    package func response(
        requestID: String,
        in namespace: ProblemTypeNamespace,
        extraHeaders: [(name: String, value: String)] = []
    ) -> HTTPResponse {
        var writer = JSONWriter(capacity: 256)
        writer.beginObject()
        writer.member("type", namespace.type(of: slug))
        writer.member("title", title)
        writer.key("status")
        writer.int(status)
        writer.member("detail", detail)
        writer.member("requestId", requestID)
        if !errors.isEmpty {
            writer.key("errors")
            writer.beginArray()
            for error in errors {
                writer.beginObject()
                writer.member("detail", error.detail)
                switch error.location {
                case .parameter(let name): writer.member("parameter", name)
                case .header(let name): writer.member("header", name)
                case .pointer(let pointer): writer.member("pointer", pointer)
                case nil: break
                }
                if let line = error.line {
                    writer.key("line")
                    writer.int(line)
                }
                if let column = error.column {
                    writer.key("column")
                    writer.int(column)
                }
                writer.endObject()
            }
            writer.endArray()
        }
        for (key, value) in extensions {
            writer.key(key)
            writer.value(value)
        }
        writer.endObject()
        return HTTPResponse(
            status: status,
            headers: [("Content-Type", "application/problem+json"), ("Cache-Control", "no-store")] + extraHeaders,
            body: .bytes(writer.bytes)
        )
    }
}
