import JSONCoding

/// Something a catalogue transaction did that systems outside the service may want to hear of
/// (a change request opened or published, a policy published, an experiment started …): what
/// the webhooks' outbox is made of.
///
/// Edits emit their events as they decide (`CatalogueWrite.emit(_:)`); once the edits are done
/// and their rows written, the transaction records all of them at once, inside itself and before
/// COMMIT (`CatalogueTransaction.record(_:)`), so an event exists exactly when the change it
/// tells of was committed: none is lost by a crash after the commit, and none is told of a change
/// that rolled back. What to do with them (an outbox row per subscription, delivered later) is
/// the backend's `record`.
///
/// The shape is a contract between the writes that emit events and the sinks that keep them:
/// add kinds and payload members, never change or remove one.
package struct CatalogueEvent: Sendable, Equatable {
    /// What happened. The raw value is the event's type as receivers see it (the Standard
    /// Webhooks `type`): `<subject>.<past participle>`, camelCase like the API's members.
    package enum Kind: String, Sendable, CaseIterable {
        /// A change request was opened (created); also a rollback request.
        case changeRequestOpened = "changeRequest.opened"
        /// A change request was approved by a reviewer (one event per approval; the payload says
        /// whether the request now has the approvals it needs).
        case changeRequestApproved = "changeRequest.approved"
        /// A change request's changes were published, at once or on its schedule.
        case changeRequestPublished = "changeRequest.published"
        /// A published change request was rolled back: its rollback request was published. The
        /// subject is the request rolled back; the payload names the rollback request.
        case changeRequestRolledBack = "changeRequest.rolledBack"
        /// An app policy was published (created, replaced or rolled back; directly or by a
        /// change request).
        case appPolicyPublished = "appPolicy.published"
        /// An experiment started running.
        case experimentStarted = "experiment.started"
        /// A running experiment was stopped.
        case experimentStopped = "experiment.stopped"
        /// An experiment's variant was shipped (the experiment ended as `shipped`).
        case experimentShipped = "experiment.shipped"
    }

    package var kind: Kind
    /// The id of what it happened to: a change request's id, an experiment's id, or a platform
    /// (`ios`) for an app policy.
    package var subjectID: String
    /// Who did it: a token's name (`scheduler` for a scheduled publication).
    package var actor: String
    /// When, as the store records times (`Timestamp.now()`: RFC 3339, whole seconds, UTC): the
    /// time of the transaction's revisions.
    package var occurredAt: String
    /// A small JSON object of what receivers need to act without a read back (ids, revisions,
    /// the new state); its members per kind are documented where the event is emitted
    /// (`CatalogueWrite`'s policy and experiment writes; the change requests' edits).
    package var payload: JSONValue

    package init(kind: Kind, subjectID: String, actor: String, occurredAt: String, payload: JSONValue) {
        self.kind = kind
        self.subjectID = subjectID
        self.actor = actor
        self.occurredAt = occurredAt
        self.payload = payload
    }
}
