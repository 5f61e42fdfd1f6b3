import EmptyStateCore
import JSONCoding

/// Where a change request stands with its reviewers under the review rules in force: how many
/// approvals its current version has and needs, and so its state. Computed, never stored, from
/// the request, its review records, the rules and the categories of the templates it touches,
/// so that a change of the rules applies to every request at once.
package struct ChangeRequestReview: Sendable, Equatable {
    /// The reviewers whose approval of the current version counts (each once; never a
    /// contributor), in the order they approved.
    package var approvedBy: [String]
    /// The approvals the request needs.
    package var required: Int
    /// The pointer of the rule that asks for them (`/categories/update`, `/requiredApprovals`).
    package var rule: String
    /// The state to report: `approved` for an open request with its approvals.
    package var state: ChangeRequest.State

    /// Whether the request has the approvals it needs.
    package var isApproved: Bool { approvedBy.count >= required }

    /// - Parameters:
    ///   - categories: the category of each template the request touches, live now (by id);
    ///     a proposed template's own category is read from its document.
    package init(
        _ request: ChangeRequest,
        reviews: [ReviewRecord],
        rules: ReviewRules,
        categories: [String: Template.Category]
    ) {
        var approvedBy: [String] = []
        for review in reviews where review.kind == .approval && review.version == request.version {
            if !request.contributors.contains(review.author), !approvedBy.contains(review.author) {
                approvedBy.append(review.author)
            }
        }
        self.approvedBy = approvedBy
        (required, rule) = Self.required(request, rules: rules, categories: categories)
        state =
            request.state == .open && approvedBy.count >= required ? .approved : request.state
    }

    /// The approvals `request` needs and the rule that asks for them: the most any of its
    /// changes needs.
    package static func required(
        _ request: ChangeRequest,
        rules: ReviewRules,
        categories: [String: Template.Category]
    ) -> (count: Int, rule: String) {
        var result = (count: 0, rule: "/requiredApprovals")
        func consider(_ category: Template.Category?) {
            let count = category.map(rules.approvals(for:)) ?? rules.requiredApprovals
            if count > result.count {
                result = (count, rules.rulePointer(for: category))
            }
        }
        if request.changes.isEmpty { consider(nil) }
        for change in request.changes {
            switch change.target {
            case .template(let id), .templateStrings(let id, _), .templateDeletion(let id):
                if let live = categories[id] { consider(live) }
                if case .string(let text)? = change.document?["category"],
                    let proposed = Template.Category(rawValue: text)
                {
                    consider(proposed)
                }
                if categories[id] == nil, change.document?["category"] == nil { consider(nil) }
            case .appPolicy, .experiment:
                consider(nil)
            }
        }
        return result
    }

    /// The category a stored template document has; `nil` for another document or none.
    package static func category(ofDocument text: String) -> Template.Category? {
        guard case .string(let name)? = (try? StoredDocuments.json(text))?["category"] else { return nil }
        return Template.Category(rawValue: name)
    }
}
