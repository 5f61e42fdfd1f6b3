import EmptyStateCore
import EmptyStateStore
import Foundation
import HTTPServer
import JSONCoding

/// The bodies of admin responses, as `openapi.yaml` names their members. Written by
/// `JSONEncoder` (`HTTPResponse.json`): these are not on the client read path, and no ETag is a
/// hash of their bytes (admin ETags are revisions).
enum AdminResponses {
    /// `AdminTemplate`: a template with its bookkeeping; `stringUpdates` on `GET` only.
    struct Template: Encodable {
        var id: String
        var revision: Int
        var updatedAt: String
        var updatedBy: String
        var template: JSONValue
        var stringUpdates: [StringUpdate]?

        init(_ stored: StoredTemplate, strings: [StoredString]?) {
            id = stored.template.id
            revision = stored.revision
            updatedAt = stored.updatedAt
            updatedBy = stored.updatedBy
            template = stored.template.document
            stringUpdates = strings?.map {
                StringUpdate(locale: $0.locale, key: $0.key, updatedAt: $0.updatedAt, updatedBy: $0.updatedBy)
            }
        }
    }

    /// Who last changed one string, and when.
    struct StringUpdate: Encodable {
        var locale: String
        var key: String
        var updatedAt: String
        var updatedBy: String
    }

    /// `AdminAppPolicy`.
    struct AppPolicy: Encodable {
        var platform: String
        var revision: Int
        var updatedAt: String
        var updatedBy: String
        var policy: JSONValue

        init(_ stored: StoredAppPolicy) {
            platform = stored.policy.platform.rawValue
            revision = stored.revision
            updatedAt = stored.updatedAt
            updatedBy = stored.updatedBy
            policy = stored.policy.document
        }
    }

    /// `AdminExperiment`: the experiment's document with its bookkeeping.
    struct Experiment: Encodable {
        var revision: Int
        var updatedAt: String
        var updatedBy: String
        var experiment: JSONValue

        init(_ stored: StoredExperiment) {
            revision = stored.revision
            updatedAt = stored.updatedAt
            updatedBy = stored.updatedBy
            experiment = stored.experiment.document
        }
    }

    /// The answer to `?validateOnly=true`: the document as it would be stored, under `template`
    /// or `policy`.
    struct Validation: Encodable {
        var document: JSONValue
        var subject: AdminProblems.Subject

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: AnyKey.self)
            try container.encode(true, forKey: AnyKey("valid"))
            let key =
                switch subject {
                case .template: "template"
                case .appPolicy: "policy"
                case .experiment: "experiment"
                case .changeRequest: "changeRequest"
                case .reviewRules: "reviewRules"
                case .webhook: "webhook"
                case .adminToken: "token"
                }
            try container.encode(document, forKey: AnyKey(key))
        }
    }

    /// One page of a listing.
    struct Page<Item: Encodable>: Encodable {
        var items: [Item]
        var page: Int
        var pageSize: Int
        var total: Int

        init<Record>(_ page: EmptyStateStore.Page<Record>, _ transform: (Record) -> Item) {
            items = page.items.map(transform)
            self.page = page.page
            pageSize = page.pageSize
            total = page.total
        }
    }

    /// `TemplateSummary`, a line of the listing.
    struct Summary: Encodable {
        var id: String
        var revision: Int
        var updatedAt: String
        var updatedBy: String

        init(_ summary: TemplateSummary) {
            id = summary.id
            revision = summary.revision
            updatedAt = summary.updatedAt
            updatedBy = summary.updatedBy
        }
    }

    /// One revision of a template, of an app policy (`appPolicy` and `policy` instead of
    /// `templateId` and `template`) or of a webhook subscription (`webhook` and `subscription`);
    /// the document only when the record has it.
    struct Revision: Encodable {
        var record: RevisionRecord

        init(_ record: RevisionRecord) { self.record = record }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: AnyKey.self)
            let subject = AuditSubject(documentID: record.templateID)
            switch subject {
            case .appPolicy(let platform): try container.encode(platform.rawValue, forKey: AnyKey("appPolicy"))
            case .changeRequest(let request): try container.encode(request, forKey: AnyKey("changeRequest"))
            case .reviewRules: try container.encode(true, forKey: AnyKey("reviewRules"))
            case .webhook(let webhook): try container.encode(webhook, forKey: AnyKey("webhook"))
            case .adminToken(let token): try container.encode(token, forKey: AnyKey("adminToken"))
            case .template(let id): try container.encode(id, forKey: AnyKey("templateId"))
            case .experiment(let id): try container.encode(id, forKey: AnyKey("experiment"))
            }
            try container.encode(record.revision, forKey: AnyKey("revision"))
            try container.encode(record.action.rawValue, forKey: AnyKey("action"))
            try container.encode(record.createdAt, forKey: AnyKey("createdAt"))
            try container.encode(record.createdBy, forKey: AnyKey("createdBy"))
            try container.encode(record.changedFields, forKey: AnyKey("changedFields"))
            if let note = record.note { try container.encode(note, forKey: AnyKey("note")) }
            if let document = record.document, let documentKey = subject.documentMember {
                try container.encode(document, forKey: AnyKey(documentKey))
            }
        }
    }

    /// `Locales`: `LocaleCompleteness` per locale, and its stale translations.
    struct Locales: Encodable {
        struct Entry: Encodable {
            var locale: String
            var templates: Int
            var completeTemplates: Int
            var completeness: Double
            var missing: [Missing]
            /// Keys whose translation was written before the template's default-locale string
            /// last changed; `staleStrings` counts them.
            var stale: [Missing]
            var staleStrings: Int
        }

        struct Missing: Encodable {
            var templateId: String
            var keys: [String]
        }

        var locales: [Entry]

        init(_ report: [LocaleCompleteness], stale: [String: [TranslationCatalogue.Stale]] = [:]) {
            locales = report.map { entry in
                let stale = (stale[entry.locale] ?? []).map { Missing(templateId: $0.templateID, keys: $0.keys) }
                return Entry(
                    locale: entry.locale,
                    templates: entry.templates,
                    completeTemplates: entry.completeTemplates,
                    completeness: entry.completeness,
                    missing: entry.missing.map { Missing(templateId: $0.templateID, keys: $0.keys) },
                    stale: stale,
                    staleStrings: stale.reduce(0) { $0 + $1.keys.count }
                )
            }
        }
    }

    /// Any member name, for bodies whose names depend on the record.
    struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }

        init(_ name: String) { stringValue = name }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }
}

extension HTTPResponse {
    /// An `Encodable` body as `application/json` that is not cached, written by `JSONEncoder`
    /// with sorted keys (the same value always gives the same bytes) and unescaped slashes.
    /// - Throws: `EncodingError` for a value JSON cannot hold (a non-finite number).
    static func json(
        _ value: some Encodable,
        status: Int = 200,
        headers: [(name: String, value: String)] = []
    ) throws -> HTTPResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return HTTPResponse(
            status: status,
            headers: [("Content-Type", "application/json; charset=utf-8"), ("Cache-Control", "no-store")] + headers,
            body: .bytes(Array(try encoder.encode(value)))
        )
    }
}
