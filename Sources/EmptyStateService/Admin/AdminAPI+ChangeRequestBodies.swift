import EmptyStateCore
import EmptyStateStore
import Foundation
import HTTPServer
import JSONCoding

/// What the change-request routes read from a body: the changes a request proposes, validated
/// with the same rules as a direct write of each document when they are added (422 with JSON
/// pointers into the request body: `/changes/2/document/strings/fr/title`), their base
/// revisions, and the small bodies of the review actions.
extension AdminAPI {
    /// A change as sent, before its base revision and its target are checked against live.
    struct ChangeDraft {
        var target: ProposedChange.Target
        var document: JSONValue?
        /// `nil`: based on what is live when the request is written.
        var baseRevision: Int?
    }

    /// The most changes one request holds.
    static let maximumChanges = 200
    static let maximumTitleLength = 200
    static let maximumTextLength = 10_000

    /// Parses `changes` (the member at `pointer`): each change's kind, target and document,
    /// every broken rule with its pointer. Documents are validated as a direct write would; a
    /// locale's strings are validated against the live template in `resolve`.
    func changeDrafts(_ value: JSONValue?, at pointer: String = "/changes") throws -> [ChangeDraft] {
        guard case .array(let elements)? = value, !elements.isEmpty, elements.count <= Self.maximumChanges else {
            throw AdminProblems.unprocessable(
                [.init(.pointer(pointer), "required: an array of 1 to \(Self.maximumChanges) changes")],
                subject: .changeRequest
            )
        }
        var issues: [ProblemDetails.FieldError] = []
        var drafts: [ChangeDraft] = []
        for (index, element) in elements.enumerated() {
            let at = "\(pointer)/\(index)"
            func fail(_ member: String, _ rule: String) { issues.append(.init(.pointer(at + member), rule)) }
            guard case .object(let members) = element else {
                fail("", "expected an object")
                continue
            }
            let allowed: Set = ["kind", "id", "platform", "locale", "baseRevision", "document", "strings"]
            for member in members where !allowed.contains(member.key) {
                fail("/" + jsonPointerToken(member.key), "unknown member")
            }
            var base: Int?
            if let raw = element["baseRevision"] {
                if case .number(let number) = raw, let integer = Int(exactly: number), integer >= 0 {
                    base = integer
                } else {
                    fail("/baseRevision", "a revision: an integer from 0 (0: nothing was live)")
                }
            }
            guard case .string(let kind)? = element["kind"], ProposedChange.Target.kinds.contains(kind) else {
                fail("/kind", "required: one of \(ProposedChange.Target.kinds.joined(separator: ", "))")
                continue
            }
            func text(_ key: String) -> String? {
                guard case .string(let value)? = element[key], !value.isEmpty else {
                    fail("/" + key, "required: a non-empty string")
                    return nil
                }
                return value
            }
            func issuesOf<T>(_ result: Result<T, TemplateValidationError>, under member: String) -> T? {
                switch result {
                case .success(let value): return value
                case .failure(let failure):
                    for issue in failure.issues { fail(member + issue.pointer, issue.rule) }
                    return nil
                }
            }
            switch kind {
            case "template":
                guard let id = text("id") else { continue }
                guard let document = element["document"] else {
                    fail("/document", "required: the whole template")
                    continue
                }
                guard let template = issuesOf(TemplateParser.parse(document, expectedID: id), under: "/document")
                else { continue }
                drafts.append(ChangeDraft(target: .template(id: id), document: template.document, baseRevision: base))
            case "templateStrings":
                guard let id = text("id"), let locale = text("locale") else { continue }
                guard case .object? = element["strings"] else {
                    fail("/strings", "required: an object of string key → text")
                    continue
                }
                drafts.append(
                    ChangeDraft(
                        target: .templateStrings(id: id, locale: locale),
                        document: element["strings"],
                        baseRevision: base
                    )
                )
            case "templateDeletion":
                guard let id = text("id") else { continue }
                if element["document"] != nil { fail("/document", "a deletion has no document") }
                drafts.append(ChangeDraft(target: .templateDeletion(id: id), document: nil, baseRevision: base))
            case "appPolicy":
                guard case .string(let name)? = element["platform"], let platform = Platform(rawValue: name) else {
                    fail("/platform", "required: ios, android or web")
                    continue
                }
                guard let document = element["document"] else {
                    fail("/document", "required: the whole policy")
                    continue
                }
                guard let policy = issuesOf(AppPolicy.parse(document, expectedPlatform: platform), under: "/document")
                else { continue }
                drafts.append(ChangeDraft(target: .appPolicy(platform), document: policy.document, baseRevision: base))
            default:  // experiment
                guard let id = text("id") else { continue }
                guard let document = element["document"] else {
                    fail("/document", "required: the whole experiment")
                    continue
                }
                guard let experiment = issuesOf(ExperimentParser.parse(document, expectedID: id), under: "/document")
                else { continue }
                drafts.append(
                    ChangeDraft(target: .experiment(id: id), document: experiment.document, baseRevision: base)
                )
            }
        }
        guard issues.isEmpty else { throw AdminProblems.unprocessable(issues, subject: .changeRequest) }
        return drafts
    }

