import EmptyStateCore
import EmptyStateStore
import EmptyStateTranslation
import Foundation
import HTTPServer
import Synchronization

/// `POST /v1/admin/translations/import`: a translated file back into the catalogue. A dry run by
/// default, which reports per template and string what the file would change; `?dryRun=false`
/// writes it.
///
/// **One revision per changed template, each atomic on its own.** A file's strings belong to
/// many templates, and each template is a document with its own revision and `If-Match`; the
/// store has no transaction across documents on both backends, and a file-wide lock would hold
/// every writer back for the whole import. So each template is written in its own transaction
/// with the revision the plan read as its precondition: an edit made meanwhile makes that
/// template's write fail (`conflict`, nothing of it written) and leaves the others. A file
/// applied in part is completed by importing it again: what was written is `unchanged` then,
/// which is also why importing the same file twice writes nothing. Edits made since the export
/// itself are caught string by string (`changedSinceExport`, `sourceChanged`), from the file's
/// export time and source text: finer than one revision per template, which any edit of
/// another locale would have failed.
extension AdminAPI {
    func registerTranslationImport(on router: inout Router) {
        let authorization = authorization
        router.add(
            .post,
            "/v1/admin/translations/import",
            blocking: true,
            // Its own limit, checked with the head; and without an editor token the file is
            // never read: only callers who may import are offered the larger limit.
            body: BodyPolicy(maxBytes: importLimits.maximumBytes) { request in
                authorization.refusal(request, needs: .editor)
            },
            route(.editor) { try importTranslations($0, actor: $1) }
        )
    }

    private func importTranslations(_ request: HTTPRequest, actor: AdminToken) throws -> HTTPResponse {
        let query = try TranslationImportQuery(request)
        // An empty body is most often a file the client could not read: curl sends nothing for
        // `--data-binary @missing.xml` and only warns. Say so, rather than that the format is unknown.
        guard !request.body.isEmpty else {
            throw ProblemDetails(
                status: 400,
                slug: "invalid-translation-file",
                title: "Bad Request",
                detail:
                    "The request has no body: send the file itself as the body (curl sends nothing, with only a warning, when --data-binary @FILE names a file it cannot read).",
                errors: [.init(nil, "empty body")]
            )
        }
        guard let format = query.format ?? TranslationImportQuery.sniff(request.body) else {
            throw ProblemDetails.invalidParameters(
                [.init(.parameter("format"), TranslationExportQuery.formats)],
                detail: "The file's format cannot be told from its first bytes; name it with ?format=."
            )
        }
        guard importLimits.begin() else {
            throw ProblemDetails(
                status: 503,
                slug: "import-busy",
                title: "Service Unavailable",
                detail: "Another translation file is being imported on this server; send this one again shortly."
            )
        }
        defer { importLimits.end() }

        // Read before the file only when the file needs it (Android names bare `%1$s` from the
        // store): a file that cannot be read costs no store read.
        var byID = format == .android ? try catalogueByID() : [:]
        let documents: [TranslationDocument]
        do {
            documents = try format.read(
                request.body,
                path: query.fileName,
                placeholderNames: { id in
                    // A bare `%1$s` of an Android file is named by the store's source string.
                    guard let template = byID[id.template]?.template,
                        let source = template.strings(for: template.defaultLocale)?[id.key]
                    else { return nil }
                    return AndroidEscaping.placeholderOrder(source: source, target: nil)
                },
                limits: XMLReader.Limits(maximumBytes: importLimits.maximumBytes)
            )
        } catch {
            throw Self.unreadable(error, format: format)
        }
        if format != .android { byID = try catalogueByID() }
        let (plans, matches) = try plan(documents, templates: byID, createLocales: query.createLocales)
        var importer = TranslationImporter(plans: plans, templates: byID)
        func report() -> TranslationImportReport {
            importer.report(
                fileName: query.fileName,
                format: format,
                dryRun: query.dryRun,
                strict: query.strict,
                documents: documents,
                locales: matches
            )
        }
        if query.strict, importer.hasRejections {
            return try Self.strictFailure(
                report(),
                status: 422,
                slug: "translation-strings-rejected",
                title: "Unprocessable Content",
                detail:
                    "The import is strict and \(report().summary.rejected) string(s) of the file are refused: nothing was written. The report says why, string by string.",
                request: request
            )
        }
        if !query.dryRun {
            if query.strict {
                if let conflict = try applyAtOnce(&importer, actor: actor, request: request, note: query.fileName) {
                    return try Self.strictFailure(
                        report(),
                        status: 409,
                        slug: "translation-import-conflict",
                        title: "Conflict",
                        detail:
                            "The import is strict and \(conflict) changed after the file was planned: nothing was written. Import the file again.",
                        request: request
                    )
                }
            } else {
                try importer.apply { id, write in
                    let stored = try store.updateStrings(
                        id: id,
                        expectedRevision: write.baseRevision,
                        actor: actor.name,
                        note: "imported from \(query.fileName)",
                        marks: write.storeMarks
                    ) { (_: Template) throws(StoreError) -> Template in write.template }
                    try publish(stored, action: "translations imported", actor: actor, request: request)
                    return stored.revision
                }
            }
            logger.notice(
                "translations imported",
                metadata: [
                    "import.file": "\(query.fileName)", "import.format": "\(format.rawValue)",
                    "import.strict": "\(query.strict)",
                    "import.revisions": "\(importer.revisionsWritten)",
                    "import.conflicts": "\(importer.conflicts.count)",
                    "admin.actor": "\(actor.name)", "request.id": "\(request.id)",
                ]
            )
        }
        return try .json(report())
    }

