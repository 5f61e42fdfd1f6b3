/// Which changes an audit query returns: every condition given must hold.
package struct AuditFilter: Sendable, Equatable {
    /// One document's changes (a template id, or `StoredDocuments.appPolicyID`).
    package var documentID: String?
    /// Only the changes of one kind of document (templates, app policies, experiments, change
    /// requests, the review rules, webhooks); `nil`: every kind. Ignored with `documentID`.
    package var kind: DocumentKind?
    /// The author, exactly (a token's name).
    package var actor: String?
    package var action: RevisionRecord.Action?
    /// Changes at or after this instant (`Timestamp` text, whole seconds, UTC).
    package var from: String?
    /// Changes before this instant.
    package var to: String?
    /// Changes to this field or below it: a JSON pointer prefix (`/strings/fr` finds
    /// `/strings/fr/title`); matched against each revision's changed fields.
    package var field: String?

    package init(
        documentID: String? = nil,
        kind: DocumentKind? = nil,
        actor: String? = nil,
        action: RevisionRecord.Action? = nil,
        from: String? = nil,
        to: String? = nil,
        field: String? = nil
    ) {
        self.documentID = documentID
        self.kind = kind
        self.actor = actor
        self.action = action
        self.from = from
        self.to = to
        self.field = field
    }
}
