import EmptyStateCore
import EmptyStateStore
import HTTPServer
import JSONCoding
import Logging

/// `/v1/admin`: ops create, edit, translate, delete and roll back templates. Every change is a
/// revision in the store and is published to clients before the response is sent.
struct AdminAPI: Sendable {
    let store: any TemplateStoring
    let state: CatalogueState
    let authorization: AdminAuthorization
    let logger: Logger

    static let maximumPageSize = 200
    static let defaultPageSize = 50

    func register(on router: inout Router) {
        registerAppPolicies(on: &router)
        router.get("/v1/admin/templates", blocking: true) { request in
            authorization.guarded(request, .viewer) { _ in list(request) }
        }
        router.get("/v1/admin/templates/{id}", blocking: true) { request in
            authorization.guarded(request, .viewer) { _ in get(request) }
        }
        router.add(.put, "/v1/admin/templates/{id}", blocking: true) { request in
            authorization.guarded(request, .editor) { put(request, actor: $0) }
        }
        router.add(.delete, "/v1/admin/templates/{id}", blocking: true) { request in
            authorization.guarded(request, .editor) { delete(request, actor: $0) }
        }
        router.add(.put, "/v1/admin/templates/{id}/strings/{locale}", blocking: true) { request in
            authorization.guarded(request, .editor) { putStrings(request, actor: $0) }
        }
        router.get("/v1/admin/templates/{id}/revisions", blocking: true) { request in
            authorization.guarded(request, .viewer) { _ in revisions(request) }
        }
        router.get("/v1/admin/templates/{id}/revisions/{revision}", blocking: true) { request in
            authorization.guarded(request, .viewer) { _ in revision(request) }
        }
        router.add(.post, "/v1/admin/templates/{id}/rollback", blocking: true) { request in
            authorization.guarded(request, .editor) { rollback(request, actor: $0) }
        }
        router.get("/v1/admin/locales", blocking: true) { request in
            authorization.guarded(request, .viewer) { _ in locales(request) }
        }
        router.get("/v1/admin/audit", blocking: true) { request in
            authorization.guarded(request, .viewer) { _ in audit(request) }
        }
    }

    // MARK: - Handlers

    private func list(_ request: HTTPRequest) -> HTTPResponse {
        respond(request) {
            let (page, size) = try paging(request)
            let result = try store.list(page: page, pageSize: size)
            return json(200) { writer in
                writePage(result, into: &writer) { summary, writer in
                    writer.beginObject()
                    writer.member("id", summary.id)
                    writer.key("revision")
                    writer.int(summary.revision)
                    writer.member("updatedAt", summary.updatedAt)
                    writer.member("updatedBy", summary.updatedBy)
                    writer.endObject()
                }
            }
        }
    }

    private func get(_ request: HTTPRequest) -> HTTPResponse {
        respond(request) {
            let stored = try store.template(id: id(request))
            let strings = try store.strings(id: stored.template.id)
            if let condition = request.headers["if-none-match"],
                ConditionalRequests.noneMatch(condition, matches: Self.etag(stored.revision))
            {
                return HTTPResponse(
                    status: 304,
                    headers: [("ETag", Self.etag(stored.revision)), ("Cache-Control", "no-store")]
                )
            }
            return templateResponse(stored, status: 200, strings: strings)
        }
    }

    private func put(_ request: HTTPRequest, actor: AdminToken) -> HTTPResponse {
        respond(request) {
            let id = id(request)
            let document = try body(request)
            let template = try validate(document, id: id)
            if try validateOnly(request) {
                try store.checkConflicts(template)
                return json(200) { writer in
                    writer.beginObject()
                    writer.key("valid")
                    writer.bool(true)
                    writer.key("template")
                    writer.value(template.document)
                    writer.endObject()
                }
            }
            let precondition = try writePrecondition(request, id: id, allowCreate: true)
            let (stored, created) = try store.put(template, precondition: precondition, actor: actor.name)
            try publish(stored, action: created ? "created" : "replaced", actor: actor, request: request)
            var response = templateResponse(stored, status: created ? 201 : 200, strings: nil)
            if created { response.headers.append(("Location", "/v1/admin/templates/\(stored.template.id)")) }
            return response
        }
    }