    /// The drafts as changes, inside the transaction that writes them: each without a base
    /// revision is based on its document's live revision now; a strings change or a deletion
    /// needs a live template, and a locale's strings must make a valid template of it.
    static func resolve(
        _ drafts: [ChangeDraft],
        in edits: CatalogueWrite,
        pointer: String = "/changes"
    ) throws
        -> [ProposedChange]
    {
        let rows = try edits.currentRows(
            of: drafts.map { ProposedChange(target: $0.target, document: $0.document, baseRevision: 0) }
        )
        var issues: [ProblemDetails.FieldError] = []
        var changes: [ProposedChange] = []
        for (index, draft) in drafts.enumerated() {
            let at = "\(pointer)/\(index)"
            let row = rows[draft.target.documentID]
            let live = row.flatMap { $0.deleted ? nil : $0 }
            switch draft.target {
            case .templateStrings(let id, let locale):
                guard let live else {
                    issues.append(.init(.pointer(at + "/id"), "no live template \"\(id)\": its strings cannot change"))
                    continue
                }
                let change = ProposedChange(target: draft.target, document: draft.document, baseRevision: 0)
                let merged = ChangeRequestDiff.proposedDocument(change, live: try StoredDocuments.json(live.document))
                if case .failure(let failure) = TemplateParser.parse(merged ?? .null, expectedID: id) {
                    let prefix = "/strings/" + jsonPointerToken(locale)
                    for issue in failure.issues {
                        let inner = issue.pointer.hasPrefix(prefix) ? String(issue.pointer.dropFirst(prefix.count)) : ""
                        issues.append(.init(.pointer(at + "/strings" + inner), issue.rule))
                    }
                }
            case .templateDeletion(let id):
                if live == nil {
                    issues.append(.init(.pointer(at + "/id"), "no live template \"\(id)\" to delete"))
                }
            case .template, .appPolicy, .experiment:
                break
            }
            changes.append(
                ProposedChange(
                    target: draft.target,
                    document: draft.document,
                    baseRevision: draft.baseRevision ?? row?.revision ?? 0
                )
            )
        }
        guard issues.isEmpty else { throw AdminProblems.unprocessable(issues, subject: .changeRequest) }
        return changes
    }

    /// A string member of a body, trimmed: `nil` when absent.
    /// - Throws: 422 naming it when it is not a string, is empty while `required`, or too long.
    func bodyText(
        _ body: JSONValue,
        _ key: String,
        required: Bool,
        maximum: Int = maximumTextLength
    ) throws -> String? {
        guard let value = body[key] else {
            if required {
                throw AdminProblems.unprocessable([.init(.pointer("/" + key), "required")], subject: .changeRequest)
            }
            return nil
        }
        guard case .string(let raw) = value else {
            throw AdminProblems.unprocessable([.init(.pointer("/" + key), "a string")], subject: .changeRequest)
        }
        let text = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        if required, text.isEmpty {
            throw AdminProblems.unprocessable(
                [.init(.pointer("/" + key), "must not be empty")],
                subject: .changeRequest
            )
        }
        if text.count > maximum {
            throw AdminProblems.unprocessable(
                [.init(.pointer("/" + key), "at most \(maximum) characters")],
                subject: .changeRequest
            )
        }
        return text
    }

    /// The body's members, refusing any not in `allowed`.
    /// - Throws: 400 when the body is not an object; 422 naming each unknown member.
    func bodyObject(_ request: HTTPRequest, allowed: Set<String>, optional: Bool = false) throws -> JSONValue {
        if optional, request.body.isEmpty { return .object([]) }
        let document = try body(request)
        guard case .object(let members) = document else { throw AdminProblems.notAnObject }
        let unknown = members.filter { !allowed.contains($0.key) }
        if !unknown.isEmpty {
            throw AdminProblems.unprocessable(
                unknown.map { .init(.pointer("/" + jsonPointerToken($0.key)), "unknown member") },
                subject: .changeRequest
            )
        }
        return document
    }

    /// The path's `{id}` as a change request's number.
    /// - Throws: 404 naming the parameter when it is not a positive integer.
    func changeRequestID(_ request: HTTPRequest) throws -> Int {
        guard let id = Int(request.pathParameters["id"] ?? ""), id > 0 else {
            throw AdminProblems.unknownChangeRequest(request.pathParameters["id"] ?? "")
        }
        return id
    }
}