    /// Plans each document against the catalogue's locale its own resolves to.
    /// - Throws: 422 `unknown-locale` naming each target locale the catalogue does not have (and
    ///   `createLocales` was not given); 400 for a document that cannot be planned at all.
    private func plan(
        _ documents: [TranslationDocument],
        templates: [String: TemplateSnapshot],
        createLocales: Bool
    ) throws -> (plans: [ImportPlan], matches: [TranslationImportReport.LocaleMatch]) {
        var locales: Set<String> = []
        for snapshot in templates.values {
            locales.insert(snapshot.template.defaultLocale)
            for entry in snapshot.template.strings { locales.insert(entry.locale) }
        }
        var plans: [ImportPlan] = []
        var matches: [TranslationImportReport.LocaleMatch] = []
        var unknown: [String] = []
        for document in documents {
            let sourceLocale = LocaleTag(document.sourceLocale).flatMap {
                LocaleResolution.resolve($0, among: locales).locale
            }
            let match: TranslationImportReport.LocaleMatch
            guard let tag = LocaleTag(document.targetLocale), !PseudoLocale.isPseudo(tag.description) else {
                // The planner says why (a pseudo-locale is generated, never imported).
                plans.append(try planOne(document, templates: templates, locale: nil, sourceLocale: sourceLocale))
                continue
            }
            switch TranslationImportQuery.resolve(tag, among: locales, createLocales: createLocales) {
            case .some(let found):
                match = found
            case nil:
                unknown.append(tag.description)
                continue
            }
            matches.append(match)
            plans.append(
                try planOne(document, templates: templates, locale: match.locale, sourceLocale: sourceLocale)
            )
        }
        guard unknown.isEmpty else {
            let known = locales.sorted().joined(separator: ", ")
            throw ProblemDetails(
                status: 422,
                slug: "unknown-locale",
                title: "Unprocessable Content",
                detail:
                    "The file translates into \(unknown.joined(separator: ", ")), which the catalogue does not have (its locales: \(known)). Fix the file's locale, or import with createLocales=true to add it.",
                errors: unknown.map {
                    .init(
                        .parameter("createLocales"),
                        "\($0) is not a locale of the catalogue, nor an alias or regional form of one"
                    )
                }
            )
        }
        return (plans, matches)
    }

    private func planOne(
        _ document: TranslationDocument,
        templates: [String: TemplateSnapshot],
        locale: String?,
        sourceLocale: String?
    ) throws -> ImportPlan {
        do {
            return try ImportPlanner.plan(document, templates: templates, locale: locale, sourceLocale: sourceLocale)
        } catch {
            throw ProblemDetails(
                status: 400,
                slug: "invalid-translation-file",
                title: "Bad Request",
                detail: "The file cannot be imported: \(error.message).",
                errors: [.init(nil, error.message)]
            )
        }
    }

    /// A strict import's writes, every template in one transaction: all written, or none.
    /// - Returns: `nil` when written; the template that changed since the plan when nothing was.
    private func applyAtOnce(
        _ importer: inout TranslationImporter,
        actor: AdminToken,
        request: HTTPRequest,
        note fileName: String
    ) throws -> String? {
        let writes = importer.orderedWrites
        guard !writes.isEmpty else { return nil }
        let stored: [StoredTemplate]
        do {
            stored = try store.write { edits in
                try writes.map { id, write in
                    try edits.updateStrings(
                        id: id,
                        expectedRevision: write.baseRevision,
                        actor: actor.name,
                        note: "imported from \(fileName)",
                        marks: write.storeMarks
                    ) { (_: Template) throws(StoreError) -> Template in write.template }
                }
            }
        } catch let error as StoreError {
            switch error {
            case .stale(let id, _), .deleted(let id, _), .notFound(let id):
                if importer.recordConflict(error, id: id) { return id }
                throw error
            default:
                throw error
            }
        }
        for template in stored {
            try publish(template, action: "translations imported", actor: actor, request: request)
        }
        importer.recordWritten(Dictionary(uniqueKeysWithValues: stored.map { ($0.template.id, $0.revision) }))
        return nil
    }

