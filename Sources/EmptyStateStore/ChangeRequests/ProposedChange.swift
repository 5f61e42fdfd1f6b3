import EmptyStateCore
import JSONCoding

/// One change a change request proposes: what it targets, the proposed document (or strings),
/// and the live revision it was based on, so that publishing can tell whether live moved since.
///
/// Validated when it is added (the same rules as a direct write of the document), stored as
/// its JSON (`document(_:)`), applied by the publication in the request's order.
package struct ProposedChange: Sendable, Equatable {
    /// What a change targets. The raw kinds (`template`, `templateStrings` …) are the API's.
    package enum Target: Sendable, Hashable {
        /// Creates or replaces a template: the document is the whole template.
        case template(id: String)
        /// Replaces the strings of one locale of a live template: the document is an object of
        /// string key → text (as `PUT /v1/admin/templates/{id}/strings/{locale}` takes).
        case templateStrings(id: String, locale: String)
        /// Deletes a live template: no document.
        case templateDeletion(id: String)
        /// Creates or replaces a platform's app policy.
        case appPolicy(Platform)
        /// Creates or replaces an experiment.
        case experiment(id: String)

        /// The `kind` member of the change in the API.
        package var kind: String {
            switch self {
            case .template: "template"
            case .templateStrings: "templateStrings"
            case .templateDeletion: "templateDeletion"
            case .appPolicy: "appPolicy"
            case .experiment: "experiment"
            }
        }

        /// Every kind the API takes, for its errors.
        package static let kinds = ["template", "templateStrings", "templateDeletion", "appPolicy", "experiment"]

        /// The row of the catalogue's `template` table the change writes.
        package var documentID: String {
            switch self {
            case .template(let id), .templateStrings(let id, _), .templateDeletion(let id): id
            case .appPolicy(let platform): StoredDocuments.appPolicyID(platform)
            case .experiment(let id): StoredDocuments.experimentID(id)
            }
        }

        /// The kind of that row.
        package var documentKind: DocumentKind {
            switch self {
            case .template, .templateStrings, .templateDeletion: .template
            case .appPolicy: .appPolicy
            case .experiment: .experiment
            }
        }

        /// The id as a person names the document: a template or experiment id, a platform.
        package var name: String {
            switch self {
            case .template(let id), .templateStrings(let id, _), .templateDeletion(let id), .experiment(let id): id
            case .appPolicy(let platform): platform.rawValue
            }
        }

        /// How the request's list and filters name it (`template:loading`, `appPolicy:ios`).
        package var label: String {
            switch self {
            case .template(let id), .templateStrings(let id, _), .templateDeletion(let id): "template:" + id
            case .appPolicy(let platform): "appPolicy:" + platform.rawValue
            case .experiment(let id): "experiment:" + id
            }
        }
    }

    package var target: Target
    /// The proposed document: a template, a locale's strings (`{"title": …}`), a policy or an
    /// experiment; `nil` for a deletion.
    package var document: JSONValue?
    /// The live revision the change was made from; 0 when nothing was live (a creation).
    package var baseRevision: Int

    package init(target: Target, document: JSONValue?, baseRevision: Int) {
        self.target = target
        self.document = document
        self.baseRevision = baseRevision
    }

    /// The change as the API and the store write it:
    /// `{"kind", "id" | "platform", "locale"?, "baseRevision", "document" | "strings"?}`.
    package var json: JSONValue {
        var members: [(key: String, value: JSONValue)] = [("kind", .string(target.kind))]
        switch target {
        case .template(let id), .templateDeletion(let id), .experiment(let id):
            members.append(("id", .string(id)))
        case .templateStrings(let id, let locale):
            members.append(("id", .string(id)))
            members.append(("locale", .string(locale)))
        case .appPolicy(let platform):
            members.append(("platform", .string(platform.rawValue)))
        }
        members.append(("baseRevision", .number(Double(baseRevision))))
        if let document {
            if case .templateStrings = target {
                members.append(("strings", document))
            } else {
                members.append(("document", document))
            }
        }
        return .object(members)
    }

    /// Reads a change the store wrote (`json`).
    /// - Throws: `StoreError.database` when it is not one (a damaged row).
    package init(stored value: JSONValue) throws(StoreError) {
        guard case .string(let kind)? = value["kind"], case .number(let base)? = value["baseRevision"] else {
            throw .database("a stored change request holds a change without its kind or base revision")
        }
        let id = value["id"].flatMap { if case .string(let text) = $0 { text } else { nil } } ?? ""
        switch kind {
        case "template": target = .template(id: id)
        case "templateDeletion": target = .templateDeletion(id: id)
        case "experiment": target = .experiment(id: id)
        case "templateStrings":
            guard case .string(let locale)? = value["locale"] else {
                throw .database("a stored strings change has no locale")
            }
            target = .templateStrings(id: id, locale: locale)
        case "appPolicy":
            guard case .string(let text)? = value["platform"], let platform = Platform(rawValue: text) else {
                throw .database("a stored policy change has no platform")
            }
            target = .appPolicy(platform)
        default:
            throw .database("a stored change has the unknown kind \(kind)")
        }
        baseRevision = Int(base)
        document = value["document"] ?? value["strings"]
    }
}
