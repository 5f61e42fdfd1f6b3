import EmptyStateCore

/// The review rules as the store keeps them, with the revision of their document: 0 while no
/// admin ever wrote them (the defaults, `ReviewRules.default`).
package struct StoredReviewRules: Sendable, Equatable {
    package var rules: ReviewRules
    package var revision: Int
    package var updatedAt: String?
    package var updatedBy: String?

    package init(rules: ReviewRules, revision: Int, updatedAt: String? = nil, updatedBy: String? = nil) {
        self.rules = rules
        self.revision = revision
        self.updatedAt = updatedAt
        self.updatedBy = updatedBy
    }

    /// The rules a row holds; the defaults at revision 0 when there is none.
    /// - Throws: `StoreError.database` when the row no longer holds valid rules.
    package init(_ row: CurrentDocument?) throws(StoreError) {
        guard let row else {
            self.init(rules: .default, revision: 0)
            return
        }
        self.init(
            rules: try StoredDocuments.reviewRules(fromText: row.document),
            revision: row.revision,
            updatedAt: row.updatedAt,
            updatedBy: row.updatedBy
        )
    }
}

/// The review rules inside a catalogue transaction: read once per transaction (so a write and
/// the rules it was held to are one consistent view), written as a versioned document, and
/// the check that holds back direct writes while a rule asks for approvals.
extension CatalogueWrite {
    /// The rules in force in this transaction (read once, then as this transaction wrote them).
    package func reviewRules() throws(StoreError) -> StoredReviewRules {
        if let rulesRead { return rulesRead }
        let read = try StoredReviewRules(try current(StoredDocuments.reviewRulesID, kind: .reviewRules))
        rulesRead = read
        return read
    }

    /// Replaces the review rules; `expectedRevision` 0 when they were never written.
    /// - Throws: `.stale` (named `review rules`) when they are at another revision.
    package func putReviewRules(
        _ rules: ReviewRules,
        expectedRevision: Int,
        actor: String
    ) throws(StoreError) -> StoredReviewRules {
        let name = "review rules"
        let row = try current(StoredDocuments.reviewRulesID, kind: .reviewRules)
        if (row?.revision ?? 0) != expectedRevision { throw .stale(id: name, current: row?.revision ?? 0) }
        let plan = try CatalogueRules.put(
            name: name,
            current: row,
            precondition: row == nil ? .absent : .revision(expectedRevision)
        )
        let previous = try StoredReviewRules(row).rules
        let write = RevisionWrite(
            documentID: StoredDocuments.reviewRulesID,
            kind: DocumentKind.reviewRules.rawValue,
            revision: plan.revision,
            action: plan.action,
            document: StoredDocuments.text(of: rules.document),
            changedFields: StoredDocuments.changedFieldsText(
                ChangeRequestDiff.changedFields(deep: false, from: previous.document, to: rules.document)
            ),
            at: Timestamp.now(),
            by: actor
        )
        queue(write, edited: true)
        let stored = StoredReviewRules(rules: rules, revision: write.revision, updatedAt: write.at, updatedBy: write.by)
        rulesRead = stored
        return stored
    }

    /// Throws `.reviewRequired` when the review rules ask for approvals of a direct write of the
    /// document `name` (of these template categories; `nil` stands for the global rule, which
    /// policies and experiments follow). A published change request's writes are not direct
    /// (`reviewed`).
    /// - Parameter categories: called only when some rule asks for approvals.
    func checkDirectWrite(_ name: String, categories: () -> [Template.Category?]) throws(StoreError) {
        guard !reviewed else { return }
        let rules = try reviewRules().rules
        guard rules.requiredApprovals > 0 || rules.categories.values.contains(where: { $0 > 0 }) else { return }
        var strictest: (approvals: Int, rule: String)?
        for category in categories() {
            let approvals = category.map(rules.approvals(for:)) ?? rules.requiredApprovals
            if approvals > (strictest?.approvals ?? 0) { strictest = (approvals, rules.rulePointer(for: category)) }
        }
        if let strictest { throw .reviewRequired(document: name, rule: strictest.rule, approvals: strictest.approvals) }
    }

    /// The category of a template row's document (`nil` when it has none it can tell).
    static func category(_ row: CurrentDocument) -> Template.Category? {
        ChangeRequestReview.category(ofDocument: row.document)
    }
}