    /// A strict import's failure: a problem (`status`, `slug`) whose `report` member is the import's
    /// report, so a script sees which strings failed and why, as the dry run shows them.
    private static func strictFailure(
        _ report: TranslationImportReport,
        status: Int,
        slug: String,
        title: String,
        detail: String,
        request: HTTPRequest
    ) throws -> HTTPResponse {
        var errors: [ProblemDetails.FieldError] = []
        for template in report.templates {
            for string in template.strings where string.outcome == "rejected" {
                for reason in string.reasons ?? [] {
                    errors.append(
                        .init(
                            nil,
                            "\(template.templateId)/\(string.key) (\(string.locale)): \(reason.reason): \(reason.detail)"
                        )
                    )
                }
            }
            if let detail = template.detail { errors.append(.init(nil, detail)) }
        }
        var response = ProblemDetails(status: status, slug: slug, title: title, detail: detail, errors: errors)
            .response(requestID: request.id)
        // The problem's members, then `report`: the body is a JSON object, so its last byte closes it.
        guard case .bytes(var body) = response.body, body.last == UInt8(ascii: "}") else { return response }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        body.removeLast()
        body.append(contentsOf: Array(",\"report\":".utf8))
        body.append(contentsOf: Array(try encoder.encode(report)))
        body.append(UInt8(ascii: "}"))
        response.body = .bytes(body)
        return response
    }

    /// The served templates with their string stamps, by id.
    private func catalogueByID() throws -> [String: TemplateSnapshot] {
        Dictionary(uniqueKeysWithValues: try translations.snapshots().map { ($0.template.id, $0) })
    }

    /// The 400 for a file a reader refused: where (line and column, the unit) and why.
    private static func unreadable(_ error: TranslationFormatError, format: TranslationFormat) -> ProblemDetails {
        var where_ = ""
        if let line = error.line {
            where_ = error.column.map { " at line \(line), column \($0)" } ?? " at line \(line)"
        }
        if let unit = error.unitID { where_ += " (unit \(unit))" }
        return ProblemDetails(
            status: 400,
            slug: "invalid-translation-file",
            title: "Bad Request",
            detail: "The file is not a \(format.rawValue) file this service can read\(where_): \(error.message).",
            errors: [.init(nil, error.message, line: error.line, column: error.column)]
        )
    }
}

/// What an import asks for, from its query.
struct TranslationImportQuery {
    /// `nil`: told from the file's first bytes (`sniff`).
    var format: TranslationFormat?
    var dryRun: Bool
    /// `strict=true`: one refused string fails the whole import (422, nothing written), and the
    /// templates are written in one transaction (all or nothing).
    var strict: Bool
    /// `createLocales=true`: a target locale the catalogue does not have is added (after CLDR's
    /// alias: `fre-FR` is created as `fr-FR`), rather than refused; no regional form is then
    /// matched with its language.
    var createLocales: Bool
    /// For the revisions' note, and Android's locale folder (`values-fr/strings.xml`).
    var fileName: String

    /// The media types a translation file may be sent as.
    static let mediaTypes: Set<String> = [
        "application/xliff+xml", "application/x-xliff+xml", "application/xml", "text/xml", "application/json",
        "application/octet-stream",
    ]

