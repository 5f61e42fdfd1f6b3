import EmptyStateCore
import EmptyStateStore
import EmptyStateTranslation
import HTTPServer

/// `GET /v1/admin/translations/export`: the catalogue's strings as translators' files (XLIFF 2.0
/// or 1.2, a String Catalog, Android `strings.xml`), for one target locale or all of them.
///
/// One file is answered as itself (`fr.xlf`, `Localizable.xcstrings`); several (XLIFF for every
/// locale, an Android `res/` tree with its `values/strings.xml`) as a ZIP archive of the files
/// under the names tools expect. A viewer token is enough: exporting changes nothing.
extension AdminAPI {
    func registerTranslationExport(on router: inout Router) {
        router.get(
            "/v1/admin/translations/export",
            blocking: true,
            route(.viewer) { request, _ in try exportTranslations(request) }
        )
    }

    private func exportTranslations(_ request: HTTPRequest) throws -> HTTPResponse {
        let snapshots = try translations.snapshots()
        let query = try TranslationExportQuery(request, knownIDs: Set(snapshots.map(\.template.id)))
        let exportedAt = Timestamp.now()
        let locales =
            query.targetLocale.map { [$0] }
            ?? TranslationExport.targetLocales(in: snapshots, sourceLocale: query.sourceLocale)
        guard !locales.isEmpty else {
            throw ProblemDetails.invalidParameters(
                [.init(.parameter("locale"), "the catalogue has no locale besides \(query.sourceLocale): name one")],
                detail: "There is no target locale to export; name the locale to start translating into (?locale=fr)."
            )
        }
        let documents = locales.map {
            TranslationExport.document(
                snapshots,
                sourceLocale: query.sourceLocale,
                targetLocale: $0,
                selection: query.selection,
                exportedAt: exportedAt
            )
        }
        let files = query.format.write(documents)
        let units = documents.reduce(0) { $0 + $1.units.count }
        var headers: [(name: String, value: String)] = [
            ("Cache-Control", "no-store"), ("X-Translation-Units", "\(units)"),
        ]
        if files.count == 1, let file = files.first {
            headers.append(("Content-Type", query.format.mediaType))
            headers.append(
                (
                    "Content-Disposition",
                    Self.attachment(file.path.split(separator: "/").last.map(String.init) ?? file.path)
                )
            )
            return HTTPResponse(status: 200, headers: headers, body: .bytes(file.bytes))
        }
        let archive = ZIPArchive.archive(files.map { ($0.path, $0.bytes) }, modified: exportedAt)
        let name = "translations-\(query.format.rawValue)-\(query.targetLocale ?? "all").zip"
        headers.append(("Content-Type", "application/zip"))
        headers.append(("Content-Disposition", Self.attachment(name)))
        return HTTPResponse(status: 200, headers: headers, body: .bytes(archive))
    }

    /// `attachment; filename="fr.xlf"`: the names are ours (locale tags, format names), never
    /// a quote or a control character.
    static func attachment(_ name: String) -> String { "attachment; filename=\"\(name)\"" }
}

/// What an export asks for, from its query.
struct TranslationExportQuery {
    var format: TranslationFormat
    var sourceLocale: String
    /// `nil`: every locale of the catalogue but the source.
    var targetLocale: String?
    var selection: TranslationSelection

    /// - Parameter knownIDs: the catalogue's template ids, which `ids` must name.
    /// - Throws: 400 `invalid-parameter` naming each parameter that is wrong.
    init(_ request: HTTPRequest, knownIDs: Set<String>) throws {
        var errors: [ProblemDetails.FieldError] = []
        format = .xliff2
        if let text = request.queryValue("format") {
            if let format = TranslationFormat(rawValue: text) {
                self.format = format
            } else {
                errors.append(.init(.parameter("format"), Self.formats))
            }
        }
        sourceLocale = "en"
        if let text = request.queryValue("sourceLocale") {
            if let tag = LocaleTag(text), !PseudoLocale.isPseudo(tag.description) {
                sourceLocale = tag.description
            } else {
                errors.append(.init(.parameter("sourceLocale"), "not a BCP 47 language tag of the catalogue's copy"))
            }
        }
        targetLocale = nil
        if let text = request.queryValue("locale"), text != "all" {
            if let tag = LocaleTag(text), !PseudoLocale.isPseudo(tag.description) {
                if tag.description == sourceLocale {
                    errors.append(.init(.parameter("locale"), "the source locale is not translated into itself"))
                } else {
                    targetLocale = tag.description
                }
            } else {
                errors.append(
                    .init(.parameter("locale"), "a BCP 47 language tag (pseudo-locales are generated), or all")
                )
            }
        }
        var ids: Set<String>?
        if let text = request.queryValue("ids") {
            let names = text.split(separator: ",", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            let unknown = names.filter { !knownIDs.contains($0) }
            if names.isEmpty || !unknown.isEmpty {
                errors.append(
                    .init(
                        .parameter("ids"),
                        "no template has the id \(unknown.map { "\"\($0)\"" }.joined(separator: ", "))"
                    )
                )
            } else {
                ids = Set(names)
            }
        }
        var category: Template.Category?
        if let text = request.queryValue("category") {
            category = Template.Category(rawValue: text)
            if category == nil {
                errors.append(
                    .init(
                        .parameter("category"),
                        "must be one of \(Template.Category.allCases.map(\.rawValue).joined(separator: ", "))"
                    )
                )
            }
        }
        var onlyMissingOrStale = false
        switch request.queryValue("onlyMissingOrStale") {
        case nil, "false": break
        case "true": onlyMissingOrStale = true
        default: errors.append(.init(.parameter("onlyMissingOrStale"), "must be true or false"))
        }
        guard errors.isEmpty else {
            throw ProblemDetails.invalidParameters(errors, detail: "A query parameter of the export is invalid.")
        }
        selection = TranslationSelection(ids: ids, category: category, onlyMissingOrStale: onlyMissingOrStale)
    }

    static let formats = "must be one of \(TranslationFormat.allCases.map(\.rawValue).joined(separator: ", "))"
}
