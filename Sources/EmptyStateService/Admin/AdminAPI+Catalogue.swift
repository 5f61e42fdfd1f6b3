import EmptyStateCore
import HTTPServer

/// `GET /v1/admin/catalogue`: the console's catalogue screen. Every live template with its
/// category, style, locales present and missing, last change and author, and lint warnings;
/// searched by id, alias and any string of any locale, filtered by category, missing locale
/// and lint, one page at a time. Answered from the served snapshot (`CatalogueIndex`), so it
/// reads no store and is as current as what clients are served.
extension AdminAPI {
    func registerCatalogue(on router: inout Router) {
        router.get("/v1/admin/catalogue", blocking: true, route(.viewer) { request, _ in try catalogue(request) })
    }

    static let maximumQueryLength = 200

    private func catalogue(_ request: HTTPRequest) throws -> HTTPResponse {
        let (page, size) = try paging(request)
        var errors: [ProblemDetails.FieldError] = []
        var query = CatalogueIndex.Query()
        if let text = request.queryValue("q") {
            if text.unicodeScalars.count > Self.maximumQueryLength {
                errors.append(.init(.parameter("q"), "at most \(Self.maximumQueryLength) characters"))
            }
            query.text = text
        }
        if let text = request.queryValue("category") {
            query.category = Template.Category(rawValue: text)
            if query.category == nil {
                let names = Template.Category.allCases.map(\.rawValue).joined(separator: ", ")
                errors.append(.init(.parameter("category"), "one of \(names)"))
            }
        }
        if let text = request.queryValue("missingLocale") {
            if let tag = LocaleTag(text), !PseudoLocale.isPseudo(tag.description) {
                query.missingLocale = tag.description
            } else {
                errors.append(.init(.parameter("missingLocale"), "a BCP 47 language tag (not a pseudo-locale)"))
            }
        }
        if let text = request.queryValue("lint") {
            if text == "true" || text == "false" {
                query.lintOnly = text == "true"
            } else {
                errors.append(.init(.parameter("lint"), "true or false"))
            }
        }
        guard errors.isEmpty else {
            throw ProblemDetails.invalidParameters(errors, detail: "A query parameter is invalid.")
        }
        let index = catalogueIndex.index(of: state.snapshot)
        let selected = index.select(query)
        let start = min((page - 1) * size, selected.count)
        let firstTerm = CatalogueIndex.terms(query.text).first
        let items = selected[start..<min(start + size, selected.count)].map { record in
            CatalogueItem(record, catalogueLocales: index.locales, term: firstTerm)
        }
        return try .json(
            CataloguePage(items: items, page: page, pageSize: size, total: selected.count, locales: index.locales)
        )
    }
}

extension AdminAPI {
    /// `CataloguePage` in `openapi.yaml`.
    struct CataloguePage: Encodable {
        var items: [CatalogueItem]
        var page: Int
        var pageSize: Int
        var total: Int
        /// Every locale of the catalogue: the choices of the missing-locale filter.
        var locales: [String]
    }

    /// `CatalogueItem`: one template as the catalogue lists it.
    struct CatalogueItem: Encodable {
        struct Issue: Encodable {
            var pointer: String
            var rule: String
        }

        struct Match: Encodable {
            var pointer: String
            var text: String
        }

        var id: String
        var aliases: [String]
        var category: String
        var style: String
        var defaultLocale: String
        /// In the default locale.
        var title: String
        var locales: [String]
        var missingLocales: [String]
        var revision: Int
        var updatedAt: String
        var updatedBy: String
        var lint: [Issue]
        /// Where the search's first term was found; absent without a search.
        var match: Match?

        init(_ record: CatalogueIndex.Record, catalogueLocales: [String], term: String?) {
            let template = record.entry.template
            id = template.id
            aliases = template.aliases
            category = template.category.rawValue
            style = template.style.rawValue
            defaultLocale = template.defaultLocale
            title = template.strings(for: template.defaultLocale)?["title"] ?? template.id
            locales = template.strings.map(\.locale)
            missingLocales = catalogueLocales.filter { template.strings(for: $0) == nil }
            revision = record.entry.revision
            updatedAt = record.entry.updatedAt
            updatedBy = record.entry.updatedBy
            lint = record.lint.map { Issue(pointer: $0.pointer, rule: $0.rule) }
            match = term.flatMap { record.firstField(holding: $0) }.map { Match(pointer: $0.pointer, text: $0.value) }
        }
    }
}