    private func putStrings(_ request: HTTPRequest, actor: AdminToken) -> HTTPResponse {
        respond(request) {
            let id = id(request)
            let localeText = request.pathParameters["locale"] ?? ""
            guard let tag = LocaleTag(localeText), !PseudoLocale.isPseudo(tag.description) else {
                throw ProblemDetails.invalidParameters(
                    [
                        .init(
                            .parameter("locale"),
                            "not a well-formed BCP 47 language tag (pseudo-locales are generated)"
                        )
                    ],
                    detail: "The locale in the path is not a BCP 47 tag that can be written."
                )
            }
            let locale = tag.description
            guard case .object(let members) = try body(request) else { throw notAnObject }
            var values: [String: String] = [:]
            var errors: [ProblemDetails.FieldError] = []
            for (key, value) in members {
                if case .string(let text) = value {
                    values[key] = text
                } else {
                    errors.append(
                        .init(.pointer("/" + jsonPointerToken(key)), "expected a string, found \(value.kindName)")
                    )
                }
            }
            if !errors.isEmpty { throw unprocessable(errors) }
            guard case .revision(let expected) = try writePrecondition(request, id: id, allowCreate: false) else {
                throw preconditionRequired
            }
            let stored = try store.updateStrings(id: id, expectedRevision: expected, actor: actor.name) {
                (current: Template) throws(ProblemDetails) -> Template in
                var next = current
                if let index = next.strings.firstIndex(where: { $0.locale == locale }) {
                    next.strings[index].values = values
                } else {
                    next.strings.append((locale, values))
                }
                do {
                    return try validate(next.document, id: id, bodyLocale: locale)
                } catch let problem as ProblemDetails {
                    throw problem
                } catch {
                    throw ProblemDetails(status: 500, slug: "internal", title: "Internal Server Error", detail: "")
                }
            }
            try publish(stored, action: "strings updated", actor: actor, request: request)
            return templateResponse(stored, status: 200, strings: nil)
        }
    }

    private func delete(_ request: HTTPRequest, actor: AdminToken) -> HTTPResponse {
        respond(request) {
            let id = id(request)
            guard case .revision(let expected) = try writePrecondition(request, id: id, allowCreate: false) else {
                throw preconditionRequired
            }
            let revision = try store.delete(id: id, expectedRevision: expected, actor: actor.name)
            try state.publish(.remove(id: id, revision: revision), store: store)
            logger.notice(
                "template deleted",
                metadata: [
                    "template.id": "\(id)", "template.revision": "\(revision)", "admin.actor": "\(actor.name)",
                    "request.id": "\(request.id)",
                ]
            )
            return HTTPResponse(status: 204, headers: [("ETag", Self.etag(revision))])
        }
    }

    private func revisions(_ request: HTTPRequest) -> HTTPResponse {
        respond(request) {
            let (page, size) = try paging(request)
            let result = try store.revisions(id: id(request), page: page, pageSize: size)
            return json(200) { writer in
                writePage(result, into: &writer) { record, writer in writeRevision(record, into: &writer) }
            }
        }
    }

    private func revision(_ request: HTTPRequest) -> HTTPResponse {
        respond(request) {
            guard let number = Int(request.pathParameters["revision"] ?? ""), number > 0 else {
                throw ProblemDetails.invalidParameters(
                    [.init(.parameter("revision"), "not a positive integer")],
                    detail: "A revision is a positive integer."
                )
            }
            let record = try store.revision(id: id(request), number: number)
            return json(200) { writer in writeRevision(record, into: &writer) }
        }
    }

    private func rollback(_ request: HTTPRequest, actor: AdminToken) -> HTTPResponse {
        respond(request) {
            let document = try body(request)
            guard case .object = document else { throw notAnObject }
            // Int(exactly:) refuses fractions and values beyond Int (1e300 must not trap).
            guard case .number(let number)? = document["revision"], let value = Int(exactly: number), value >= 1 else {
                throw unprocessable([.init(.pointer("/revision"), "required: the positive integer revision to restore")]
                )
            }
            var expected: Int?
            if request.headers["if-match"] != nil {
                guard case .revision(let revision) = try writePrecondition(request, id: id(request), allowCreate: false)
                else {
                    throw preconditionRequired
                }
                expected = revision
            }
            let stored = try store.rollback(
                id: id(request),
                to: value,
                expectedRevision: expected,
                actor: actor.name
            )
            try publish(stored, action: "rolled back to revision \(value)", actor: actor, request: request)
            return templateResponse(stored, status: 200, strings: nil)
        }
    }

