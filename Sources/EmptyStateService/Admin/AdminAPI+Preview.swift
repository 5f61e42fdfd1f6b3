import EmptyStateCore
import EmptyStateWeb
import HTTPServer

/// `POST /v1/admin/preview`: a draft template drawn by the web renderer (`HTMLRenderer`, the
/// markup of `/v1/web/templates/{id}` and of `<empty-state>`), in one locale (a real one, down
/// the template's fallback chain, or a pseudo-locale), for the console's live preview.
///
/// The draft need not be valid: copy too long for its lines is drawn as clients would cut it,
/// which is what an editor wants to see. A draft too broken to draw answers 422 with every rule
/// it breaks. Nothing is written; a viewer may preview.
extension AdminAPI {
    func registerPreview(on router: inout Router) {
        router.add(.post, "/v1/admin/preview", blocking: true, route(.viewer) { request, _ in try preview(request) })
    }

    private func preview(_ request: HTTPRequest) throws -> HTTPResponse {
        var errors: [ProblemDetails.FieldError] = []
        var tag: LocaleTag?
        if let text = request.queryValue("locale") {
            tag = LocaleTag(text)
            if tag == nil { errors.append(.init(.parameter("locale"), "not a well-formed BCP 47 language tag")) }
        }
        var platform = Platform.web
        if let text = request.queryValue("platform") {
            if let parsed = Platform(rawValue: text) {
                platform = parsed
            } else {
                errors.append(.init(.parameter("platform"), "must be one of ios, android, web"))
            }
        }
        var level = 3
        if let text = request.queryValue("level") {
            if text.utf8.count == 1, let parsed = Int(text), (1...6).contains(parsed) {
                level = parsed
            } else {
                errors.append(.init(.parameter("level"), "the heading level is 1, 2, 3, 4, 5 or 6"))
            }
        }
        guard errors.isEmpty else {
            throw ProblemDetails.invalidParameters(errors, detail: "A query parameter is invalid.")
        }
        let document = AdminTemplateEnvelope.document(in: try body(request))
        guard case .object = document else { throw AdminProblems.notAnObject }
        let (draft, issues) = TemplateParser.draft(document)
        guard let template = draft else {
            throw AdminProblems.unprocessable(issues.map { .init(.pointer($0.pointer), $0.rule) })
        }
        var broken = issues
        if let rule = WebIconRule.violation(in: template, icons: IconSet.lucide) {
            broken.append(ValidationIssue(WebIconRule.pointer, rule))
        }
        let locales = TemplateRenderer.localeSet(of: template)
        let locale = tag.flatMap { locales.resolve($0) } ?? locales.fallback
        let copy = TemplateRenderer.copy(of: template, in: locale)
        let html = HTMLRenderer.fragment(
            template,
            copy: copy,
            platform: platform,
            options: HTMLOptions(headingLevel: level, illustrationBaseURL: illustrationBaseURL)
        )
        return try .json(
            Preview(
                html: String(decoding: html, as: UTF8.self),
                locale: copy.locale,
                direction: copy.isRightToLeft ? "rtl" : "ltr",
                issues: broken.map { CatalogueItem.Issue(pointer: $0.pointer, rule: $0.rule) }
            )
        )
    }

    /// `Preview` in `openapi.yaml`.
    struct Preview: Encodable {
        var html: String
        var locale: String
        var direction: String
        /// The rules the draft breaks that the document alone shows (`PUT …?validateOnly=true`
        /// checks the catalogue too: ids and aliases taken by other templates).
        var issues: [CatalogueItem.Issue]
    }
}
