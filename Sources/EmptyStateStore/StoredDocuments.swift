import EmptyStateCore
import JSONCoding

/// How documents and revisions are kept as text, the same on every backend: the JSON text of a
/// document, the changed fields of a revision, and the ids of the kinds of document that share
/// the templates' tables. SQLite (`SQLiteTemplateStore`) and PostgreSQL use these, so a document
/// written by one reads back identically through the other and gives the same bytes (and the
/// same ETags) on every replica.
package enum StoredDocuments {
    /// The `kind` of template rows.
    package static let templateKind = DocumentKind.template.rawValue
    /// The `kind` of app policy rows.
    package static let appPolicyKind = DocumentKind.appPolicy.rawValue
    package static let appPolicyPrefix = "app-policy:"

    /// The store id of a platform's policy (in revisions and the audit trail): `app-policy:ios`,
    /// which no template id can be.
    package static func appPolicyID(_ platform: Platform) -> String { appPolicyPrefix + platform.rawValue }

    /// The platform whose policy has this store id; `nil` for a template id.
    package static func appPolicyPlatform(documentID: String) -> Platform? {
        guard documentID.hasPrefix(appPolicyPrefix) else { return nil }
        return Platform(rawValue: String(documentID.dropFirst(appPolicyPrefix.count)))
    }

    /// The `kind` of experiment rows.
    package static let experimentKind = DocumentKind.experiment.rawValue
    package static let experimentPrefix = "experiment:"

    /// The store id of an experiment: `experiment:<id>`, which no template id can be (a template
    /// id has no colon).
    package static func experimentID(_ id: String) -> String { experimentPrefix + id }

    /// The experiment id a store id names; `nil` for any other kind of document.
    package static func experimentName(documentID: String) -> String? {
        documentID.hasPrefix(experimentPrefix) ? String(documentID.dropFirst(experimentPrefix.count)) : nil
    }

    /// The prefix of change requests' store ids (`ChangeRequest.documentID(_:)`).
    package static let changeRequestPrefix = "change-request:"
    /// The store id of the review rules: one document.
    package static let reviewRulesID = "settings:review-rules"

    /// Parses the stored review rules.
    /// - Throws: `StoreError.database` when the text no longer holds valid rules.
    package static func reviewRules(fromText text: String) throws(StoreError) -> ReviewRules {
        switch ReviewRules.parse(try json(text)) {
        case .success(let rules): return rules
        case .failure(let failure):
            throw .database("the stored review rules no longer validate: \(failure.issues.map(\.description))")
        }
    }

    /// Parses a stored experiment; it was valid when written, so a failure means the store was
    /// damaged.
    /// - Throws: `StoreError.database` when the text is not JSON or no longer a valid experiment.
    package static func experiment(fromText text: String) throws(StoreError) -> Experiment {
        switch ExperimentParser.parse(try json(text)) {
        case .success(let experiment): return experiment
        case .failure(let failure):
            throw .database("a stored experiment no longer validates: \(failure.issues.map(\.description))")
        }
    }

    /// The text a document is stored as: `JSONWriter`'s deterministic output, members in
    /// document order, so the same document is always the same text.
    package static func text(of document: JSONValue) -> String {
        var writer = JSONWriter()
        writer.value(document)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// The text of a revision's changed fields: a JSON array of JSON pointers.
    package static func changedFieldsText(_ pointers: [String]) -> String {
        text(of: .array(pointers.map(JSONValue.string)))
    }

    /// Parses a stored template; it was valid when written, so a failure means the store was
    /// damaged.
    /// - Throws: `StoreError.database` when the text is not JSON or no longer a valid template.
    package static func template(fromText text: String) throws(StoreError) -> Template {
        switch TemplateParser.parse(try json(text), origin: .stored) {
        case .success(let template): return template
        case .failure(let failure):
            throw .database("a stored document no longer validates: \(failure.issues.map(\.description))")
        }
    }

    /// Parses a stored app policy; it was valid when written, so a failure means the store was
    /// damaged.
    /// - Throws: `StoreError.database` when the text is not JSON or no longer a valid policy.
    package static func appPolicy(fromText text: String) throws(StoreError) -> AppPolicy {
        switch AppPolicy.parse(try json(text)) {
        case .success(let policy): return policy
        case .failure(let failure):
            throw .database("a stored app policy no longer validates: \(failure.issues.map(\.description))")
        }
    }

    /// Parses stored JSON text with the strict parser.
    /// - Throws: `StoreError.database` naming where the text stops being JSON.
    package static func json(_ text: String) throws(StoreError) -> JSONValue {
        do {
            return try JSONParser.parse(Array(text.utf8))
        } catch {
            throw .database("a stored document is not JSON: \(error)")
        }
    }
}

/// The kinds of versioned document that share the catalogue's tables (the `kind` column).
package enum DocumentKind: String, Sendable, CaseIterable {
    case template
    case appPolicy = "app-policy"
    case experiment
    /// A change request (`ChangeRequest`), id `change-request:<n>`.
    case changeRequest = "change-request"
    /// The review rules (`ReviewRules`), the one row `settings:review-rules`.
    case reviewRules = "review-rules"
    /// A webhook subscription (`WebhookSubscription`), `webhook:<id>`.
    case webhook
    /// An admin token made through the admin API (`StoredAdminToken`), `admin-token:tok_…`.
    case adminToken = "admin-token"

    /// The start of every store id of this kind (`app-policy:`, …); the review rules' whole id;
    /// `nil` for templates, whose ids have no colon.
    package var idPrefix: String? {
        switch self {
        case .template: nil
        case .appPolicy: StoredDocuments.appPolicyPrefix
        case .experiment: StoredDocuments.experimentPrefix
        case .changeRequest: StoredDocuments.changeRequestPrefix
        case .reviewRules: StoredDocuments.reviewRulesID
        case .webhook: StoredDocuments.webhookPrefix
        case .adminToken: StoredDocuments.adminTokenPrefix
        }
    }

    /// The kind of the store id `documentID`: templates have no colon in their ids, every other
    /// kind a prefix of its own.
    package init(documentID: String) {
        if documentID.hasPrefix(StoredDocuments.appPolicyPrefix) {
            self = .appPolicy
        } else if documentID.hasPrefix(StoredDocuments.experimentPrefix) {
            self = .experiment
        } else if documentID.hasPrefix(StoredDocuments.changeRequestPrefix) {
            self = .changeRequest
        } else if documentID.hasPrefix(StoredDocuments.webhookPrefix) {
            self = .webhook
        } else if documentID.hasPrefix(StoredDocuments.adminTokenPrefix) {
            self = .adminToken
        } else if documentID == StoredDocuments.reviewRulesID {
            self = .reviewRules
        } else {
            self = .template
        }
    }
}

extension RevisionRecord {
    /// A revision as the store keeps it: every column as text or integer.
    /// - Parameters:
    ///   - action: the `action` column; an unknown one reads as `replace`.
    ///   - changedFieldsText: the JSON array of `StoredDocuments.changedFieldsText(_:)`.
    ///   - documentText: the document's JSON text; `nil` for a deletion or when not asked for.
    ///   - note: the `note` column.
    /// - Throws: `StoreError.database` when a text column is not JSON.
    package init(
        templateID: String,
        revision: Int,
        action: String,
        createdAt: String,
        createdBy: String,
        changedFieldsText: String,
        documentText: String?,
        note: String?
    ) throws(StoreError) {
        var changed: [String] = []
        if case .array(let values) = try StoredDocuments.json(changedFieldsText) {
            changed = values.compactMap { if case .string(let text) = $0 { text } else { nil } }
        }
        self.init(
            templateID: templateID,
            revision: revision,
            action: Action(rawValue: action) ?? .replace,
            createdAt: createdAt,
            createdBy: createdBy,
            changedFields: changed,
            document: try documentText.map { (text: String) throws(StoreError) -> JSONValue in
                try StoredDocuments.json(text)
            },
            note: note
        )
    }
}
