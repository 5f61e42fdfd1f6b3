import EmptyStateStore
import HTTPServer
import JSONCoding

/// What the admin routes read from a request besides their document: preconditions, paging,
/// `?validateOnly`, path parameters and the body. Each throws the problem to answer.
extension AdminAPI {
    static let maximumPageSize = 200
    static let defaultPageSize = 50

    /// The path's `{id}`.
    func id(_ request: HTTPRequest) -> String { request.pathParameters["id"] ?? "" }

    /// The request body as a JSON value.
    /// - Throws: 415 unless the body is `application/json`, 400 when it is not JSON.
    func body(_ request: HTTPRequest) throws -> JSONValue {
        try request.jsonBody(acceptsJSONSuffix: true, mediaTypeDetail: "Send the body as application/json.")
    }

    /// The path's `{revision}`.
    /// - Throws: 400 unless it is a positive integer.
    func revisionNumber(_ request: HTTPRequest) throws -> Int {
        guard let number = Int(request.pathParameters["revision"] ?? ""), number > 0 else {
            throw ProblemDetails.invalidParameters(
                [.init(.parameter("revision"), "not a positive integer")],
                detail: "A revision is a positive integer."
            )
        }
        return number
    }

    /// The revision a rollback body (`{"revision": 3}`) asks for.
    /// - Throws: 400 when the body is not an object, 422 unless `revision` is a positive integer.
    func rollbackTarget(_ request: HTTPRequest, subject: AdminProblems.Subject = .template) throws -> Int {
        let document = try body(request)
        guard case .object = document else { throw AdminProblems.notAnObject }
        // Int(exactly:) refuses fractions and values beyond Int (1e300 must not trap).
        guard case .number(let number)? = document["revision"], let value = Int(exactly: number), value >= 1 else {
            throw AdminProblems.unprocessable(
                [.init(.pointer("/revision"), "required: the positive integer revision to restore")],
                subject: subject
            )
        }
        return value
    }

    /// `?validateOnly=true`: check the document and write nothing.
    /// - Throws: 400 for a value other than `true` or `false`; and, when validating only, for an
    ///   `If-None-Match` other than `*`, which a write would refuse too (its revision is not read).
    func validateOnly(_ request: HTTPRequest) throws -> Bool {
        let validateOnly = request.queryValue("validateOnly")
        guard validateOnly == nil || validateOnly == "true" || validateOnly == "false" else {
            throw ProblemDetails.invalidParameters(
                [.init(.parameter("validateOnly"), "must be true or false")],
                detail: "validateOnly is true or false."
            )
        }
        if validateOnly == "true", let ifNoneMatch = request.headers["if-none-match"],
            ifNoneMatch.trimmingCharacters(in: .whitespaces) != "*"
        {
            throw AdminProblems.unsupportedIfNoneMatch
        }
        return validateOnly == "true"
    }

    /// `If-None-Match: *` → create; `If-Match: "r3"` → change revision 3; neither → 428.
    ///
    /// An `If-Match` that is not an ETag of this API can match no revision: 412, but only once `id`
    /// is known to have been a template, so an unknown id answers 404 whatever `If-Match` holds,
    /// as it does for a well-formed stale one (RFC 9110 §13.2.1: a request that would fail without
    /// its preconditions ignores them). `id` is `nil` for an app policy, which always exists.
    func writePrecondition(_ request: HTTPRequest, id: String?, allowCreate: Bool) throws -> WritePrecondition {
        let ifMatch = request.headers["if-match"]
        let ifNoneMatch = request.headers["if-none-match"]
        if allowCreate, let ifNoneMatch {
            guard ifNoneMatch.trimmingCharacters(in: .whitespaces) == "*", ifMatch == nil else {
                throw AdminProblems.unsupportedIfNoneMatch
            }
            return .absent
        }
        guard let ifMatch else { throw AdminProblems.preconditionRequired }
        let tag = ifMatch.trimmingCharacters(in: .whitespaces)
        guard tag.hasPrefix("\"r"), tag.hasSuffix("\""), let revision = Int(tag.dropFirst(2).dropLast()) else {
            if let id { _ = try store.revisions(id: id, page: 1, pageSize: 1) }  // .notFound when it never was
            throw ProblemDetails(
                status: 412,
                slug: "precondition-failed",
                title: "Precondition Failed",
                detail: "If-Match must be the ETag of the template as you read it, like \"r3\".",
                errors: [.init(.header("If-Match"), "not an ETag of this API")]
            )
        }
        return .revision(revision)
    }

    /// The revision `If-Match` names, on a write that cannot create.
    /// - Throws: 428 without `If-Match`; see `writePrecondition(_:id:allowCreate:)`.
    func expectedRevision(_ request: HTTPRequest, id: String?) throws -> Int {
        guard case .revision(let expected) = try writePrecondition(request, id: id, allowCreate: false) else {
            throw AdminProblems.preconditionRequired
        }
        return expected
    }

    /// `?page` (from 1) and `?pageSize` (1 to `maximumPageSize`, default `defaultPageSize`).
    /// - Throws: 400 naming each parameter that is out of range.
    func paging(_ request: HTTPRequest) throws -> (page: Int, size: Int) {
        var errors: [ProblemDetails.FieldError] = []
        var page = 1
        var size = Self.defaultPageSize
        if let text = request.queryValue("page") {
            // Bounded so that (page - 1) * pageSize cannot overflow.
            if let value = Int(text), (1...1_000_000).contains(value) {
                page = value
            } else {
                errors.append(.init(.parameter("page"), "an integer from 1 to 1000000"))
            }
        }
        if let text = request.queryValue("pageSize") {
            if let value = Int(text), (1...Self.maximumPageSize).contains(value) {
                size = value
            } else {
                errors.append(.init(.parameter("pageSize"), "an integer from 1 to \(Self.maximumPageSize)"))
            }
        }
        guard errors.isEmpty else {
            throw ProblemDetails.invalidParameters(errors, detail: "Paging parameters are invalid.")
        }
        return (page, size)
    }
}
