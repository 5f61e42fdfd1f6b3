import EmptyStateCore
import EmptyStateStore
import EmptyStateTranslation
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
        var plans: [ImportPlan] = []
        for document in documents {
            do {
                plans.append(try ImportPlanner.plan(document, templates: byID))
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
        var importer = TranslationImporter(plans: plans, templates: byID)
        if !query.dryRun {
            try importer.apply { id, write in
                let stored = try store.updateStrings(
                    id: id,
                    expectedRevision: write.baseRevision,
                    actor: actor.name,
                    note: "imported from \(query.fileName)"
                ) { (_: Template) throws(StoreError) -> Template in write.template }
                try publish(stored, action: "translations imported", actor: actor, request: request)
                return stored.revision
            }
            logger.notice(
                "translations imported",
                metadata: [
                    "import.file": "\(query.fileName)", "import.format": "\(format.rawValue)",
                    "import.revisions": "\(importer.revisionsWritten)",
                    "import.conflicts": "\(importer.conflicts.count)",
                    "admin.actor": "\(actor.name)", "request.id": "\(request.id)",
                ]
            )
        }
        return try .json(
            importer.report(fileName: query.fileName, format: format, dryRun: query.dryRun, documents: documents)
        )
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
