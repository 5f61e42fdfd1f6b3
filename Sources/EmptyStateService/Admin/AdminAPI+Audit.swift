import EmptyStateCore
import EmptyStateStore
import Foundation
import HTTPServer

/// `/v1/admin/audit`: every change to templates and app policies, newest first, filtered by
/// what (`templateId`, `appPolicy`, `kind`, `field`), who (`actor`), when (`from`, `to`) and
/// `action`; and `/v1/admin/audit/export`, the same selection whole, as NDJSON or CSV.
extension AdminAPI {
    /// The most rows one export holds (newest first): narrow the filters for older ones.
    static let maximumExportRows = 100_000

    func registerAudit(on router: inout Router) {
        router.get("/v1/admin/audit", blocking: true, route(.viewer) { request, _ in try audit(request) })
        router.get("/v1/admin/audit/export", blocking: true, route(.viewer) { request, _ in try exportAudit(request) })
    }

    private func audit(_ request: HTTPRequest) throws -> HTTPResponse {
        let (page, size) = try paging(request)
        let result = try store.audit(try auditFilter(request), page: page, pageSize: size)
        return try .json(AdminResponses.Page(result, AdminResponses.Revision.init))
    }

    private func exportAudit(_ request: HTTPRequest) throws -> HTTPResponse {
        let format = request.queryValue("format") ?? "ndjson"
        guard format == "ndjson" || format == "csv" else {
            throw ProblemDetails.invalidParameters(
                [.init(.parameter("format"), "ndjson or csv")],
                detail: "A query parameter is invalid."
            )
        }
        let filter = try auditFilter(request)
        let result = try store.audit(filter, page: 1, pageSize: Self.maximumExportRows)
        var body: [UInt8] = []
        if format == "csv" {
            body += Array("createdAt,createdBy,kind,id,revision,action,changedFields\r\n".utf8)
            for record in result.items { body += Array(Self.csvLine(record).utf8) }
        } else {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            for record in result.items {
                body += try encoder.encode(AdminResponses.Revision(record))
                body.append(0x0A)
            }
        }
        return HTTPResponse(
            status: 200,
            headers: [
                ("Content-Type", format == "csv" ? "text/csv; charset=utf-8" : "application/x-ndjson"),
                ("Content-Disposition", "attachment; filename=\"audit.\(format)\""),
                ("Cache-Control", "no-store"),
                ("X-Content-Type-Options", "nosniff"),
                ("X-Total-Count", String(result.total)),
            ],
            body: .bytes(body)
        )
    }

    /// The filter the query asks for.
    /// - Throws: 400 naming every parameter that is not valid.
    private func auditFilter(_ request: HTTPRequest) throws -> AuditFilter {
        var errors: [ProblemDetails.FieldError] = []
        var filter = AuditFilter()
        filter.documentID = request.queryValue("templateId")
        if let text = request.queryValue("appPolicy") {
            if let platform = Platform(rawValue: text), filter.documentID == nil {
                filter.documentID = StoredDocuments.appPolicyID(platform)
            } else {
                errors.append(
                    .init(
                        .parameter("appPolicy"),
                        filter.documentID == nil
                            ? "must be one of ios, android, web" : "give templateId or appPolicy, not both"
                    )
                )
            }
        }
        if let text = request.queryValue("kind") {
            if let kind = AuditSubject.kinds[text] {
                filter.kind = kind
            } else {
                errors.append(
                    .init(.parameter("kind"), "one of " + AuditSubject.kinds.keys.sorted().joined(separator: ", "))
                )
            }
        }
        if let text = request.queryValue("actor") {
            if text.isEmpty || text.unicodeScalars.count > 200 {
                errors.append(.init(.parameter("actor"), "a token's name, 1 to 200 characters"))
            } else {
                filter.actor = text
            }
        }
        if let text = request.queryValue("action") {
            if let action = RevisionRecord.Action(rawValue: text) {
                filter.action = action
            } else {
                errors.append(
                    .init(
                        .parameter("action"),
                        "one of " + RevisionRecord.Action.allCases.map(\.rawValue).joined(separator: ", ")
                    )
                )
            }
        }
        var bounds: [String: Int64] = [:]
        for name in ["from", "to"] {
            guard let text = request.queryValue(name) else { continue }
            if let milliseconds = Timestamp.parse(text) {
                bounds[name] = milliseconds
            } else {
                errors.append(.init(.parameter(name), "not an RFC 3339 date-time (e.g. 2026-11-01T00:00:00Z)"))
            }
        }
        if let from = bounds["from"], let to = bounds["to"], from >= to {
            errors.append(.init(.parameter("from"), "must be before to"))
        }
        // The store records whole seconds: an instant within a second selects from that second.
        filter.from = bounds["from"].map { String(Timestamp.format(milliseconds: $0).prefix(19)) + "Z" }
        filter.to = bounds["to"].map { String(Timestamp.format(milliseconds: $0).prefix(19)) + "Z" }
        if let text = request.queryValue("field") {
            if text.hasPrefix("/"), text.unicodeScalars.count <= 200 {
                filter.field = text
            } else {
                errors.append(.init(.parameter("field"), "a JSON pointer (/strings/fr/title), at most 200 characters"))
            }
        }
        guard errors.isEmpty else {
            throw ProblemDetails.invalidParameters(errors, detail: "A query parameter is invalid.")
        }
        return filter
    }

    /// One CSV record (RFC 4180). A cell that a spreadsheet would read as a formula (`=`, `+`,
    /// `-`, `@`, tab, CR) starts with `'`: an actor's name is whatever a token was called.
    static func csvLine(_ record: RevisionRecord) -> String {
        let subject = AuditSubject(documentID: record.templateID)
        let cells = [
            record.createdAt, record.createdBy, subject.kind, subject.id, String(record.revision),
            record.action.rawValue,
            record.changedFields.joined(separator: " "),
        ]
        return cells.map(csvCell).joined(separator: ",") + "\r\n"
    }

    private static func csvCell(_ value: String) -> String {
        var text = value
        if let first = text.unicodeScalars.first, "=+-@\t\r".unicodeScalars.contains(first) { text = "'" + text }
        guard text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" }) else { return text }
        return "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
