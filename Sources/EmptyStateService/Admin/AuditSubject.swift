import EmptyStateCore
import EmptyStateStore

/// What a revision is a revision of, as the audit trail shows it: decided once from the store id
/// for both of its forms, the JSON items (`AdminResponses.Revision`) and the CSV export
/// (`AdminAPI.csvLine`).
enum AuditSubject: Equatable {
    /// A template (`templateId`, its document under `template`).
    case template(String)
    /// An experiment (`experiment`, its id), without its document
    /// (`GET /v1/admin/experiments/{id}` has it).
    case experiment(String)
    /// An app policy (`appPolicy`, its document under `policy`).
    case appPolicy(Platform)
    /// A change request's trail (`changeRequest`), without a document
    /// (`GET /v1/admin/change-requests/{id}` has it).
    case changeRequest(Int)
    /// The review rules (`reviewRules: true`).
    case reviewRules
    /// A webhook subscription (`webhook`, its document under `subscription`).
    case webhook(String)
    /// An admin token made through the admin API (`adminToken`, its id; its document, never a
    /// secret, under `token`).
    case adminToken(String)

    init(documentID id: String) {
        if let platform = StoredDocuments.appPolicyPlatform(documentID: id) {
            self = .appPolicy(platform)
        } else if let request = ChangeRequest.id(documentID: id) {
            self = .changeRequest(request)
        } else if id == StoredDocuments.reviewRulesID {
            self = .reviewRules
        } else if let webhook = StoredDocuments.webhookName(documentID: id) {
            self = .webhook(webhook)
        } else if let token = StoredDocuments.adminTokenName(documentID: id) {
            self = .adminToken(token)
        } else if let experiment = StoredDocuments.experimentName(documentID: id) {
            self = .experiment(experiment)
        } else {
            self = .template(id)
        }
    }

    /// The `kind` query parameter's values and the kinds of document they select.
    static let kinds: [String: DocumentKind] = [
        "template": .template, "appPolicy": .appPolicy, "experiment": .experiment,
        "changeRequest": .changeRequest, "reviewRules": .reviewRules, "webhook": .webhook,
        "adminToken": .adminToken,
    ]

    /// The export's `kind` column: the `kind` parameter's value that selects this subject.
    var kind: String {
        switch self {
        case .template: "template"
        case .experiment: "experiment"
        case .appPolicy: "appPolicy"
        case .changeRequest: "changeRequest"
        case .reviewRules: "reviewRules"
        case .webhook: "webhook"
        case .adminToken: "adminToken"
        }
    }

    /// The export's id column.
    var id: String {
        switch self {
        case .template(let id), .experiment(let id), .webhook(let id), .adminToken(let id): id
        case .appPolicy(let platform): platform.rawValue
        case .changeRequest(let request): String(request)
        case .reviewRules: StoredDocuments.reviewRulesID
        }
    }

    /// The member a revision's document is shown under; `nil`: the document is not shown.
    var documentMember: String? {
        switch self {
        case .template: "template"
        case .appPolicy: "policy"
        case .webhook: "subscription"
        case .adminToken: "token"
        case .experiment, .changeRequest, .reviewRules: nil
        }
    }
}