    private func locales(_ request: HTTPRequest) -> HTTPResponse {
        respond(request) {
            let templates = try store.liveTemplates().map(\.template)
            var locales: [String] = []
            for template in templates {
                for entry in template.strings where !locales.contains(entry.locale) { locales.append(entry.locale) }
            }
            return json(200) { writer in
                writer.beginObject()
                writer.key("locales")
                writer.beginArray()
                for locale in locales {
                    var present = 0
                    var required = 0
                    var complete = 0
                    var missing: [(String, [String])] = []
                    for template in templates {
                        let keys = template.requiredKeys
                        let have = template.strings(for: locale) ?? [:]
                        let absent = keys.filter { have[$0] == nil }
                        required += keys.count
                        present += keys.count - absent.count
                        if absent.isEmpty { complete += 1 } else { missing.append((template.id, absent)) }
                    }
                    writer.beginObject()
                    writer.member("locale", locale)
                    writer.key("templates")
                    writer.int(templates.count)
                    writer.key("completeTemplates")
                    writer.int(complete)
                    writer.key("completeness")
                    writer.value(
                        .number(required == 0 ? 1 : (Double(present) / Double(required) * 1000).rounded() / 1000)
                    )
                    writer.key("missing")
                    writer.beginArray()
                    for (id, keys) in missing {
                        writer.beginObject()
                        writer.member("templateId", id)
                        writer.key("keys")
                        writer.beginArray()
                        for key in keys { writer.string(key) }
                        writer.endArray()
                        writer.endObject()
                    }
                    writer.endArray()
                    writer.endObject()
                }
                writer.endArray()
                writer.endObject()
            }
        }
    }

    private func audit(_ request: HTTPRequest) -> HTTPResponse {
        respond(request) {
            let (page, size) = try paging(request)
            var documentID = request.queryValue("templateId")
            if let text = request.queryValue("appPolicy") {
                guard let platform = Platform(rawValue: text), documentID == nil else {
                    throw ProblemDetails.invalidParameters(
                        [
                            .init(
                                .parameter("appPolicy"),
                                documentID == nil
                                    ? "must be one of ios, android, web" : "give templateId or appPolicy, not both"
                            )
                        ],
                        detail: "A query parameter is invalid."
                    )
                }
                documentID = TemplateStore.documentID(of: platform)
            }
            let result = try store.audit(page: page, pageSize: size, templateID: documentID)
            return json(200) { writer in
                writePage(result, into: &writer) { record, writer in writeRevision(record, into: &writer) }
            }
        }
    }

