import EmptyStateCore
import EmptyStateStore
import EmptyStateWeb
import HTTPServer
import JSONCoding

/// `/v1/admin/templates`: list, read, create or replace, translate one locale, delete.
extension AdminAPI {
    func registerTemplates(on router: inout Router) {
        router.get("/v1/admin/templates", blocking: true, route(.viewer) { request, _ in try list(request) })
        router.get("/v1/admin/templates/{id}", blocking: true, route(.viewer) { request, _ in try get(request) })
        router.add(.put, "/v1/admin/templates/{id}", blocking: true, route(.editor) { try put($0, actor: $1) })
        router.add(.delete, "/v1/admin/templates/{id}", blocking: true, route(.editor) { try delete($0, actor: $1) })
        router.add(
            .put,
            "/v1/admin/templates/{id}/strings/{locale}",
            blocking: true,
            route(.editor) { try putStrings($0, actor: $1) }
        )
    }

    // MARK: - Handlers

    private func list(_ request: HTTPRequest) throws -> HTTPResponse {
        let (page, size) = try paging(request)
        let result = try store.list(page: page, pageSize: size)
        return try .json(AdminResponses.Page(result, AdminResponses.Summary.init))
    }

    private func get(_ request: HTTPRequest) throws -> HTTPResponse {
        let stored = try store.template(id: id(request))
        let strings = try store.strings(id: stored.template.id)
        if let notModified = notModified(request, revision: stored.revision) { return notModified }
        return try templateResponse(stored, status: 200, strings: strings)
    }

    private func put(_ request: HTTPRequest, actor: AdminToken) throws -> HTTPResponse {
        let id = id(request)
        let document = AdminTemplateEnvelope.document(in: try body(request))
        let template = try validate(document, id: id)
        if try validateOnly(request) {
            try store.checkConflicts(template)
            return try .json(AdminResponses.Validation(document: template.document, subject: .template))
        }
        let precondition = try writePrecondition(request, id: id, allowCreate: true)
        let (stored, created) = try store.put(template, precondition: precondition, actor: actor.name)
        try publish(stored, action: created ? "created" : "replaced", actor: actor, request: request)
        var response = try templateResponse(stored, status: created ? 201 : 200, strings: nil)
        if created { response.headers.append(("Location", "/v1/admin/templates/\(stored.template.id)")) }
        return response
    }

    private func putStrings(_ request: HTTPRequest, actor: AdminToken) throws -> HTTPResponse {
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
        guard case .object(let members) = try body(request) else { throw AdminProblems.notAnObject }
        var errors: [ProblemDetails.FieldError] = []
        for (key, value) in members {
            switch value {
            case .string, .object:
                // A text, or a plural string's object: the template's rules check both.
                continue
            default:
                errors.append(
                    .init(
                        .pointer("/" + jsonPointerToken(key)),
                        "expected a string, or a plural string's object ({\"plural\": \"count\", \"one\": …, \"other\": …}), found \(value.kindName)"
                    )
                )
            }
        }
        if !errors.isEmpty { throw AdminProblems.unprocessable(errors) }
        let expected = try expectedRevision(request, id: id)
        let stored = try store.updateStrings(id: id, expectedRevision: expected, actor: actor.name) {
            (current: Template) throws(ProblemDetails) -> Template in
            // The body replaces the locale's member of the document as it is sent, so plural
            // objects are read by the one parser every template goes through.
            guard case .object(var document) = current.document,
                let index = document.firstIndex(where: { $0.key == "strings" }),
                case .object(var locales) = document[index].value
            else {
                throw ProblemDetails(status: 500, slug: "internal", title: "Internal Server Error", detail: "")
            }
            if let position = locales.firstIndex(where: { $0.key == locale }) {
                locales[position].value = .object(members)
            } else {
                locales.append((locale, .object(members)))
            }
            document[index].value = .object(locales)
            do {
                return try validate(.object(document), id: id, bodyLocale: locale)
            } catch let problem as ProblemDetails {
                throw problem
            } catch {
                throw ProblemDetails(status: 500, slug: "internal", title: "Internal Server Error", detail: "")
            }
        }
        try publish(stored, action: "strings updated", actor: actor, request: request)
        return try templateResponse(stored, status: 200, strings: nil)
    }

    private func delete(_ request: HTTPRequest, actor: AdminToken) throws -> HTTPResponse {
        let id = id(request)
        let expected = try expectedRevision(request, id: id)
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

    // MARK: - Pieces

    /// Swaps the new catalogue in for clients and logs the change.
    func publish(_ stored: StoredTemplate, action: String, actor: AdminToken, request: HTTPRequest) throws {
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

    /// The template with its bookkeeping, its revision as the ETag.
    func templateResponse(_ stored: StoredTemplate, status: Int, strings: [StoredString]?) throws -> HTTPResponse {
        try .json(
            AdminResponses.Template(stored, strings: strings),
            status: status,
            headers: [("ETag", Self.etag(stored.revision))]
        )
    }

    /// Validates a template document; 422 lists every broken rule with its JSON pointer.
    /// - Parameter bodyLocale: when the body is one locale's strings, pointers into that locale
    ///   are given relative to the body (`/title`), the others stay document pointers.
    func validate(_ document: JSONValue, id: String, bodyLocale: String? = nil) throws -> Template {
        guard case .object = document else { throw AdminProblems.notAnObject }
        // One locale's strings replace the stored ones: a placeholder mismatch the sent default
        // locale causes is reported at the field sent, not at every locale the body left alone.
        switch TemplateParser.parse(document, expectedID: id, sentLocales: bodyLocale.map { [$0] }) {
        case .success(let template):
            if let rule = WebIconRule.violation(in: template, icons: IconSet.lucide) {
                throw AdminProblems.unprocessable([.init(.pointer(WebIconRule.pointer), rule)])
            }
            return template
        case .failure(let failure):
            let prefix = bodyLocale.map { "/strings/" + jsonPointerToken($0) }
            throw AdminProblems.unprocessable(
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
}