    /// - Throws: 400 naming each wrong parameter; 415 for a body sent as anything but a file.
    init(_ request: HTTPRequest) throws {
        let type = request.headers["content-type"]?.split(separator: ";").first?
            .trimmingCharacters(in: .whitespaces).lowercased()
        guard let type, Self.mediaTypes.contains(type) else {
            throw ProblemDetails(
                status: 415,
                slug: "unsupported-media-type",
                title: "Unsupported Media Type",
                detail:
                    "Send the file itself as the body, as application/xliff+xml, application/xml, application/json or application/octet-stream (not a form).",
                errors: [
                    .init(.header("Content-Type"), "must be one of \(Self.mediaTypes.sorted().joined(separator: ", "))")
                ]
            )
        }
        var errors: [ProblemDetails.FieldError] = []
        format = nil
        if let text = request.queryValue("format") {
            format = TranslationFormat(rawValue: text)
            if format == nil { errors.append(.init(.parameter("format"), TranslationExportQuery.formats)) }
        }
        dryRun = true
        switch request.queryValue("dryRun") {
        case nil, "true": break
        case "false": dryRun = false
        default: errors.append(.init(.parameter("dryRun"), "must be true or false"))
        }
        strict = false
        switch request.queryValue("strict") {
        case nil, "false": break
        case "true": strict = true
        default: errors.append(.init(.parameter("strict"), "must be true or false"))
        }
        createLocales = false
        switch request.queryValue("createLocales") {
        case nil, "false": break
        case "true": createLocales = true
        default: errors.append(.init(.parameter("createLocales"), "must be true or false"))
        }
        fileName = request.queryValue("fileName") ?? "upload"
        if fileName.isEmpty || fileName.utf8.count > 255
            || fileName.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) })
        {
            errors.append(.init(.parameter("fileName"), "1 to 255 bytes, no control characters"))
        }
        guard errors.isEmpty else {
            throw ProblemDetails.invalidParameters(errors, detail: "A query parameter of the import is invalid.")
        }
    }

    /// The catalogue's locale a file's target locale `tag` goes to (`LocaleResolution`), as the
    /// report says it; `nil` when the catalogue has none and `createLocales` is not given.
    static func resolve(
        _ tag: LocaleTag,
        among locales: Set<String>,
        createLocales: Bool
    ) -> TranslationImportReport.LocaleMatch? {
        let resolution: LocaleResolution
        if createLocales {
            // Only the same language under another code is matched; anything else is created.
            let aliased = LocaleAliases.replacingLanguage(of: tag) ?? tag
            if locales.contains(tag.description) {
                resolution = .exact(tag.description)
            } else if aliased.description != tag.description {
                resolution = .alias(from: tag.description, to: aliased.description)
            } else {
                resolution = .unknown(tag.description)
            }
        } else {
            resolution = LocaleResolution.resolve(tag, among: locales)
        }
        switch resolution {
        case .exact(let locale):
            return .init(locale: locale, match: "exact", detail: "\(locale) is a locale of the catalogue")
        case .alias(let from, let to):
            let created = locales.contains(to) ? "" : " (new to the catalogue: createLocales=true)"
            return .init(
                locale: to,
                match: locales.contains(to) ? "alias" : "created",
                detail: "\(from) is \(to) by CLDR's language alias\(created)"
            )
        case .nearest(let from, let to):
            return .init(
                locale: to,
                match: "nearest",
                detail:
                    "\(from) is imported into \(to): the catalogue has \(to) and not \(from) (same language and script)"
            )
        case .unknown(let locale):
            guard createLocales else { return nil }
            return .init(
                locale: locale,
                match: "created",
                detail: "\(locale) is new to the catalogue, added as asked (createLocales=true)"
            )
        }
    }

    /// The format of a file from its first bytes: a JSON object is a String Catalog, an
    /// `<xliff>` root says its version, a `<resources>` root is Android's. `nil` otherwise.
    static func sniff(_ bytes: [UInt8]) -> TranslationFormat? {
        var start = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? 3 : 0
        while start < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[start]) { start += 1 }
        guard start < bytes.count else { return nil }
        if bytes[start] == UInt8(ascii: "{") { return .xcstrings }
        let head = String(decoding: bytes[start..<min(bytes.count, start + 4096)], as: UTF8.self)
        if let root = head.range(of: "<xliff") {
            let tag = head[root.upperBound...].prefix { $0 != ">" }
            if tag.contains("version=\"2.") || tag.contains("version='2.") { return .xliff2 }
            if tag.contains("version=\"1.") || tag.contains("version='1.") { return .xliff12 }
            return nil
        }
        return head.contains("<resources") ? .android : nil
    }
}

/// How large a file an import takes, and that one import runs at a time on a server: reading
/// and planning a catalogue-sized file holds several times its size in memory for a few seconds,
/// and editors import rarely; a second import meanwhile is answered 503 `import-busy` rather than
/// doubling that.
final class TranslationImportLimits: Sendable {
    let maximumBytes: Int
    private let running = Mutex(false)

    init(maximumBytes: Int) {
        self.maximumBytes = maximumBytes
    }

    /// Takes the import slot; `false` when another import has it.
    func begin() -> Bool {
        running.withLock { running in
            if running { return false }
            running = true
            return true
        }
    }

    func end() {
        running.withLock { $0 = false }
    }
}