    // MARK: - Shared pieces

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
            throw Self.unsupportedIfNoneMatch
        }
        return validateOnly == "true"
    }

    /// 400 for an `If-None-Match` other than `*` (or with `If-Match`) on a write.
    static let unsupportedIfNoneMatch = ProblemDetails.invalidHeader(
        "If-None-Match",
        "only * is supported",
        detail: "To create, send If-None-Match: * and no If-Match."
    )

    /// What a store error is about: the problem names it.
    enum Subject {
        case template, appPolicy

        var noun: String { self == .template ? "template" : "app policy" }
    }

    /// Maps every error of the admin API to its response, in one place.
    /// - Parameter subject: what the request's document is (named in store errors).
    func respond(
        _ request: HTTPRequest,
        subject: Subject = .template,
        _ body: () throws -> HTTPResponse
    ) -> HTTPResponse {
        do {
            return try body()
        } catch let problem as ProblemDetails {
            return problem.response(requestID: request.id)
        } catch let error as StoreError {
            return Self.problem(for: error, request: request, logger: logger, subject: subject)
        } catch {
            logger.error("admin request failed", metadata: ["request.id": "\(request.id)", "error": "\(error)"])
            return ProblemDetails(
                status: 500,
                slug: "internal",
                title: "Internal Server Error",
                detail: "The request failed; the log has the details under this request id."
            ).response(requestID: request.id)
        }
    }

    static func problem(
        for error: StoreError,
        request: HTTPRequest,
        logger: Logger,
        subject: Subject = .template
    ) -> HTTPResponse {
        switch error {
        case .notFound(let platform) where subject == .appPolicy:
            return ProblemDetails(
                status: 404,
                slug: "unknown-app-policy",
                title: "Unknown App Policy",
                detail: "There is no app policy for \"\(platform)\"; PUT one with If-None-Match: * to create it.",
                errors: [.init(.parameter("platform"), "no policy yet")]
            ).response(requestID: request.id)
        case .notFound(let id):
            return ProblemDetails(
                status: 404,
                slug: "unknown-template",
                title: "Unknown Template",
                detail: "There is no template \"\(id)\".",
                errors: [.init(.parameter("id"), "no such template")]
            ).response(requestID: request.id)
        case .deleted(let id, let revision):
            return ProblemDetails(
                status: 404,
                slug: "template-deleted",
                title: "Template Deleted",
                detail:
                    "\"\(id)\" was deleted at revision \(revision); POST …/rollback with an earlier revision restores it.",
                errors: [.init(.parameter("id"), "deleted at revision \(revision)")]
            ).response(requestID: request.id, extraHeaders: [("ETag", etag(revision))])
        case .alreadyExists(let id, let revision):
            return ProblemDetails(
                status: 412,
                slug: "precondition-failed",
                title: "Precondition Failed",
                detail:
                    "If-None-Match: * asks to create \"\(id)\", but it exists at revision \(revision); replace it with If-Match.",
                errors: [.init(.header("If-None-Match"), "the \(subject.noun) exists")]
            ).response(requestID: request.id, extraHeaders: [("ETag", etag(revision))])
        case .stale(let id, let current):
            return ProblemDetails(
                status: 412,
                slug: "precondition-failed",
                title: "Precondition Failed",
                detail:
                    "\"\(id)\" changed since you read it: it is at revision \(current). Fetch it again and reapply your change.",
                errors: [.init(.header("If-Match"), "stale; current ETag is \(etag(current))")]
            ).response(requestID: request.id, extraHeaders: [("ETag", etag(current))])
        case .noSuchRevision(let id, let revision):
            return ProblemDetails(
                status: 404,
                slug: "unknown-revision",
                title: "Unknown Revision",
                detail: "\"\(id)\" has no revision \(revision).",
                // GET …/revisions/{n} names it in the path; rollback in the body.
                errors: [
                    .init(
                        request.method == .get || request.method == .head
                            ? .parameter("revision") : .pointer("/revision"),
                        "no such revision"
                    )
                ]
            ).response(requestID: request.id)
        case .conflicts(let conflicts):
            return ProblemDetails(
                status: 422,
                slug: "validation-failed",
                title: "Unprocessable Content",
                detail: "The change cannot be applied as it is; see errors.",
                errors: conflicts.map { .init(.pointer($0.pointer), $0.rule) }
            ).response(requestID: request.id)
        case .busy:
            return ProblemDetails(
                status: 503,
                slug: "store-busy",
                title: "Service Unavailable",
                detail:
                    "The store was busy with another write for too long; nothing was changed. Send the request again."
            ).response(requestID: request.id, extraHeaders: [("Retry-After", "1")])
        case .unavailable(let message):
            logger.error("store unreachable", metadata: ["request.id": "\(request.id)", "error": "\(message)"])
            return ProblemDetails(
                status: 503,
                slug: "store-unavailable",
                title: "Service Unavailable",
                detail:
                    "The database cannot be reached; nothing was changed. Clients are still served the last published catalogue. Send the request again later."
            ).response(requestID: request.id, extraHeaders: [("Retry-After", "2")])
        case .database(let message):
            logger.error("store failure", metadata: ["request.id": "\(request.id)", "error": "\(message)"])
            return ProblemDetails(
                status: 500,
                slug: "internal",
                title: "Internal Server Error",
                detail: "The store failed; nothing was changed. The log has the details under this request id."
            ).response(requestID: request.id)
        }
    }

    /// Swaps the new catalogue in for clients and logs the change.
    private func publish(_ stored: StoredTemplate, action: String, actor: AdminToken, request: HTTPRequest) throws {
        try state.publish(.upsert(stored), store: store)
        logger.notice(
            "template published",
            metadata: [
                "template.id": "\(stored.template.id)", "template.revision": "\(stored.revision)",
                "admin.action": "\(action)",
                "admin.actor": "\(actor.name)", "request.id": "\(request.id)",
            ]
        )
    }

    func id(_ request: HTTPRequest) -> String { request.pathParameters["id"] ?? "" }

    /// The request body as a JSON value.
    /// - Throws: 415 unless the body is `application/json`, 400 when it is not JSON.
    func body(_ request: HTTPRequest) throws -> JSONValue {
        try request.jsonBody(acceptsJSONSuffix: true, mediaTypeDetail: "Send the body as application/json.")
    }

    var notAnObject: ProblemDetails {
        ProblemDetails(
            status: 400,
            slug: "invalid-json",
            title: "Bad Request",
            detail: "The body must be a JSON object.",
            errors: [.init(.pointer(""), "expected an object")]
        )
    }

    var preconditionRequired: ProblemDetails {
        ProblemDetails(
            status: 428,
            slug: "precondition-required",
            title: "Precondition Required",
            detail: "Send If-Match with the ETag you read (or If-None-Match: * to create), so changes are not lost.",
            errors: [.init(.header("If-Match"), "required")]
        )
    }

    func unprocessable(_ errors: [ProblemDetails.FieldError], subject: Subject = .template) -> ProblemDetails {
        ProblemDetails(
            status: 422,
            slug: "validation-failed",
            title: "Unprocessable Content",
            detail: errors.count == 1
                ? "The \(subject.noun) breaks a rule." : "The \(subject.noun) breaks \(errors.count) rules.",
            errors: errors
        )
    }

    /// Validates a template document; 422 lists every broken rule with its JSON pointer.
    /// - Parameter bodyLocale: when the body is one locale's strings, pointers into that locale
    ///   are given relative to the body (`/title`), the others stay document pointers.
    private func validate(_ document: JSONValue, id: String, bodyLocale: String? = nil) throws -> Template {
        guard case .object = document else { throw notAnObject }
        switch TemplateParser.parse(document, expectedID: id) {
        case .success(let template): return template
        case .failure(let failure):
            let prefix = bodyLocale.map { "/strings/" + jsonPointerToken($0) }
            throw unprocessable(
                failure.issues.map { issue in
                    var pointer = issue.pointer
                    if let prefix, pointer.hasPrefix(prefix + "/") || pointer == prefix {
                        pointer = String(pointer.dropFirst(prefix.count))
                    }
                    return .init(.pointer(pointer), issue.rule)
                }
            )
        }
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
                throw Self.unsupportedIfNoneMatch
            }
            return .absent
        }
        guard let ifMatch else { throw preconditionRequired }
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
            throw ProblemDetails.invalidParameters(
                errors,
                detail: "Paging parameters are invalid."
            )
        }
        return (page, size)
    }

    static func etag(_ revision: Int) -> String { "\"r\(revision)\"" }

    func json(
        _ status: Int,
        headers: [(name: String, value: String)] = [],
        _ write: (inout JSONWriter) -> Void
    ) -> HTTPResponse {
        var writer = JSONWriter(capacity: 2048)
        write(&writer)
        return HTTPResponse(
            status: status,
            headers: [("Content-Type", "application/json; charset=utf-8"), ("Cache-Control", "no-store")] + headers,
            body: .bytes(writer.bytes)
        )
    }

    private func templateResponse(_ stored: StoredTemplate, status: Int, strings: [StoredString]?) -> HTTPResponse {
        json(status, headers: [("ETag", Self.etag(stored.revision))]) { writer in
            writer.beginObject()
            writer.member("id", stored.template.id)
            writer.key("revision")
            writer.int(stored.revision)
            writer.member("updatedAt", stored.updatedAt)
            writer.member("updatedBy", stored.updatedBy)
            writer.key("template")
            writer.value(stored.template.document)
            if let strings {
                writer.key("stringUpdates")
                writer.beginArray()
                for string in strings {
                    writer.beginObject()
                    writer.member("locale", string.locale)
                    writer.member("key", string.key)
                    writer.member("updatedAt", string.updatedAt)
                    writer.member("updatedBy", string.updatedBy)
                    writer.endObject()
                }
                writer.endArray()
            }
            writer.endObject()
        }
    }

    func writePage<Item>(
        _ page: Page<Item>,
        into writer: inout JSONWriter,
        item: (Item, inout JSONWriter) -> Void
    ) {
        writer.beginObject()
        writer.key("items")
        writer.beginArray()
        for element in page.items { item(element, &writer) }
        writer.endArray()
        writer.key("page")
        writer.int(page.page)
        writer.key("pageSize")
        writer.int(page.pageSize)
        writer.key("total")
        writer.int(page.total)
        writer.endObject()
    }

    /// One revision of a template, or of an app policy (`appPolicy` and `policy` instead of
    /// `templateId` and `template`).
    func writeRevision(_ record: RevisionRecord, into writer: inout JSONWriter) {
        let platform = TemplateStore.appPolicyPlatform(documentID: record.templateID)
        writer.beginObject()
        if let platform {
            writer.member("appPolicy", platform.rawValue)
        } else {
            writer.member("templateId", record.templateID)
        }
        writer.key("revision")
        writer.int(record.revision)
        writer.member("action", record.action.rawValue)
        writer.member("createdAt", record.createdAt)
        writer.member("createdBy", record.createdBy)
        writer.key("changedFields")
        writer.beginArray()
        for field in record.changedFields { writer.string(field) }
        writer.endArray()
        if let document = record.document {
            writer.key(platform == nil ? "template" : "policy")
            writer.value(document)
        }
        writer.endObject()
    }
}
