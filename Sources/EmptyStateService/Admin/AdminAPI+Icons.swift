import EmptyStateWeb
import Foundation
import HTTPServer

/// `GET /v1/admin/icons?q=&limit=&svg=`: the web icon set, so an editor can choose a name a
/// template's `visual.icon.web` may use (any other is refused with 422).
extension AdminAPI {
    func registerIcons(on router: inout Router) {
        // Blocking like every admin route: a console session is read from the store.
        router.get("/v1/admin/icons", blocking: true, route(.viewer) { request, _ in try icons(request) })
    }

    /// `{"total": <names matching>, "icons": [{"name", "svg"?}]}`, names that start with the
    /// first word first.
    private func icons(_ request: HTTPRequest) throws -> HTTPResponse {
        let query = request.queryValue("q") ?? ""
        var errors: [ProblemDetails.FieldError] = []
        var limit = 100
        if let text = request.queryValue("limit") {
            if let value = Int(text), (1...2000).contains(value) {
                limit = value
            } else {
                errors.append(.init(.parameter("limit"), "an integer from 1 to 2000"))
            }
        }
        let svg = request.queryValue("svg")
        if let svg, svg != "true", svg != "false" { errors.append(.init(.parameter("svg"), "must be true or false")) }
        if query.utf8.count > 100 { errors.append(.init(.parameter("q"), "at most 100 characters")) }
        if !errors.isEmpty { throw ProblemDetails.invalidParameters(errors, detail: "A query parameter is invalid.") }
        let names = IconSet.lucide.search(query)
        let icons = names.prefix(limit).map { name in
            AdminResponses.Icon(name: name, svg: svg == "true" ? IconSet.lucide.svg(named: name) : nil)
        }
        return try .json(AdminResponses.IconList(total: names.count, icons: Array(icons)))
    }
}

extension AdminResponses {
    struct IconList: Encodable {
        let total: Int
        let icons: [Icon]
    }

    struct Icon: Encodable {
        let name: String
        let svg: String?
    }
}
