import EmptyStateCore
import JSONCoding

/// How many approvals a change needs before it is published, set by an admin
/// (`PUT /v1/admin/review-rules`): globally, and per template category.
///
/// A template change needs the approvals of its category's rule when there is one, else the
/// global number; a change that moves a template from one category to another needs the larger
/// of the two (moving it out of a strict category is no way around it). App policies and
/// experiments follow the global number. While a document's rule asks for approvals, writing it
/// directly (`PUT /v1/admin/templates/{id}` …) is refused: it goes through a change request.
///
/// The default is 0 everywhere: an upgrade changes nothing for deployments and scripts that
/// write directly, and a small team opts in to review when it wants it.
///
/// Stored as a versioned document of the catalogue's tables (`kind = 'review-rules'`, id
/// `settings:review-rules`): revisions, `If-Match` and the audit trail as for any document.
package struct ReviewRules: Sendable, Equatable {
    /// The most approvals a rule may ask for (a team has rarely more reviewers than this).
    package static let maximumApprovals = 10

    /// The approvals of policies, experiments, and templates whose category has no rule.
    package var requiredApprovals: Int
    /// Per template category: overrides `requiredApprovals` for templates of that category.
    package var categories: [Template.Category: Int]
    /// Whether a rollback request (`POST …/change-requests/{id}/rollback`) may be published by an
    /// editor without its approvals, as an emergency (audited as such).
    package var allowEmergencyRollback: Bool

    package init(
        requiredApprovals: Int = 0,
        categories: [Template.Category: Int] = [:],
        allowEmergencyRollback: Bool = false
    ) {
        self.requiredApprovals = requiredApprovals
        self.categories = categories
        self.allowEmergencyRollback = allowEmergencyRollback
    }

    /// The rules of a store no admin ever set: no review.
    package static let `default` = ReviewRules()

    /// The approvals a template of `category` needs.
    package func approvals(for category: Template.Category) -> Int {
        categories[category] ?? requiredApprovals
    }

    /// What a rule is called in errors: the pointer of the member of the rules that applies
    /// (`/categories/update`, or `/requiredApprovals`).
    package func rulePointer(for category: Template.Category?) -> String {
        if let category, categories[category] != nil { return "/categories/" + category.rawValue }
        return "/requiredApprovals"
    }

    /// The document the admin API takes and returns, and the store keeps.
    package var document: JSONValue {
        .object([
            ("requiredApprovals", .number(Double(requiredApprovals))),
            (
                "categories",
                .object(
                    Template.Category.allCases.compactMap { category in
                        categories[category].map { (category.rawValue, .number(Double($0))) }
                    }
                )
            ),
            ("allowEmergencyRollback", .bool(allowEmergencyRollback)),
        ])
    }

    /// Every rule a rules document breaks.
    package struct Invalid: Error, Sendable, Equatable {
        package var issues: [ValidationIssue]
    }

    /// Parses the rules an admin sent; every broken rule is reported with its pointer.
    package static func parse(_ value: JSONValue) -> Result<ReviewRules, Invalid> {
        guard case .object(let members) = value else {
            return .failure(Invalid(issues: [.init("", "expected an object")]))
        }
        var issues: [ValidationIssue] = []
        var rules = ReviewRules()
        func count(_ value: JSONValue, at pointer: String) -> Int? {
            guard case .number(let number) = value, let integer = Int(exactly: number),
                (0...maximumApprovals).contains(integer)
            else {
                issues.append(.init(pointer, "an integer from 0 to \(maximumApprovals)"))
                return nil
            }
            return integer
        }
        var sawRequired = false
        for (key, member) in members {
            switch key {
            case "requiredApprovals":
                sawRequired = true
                rules.requiredApprovals = count(member, at: "/requiredApprovals") ?? 0
            case "categories":
                guard case .object(let entries) = member else {
                    issues.append(.init("/categories", "an object of template category → approvals"))
                    continue
                }
                for (name, entry) in entries {
                    let pointer = "/categories/" + jsonPointerToken(name)
                    guard let category = Template.Category(rawValue: name) else {
                        issues.append(
                            .init(
                                pointer,
                                "not a template category (one of \(Template.Category.allCases.map(\.rawValue).joined(separator: ", ")))"
                            )
                        )
                        continue
                    }
                    if let approvals = count(entry, at: pointer) { rules.categories[category] = approvals }
                }
            case "allowEmergencyRollback":
                guard case .bool(let flag) = member else {
                    issues.append(.init("/allowEmergencyRollback", "true or false"))
                    continue
                }
                rules.allowEmergencyRollback = flag
            default:
                issues.append(
                    .init(
                        "/" + jsonPointerToken(key),
                        "unknown member (the rules have requiredApprovals, categories, allowEmergencyRollback)"
                    )
                )
            }
        }
        if !sawRequired { issues.append(.init("/requiredApprovals", "required")) }
        return issues.isEmpty ? .success(rules) : .failure(Invalid(issues: issues))
    }
}
