import EmptyStateCore
import JSONCoding

/// What happens to a change request, each inside a catalogue transaction: opened, edited,
/// commented on, approved or rejected, withdrawn, scheduled, given preview tokens. Each action
/// is a revision of the request's document (the audit trail, and on PostgreSQL the change feed
/// that tells other replicas), with its line in `change_request` and, for reviews, a review
/// record. The publication and rollback are in `+Publish`.
///
/// Events emitted (`CatalogueEvent`): `changeRequest.opened` (payload `id`, `title`, `author`,
/// `version`, `targets`, and `rollbackOf` for a rollback request) and `changeRequest.approved`
/// (`id`, `version`, `approvals`, `required`, `approved`: whether it now has what it needs).
extension CatalogueWrite {
    // MARK: - Reads

    /// Request `id` as this transaction sees it; `nil` when there is none.
    package func changeRequest(_ id: Int) throws(StoreError) -> StoredChangeRequest? {
        guard let row = try current(ChangeRequest.documentID(id), kind: .changeRequest) else { return nil }
        return StoredChangeRequest(request: try ChangeRequest(storedText: row.document), revision: row.revision)
    }

    /// The review records of request `id`, oldest first.
    package func reviews(of id: Int) throws(StoreError) -> [ReviewRecord] {
        try flush()
        return try transaction.reviews(of: id)
    }

    /// The preview tokens of these requests, revoked ones included.
    package func previewTokens(of ids: [Int]) throws(StoreError) -> [PreviewTokenRecord] {
        try flush()
        return try transaction.previewTokens(of: ids)
    }

    /// The preview token whose secret hashes to `secretSHA256`, revoked or not; `nil` when none.
    package func previewToken(secretSHA256: String) throws(StoreError) -> PreviewTokenRecord? {
        try flush()
        return try transaction.previewToken(secretSHA256: secretSHA256)
    }

    /// The categories of the live templates `request` changes, by id.
    package func liveCategories(of request: ChangeRequest) throws(StoreError) -> [String: Template.Category] {
        let ids = request.changes.compactMap { change -> String? in
            change.target.documentKind == .template ? change.target.documentID : nil
        }
        guard !ids.isEmpty else { return [:] }
        var categories: [String: Template.Category] = [:]
        for (id, row) in try currentRows(ids, kind: .template) where !row.deleted {
            categories[id] = Self.category(row)
        }
        return categories
    }

    /// Where `request` stands with its reviewers under the rules of this transaction.
    package func review(of request: ChangeRequest) throws(StoreError) -> ChangeRequestReview {
        ChangeRequestReview(
            request,
            reviews: try reviews(of: request.id),
            rules: try reviewRules().rules,
            categories: try liveCategories(of: request)
        )
    }

    /// The next number of `sequence`, after the rows queued so far.
    func nextNumber(_ sequence: CatalogueSequence) throws(StoreError) -> Int {
        try flush()
        return try transaction.nextNumber(sequence)
    }

    // MARK: - Actions

    /// Opens a request of `changes` (validated by the caller, each with its base revision).
    package func openChangeRequest(
        title: String,
        description: String,
        changes: [ProposedChange],
        rollbackOf: Int? = nil,
        actor: String
    ) throws(StoreError) -> StoredChangeRequest {
        let id = try nextNumber(.changeRequest)
        let now = Timestamp.now()
        let request = ChangeRequest(
            id: id,
            title: title,
            description: description,
            author: actor,
            contributors: [actor],
            changes: changes,
            rollbackOf: rollbackOf,
            createdAt: now,
            updatedAt: now
        )
        let stored = record(
            request,
            after: nil,
            action: .propose,
            changed: ["/"],
            note: rollbackOf.map { "rolls back change request #\($0)" },
            actor: actor
        )
        var payload: [(key: String, value: JSONValue)] = [
            ("id", .number(Double(id))), ("title", .string(title)), ("author", .string(actor)),
            ("version", .number(1)),
            ("targets", .array(ChangeRequestSummary(request, revision: 1).targets.map(JSONValue.string))),
        ]
        if let rollbackOf { payload.append(("rollbackOf", .number(Double(rollbackOf)))) }
        emit(
            CatalogueEvent(
                kind: .changeRequestOpened,
                subjectID: String(id),
                actor: actor,
                occurredAt: now,
                payload: .object(payload)
            )
        )
        return stored
    }

    /// Edits a request: any of its title, description and changes. Its version goes up, so the
    /// approvals given so far no longer count; a rejected request is reopened, a scheduled one
    /// loses its schedule (it was set for what was approved). An edit that changes nothing
    /// records nothing.
    /// - Parameter action: `.edit`, or `.rebase` (new base revisions after the editor looked).
    /// - Throws: `ChangeRequestError.notFound` or `.closed`; `StoreError.stale` when the request
    ///   is not at `expectedRevision`.
    package func editChangeRequest(
        _ id: Int,
        expectedRevision: Int,
        title: String? = nil,
        description: String? = nil,
        changes: [ProposedChange]? = nil,
        action: RevisionRecord.Action = .edit,
        actor: String
    ) throws -> StoredChangeRequest {
        let stored = try activeRequest(id, expectedRevision: expectedRevision)
        var request = stored.request
        var changed: [String] = []
        if let title, title != request.title {
            request.title = title
            changed.append("/title")
        }
        if let description, description != request.description {
            request.description = description
            changed.append("/description")
        }
        if let changes, changes != request.changes {
            request.changes = changes
            changed.append("/changes")
        }
        guard !changed.isEmpty else { return stored }
        request.version += 1
        changed.append("/version")
        if !request.contributors.contains(actor) { request.contributors.append(actor) }
        if request.state == .rejected {
            request.state = .open
            changed.append("/state")
        }
        var note: String?
        if request.schedule != nil {
            request.schedule = nil
            changed.append("/schedule")
            note = "the schedule was cancelled: it was set for the version before this edit"
        }
        return record(request, after: stored, action: action, changed: changed, note: note, actor: actor)
    }

    /// Adds a comment (on a request in any state: notes after a publication are welcome).
    /// - Parameter expectedRevision: when given, the request must be at it.
    package func comment(
        on id: Int,
        text: String,
        expectedRevision: Int?,
        actor: String
    ) throws -> (request: StoredChangeRequest, comment: ReviewRecord) {
        let stored = try existingRequest(id)
        if let expectedRevision, stored.revision != expectedRevision {
            throw StoreError.stale(id: String(id), current: stored.revision)
        }
        let comment = try addReview(.comment, to: stored.request, text: text, actor: actor)
        var request = stored.request
        request.updatedAt = comment.at
        return (
            record(request, after: stored, action: .comment, changed: ["/comments"], note: text, actor: actor), comment
        )
    }

    /// Approves (or rejects) version `version` of a request. The role is the caller's to check;
    /// here: the version must be the current one, and nobody who opened, edited or rebased the
    /// request approves or rejects it. A rejection marks the request rejected (and drops its
    /// schedule) until an edit reopens it.
    /// - Throws: `ChangeRequestError` `.notFound`, `.closed`, `.rejected` (approving a rejected
    ///   request), `.staleVersion`, `.ownChange`.
    package func review(
        _ id: Int,
        approve: Bool,
        version: Int,
        text: String,
        actor: String
    ) throws -> (request: StoredChangeRequest, review: ReviewRecord, standing: ChangeRequestReview) {
        let stored = try existingRequest(id)
        var request = stored.request
        guard request.state.isActive else { throw ChangeRequestError.closed(id: id, state: request.state) }
        if approve, request.state == .rejected { throw ChangeRequestError.rejected(id: id) }
        guard version == request.version else {
            throw ChangeRequestError.staleVersion(id: id, current: request.version)
        }
        guard !request.contributors.contains(actor) else { throw ChangeRequestError.ownChange(id: id, reviewer: actor) }
        let given = try addReview(approve ? .approval : .rejection, to: request, text: text, actor: actor)
        request.updatedAt = given.at
        var changed = [approve ? "/approvals" : "/state"]
        if !approve {
            request.state = .rejected
            if request.schedule != nil {
                request.schedule = nil
                changed.append("/schedule")
            }
        }
        let saved = record(
            request,
            after: stored,
            action: approve ? .approve : .reject,
            changed: changed,
            note: text.isEmpty ? nil : text,
            actor: actor
        )
        let standing = try review(of: request)
        if approve {
            emit(
                CatalogueEvent(
                    kind: .changeRequestApproved,
                    subjectID: String(id),
                    actor: actor,
                    occurredAt: given.at,
                    payload: .object([
                        ("id", .number(Double(id))), ("version", .number(Double(request.version))),
                        ("approvals", .number(Double(standing.approvedBy.count))),
                        ("required", .number(Double(standing.required))), ("approved", .bool(standing.isApproved)),
                    ])
                )
            )
        }
        return (saved, given, standing)
    }

    /// Withdraws a request: it is closed for good (its preview tokens stop working).
    /// - Parameter mayActForOthers: the caller may withdraw another author's request (an admin).
    /// - Throws: `ChangeRequestError.notAuthor` when the caller is neither its author nor allowed.
    package func withdraw(
        _ id: Int,
        expectedRevision: Int,
        mayActForOthers: Bool,
        actor: String
    ) throws -> StoredChangeRequest {
        let stored = try activeRequest(id, expectedRevision: expectedRevision)
        var request = stored.request
        guard request.author == actor || mayActForOthers else {
            throw ChangeRequestError.notAuthor(id: id, author: request.author)
        }
        request.state = .withdrawn
        var changed = ["/state"]
        if request.schedule != nil {
            request.schedule = nil
            changed.append("/schedule")
        }
        return record(request, after: stored, action: .withdraw, changed: changed, note: nil, actor: actor)
    }

    /// Sets when an approved request is published (the caller checked that `at` is ahead).
    /// - Throws: `.rejected`, or `.approvalsMissing` when it lacks its approvals.
    package func schedule(
        _ id: Int,
        at: Int64,
        expectedRevision: Int,
        actor: String
    ) throws -> StoredChangeRequest {
        let stored = try activeRequest(id, expectedRevision: expectedRevision)
        var request = stored.request
        if request.state == .rejected { throw ChangeRequestError.rejected(id: id) }
        let standing = try review(of: request)
        guard standing.isApproved else {
            throw ChangeRequestError.approvalsMissing(
                id: id,
                have: standing.approvedBy.count,
                need: standing.required,
                rule: standing.rule,
                emergency: false
            )
        }
        let now = Timestamp.now()
        request.schedule = ChangeRequest.Schedule(at: at, by: actor, setAt: now)
        return record(
            request,
            after: stored,
            action: .schedule,
            changed: ["/schedule"],
            note: "to be published at \(Timestamp.format(milliseconds: at))",
            actor: actor
        )
    }

    /// Cancels a request's schedule.
    /// - Parameter note: why, when it is not the caller's choice (the scheduler dropping it).
    /// - Throws: `.notScheduled` when it has none.
    package func unschedule(
        _ id: Int,
        expectedRevision: Int?,
        note: String? = nil,
        actor: String
    ) throws -> StoredChangeRequest {
        let stored = try existingRequest(id)
        if let expectedRevision, stored.revision != expectedRevision {
            throw StoreError.stale(id: String(id), current: stored.revision)
        }
        guard stored.request.state.isActive else {
            throw ChangeRequestError.closed(id: id, state: stored.request.state)
        }
        var request = stored.request
        guard request.schedule != nil else { throw ChangeRequestError.notScheduled(id: id) }
        request.schedule = nil
        return record(request, after: stored, action: .unschedule, changed: ["/schedule"], note: note, actor: actor)
    }

    /// Creates a preview token of request `id` (its secret's hash only); audited on the request.
    /// - Throws: `ChangeRequestError.notFound`, `.closed` (published, withdrawn), `.rejected`.
    package func createPreviewToken(
        for id: Int,
        name: String,
        secretSHA256: String,
        expiresAt: Int64,
        actor: String
    ) throws -> (request: StoredChangeRequest, token: PreviewTokenRecord) {
        let stored = try existingRequest(id)
        guard stored.request.state.isActive else {
            throw ChangeRequestError.closed(id: id, state: stored.request.state)
        }
        // A rejected request's tokens are refused on the client API (`PreviewChannel`): a new
        // one would not work until the request is edited, which reopens it.
        if stored.request.state == .rejected { throw ChangeRequestError.rejected(id: id) }
        let token = PreviewTokenRecord(
            id: try nextNumber(.previewToken),
            changeRequestID: id,
            name: name,
            secretSHA256: secretSHA256,
            createdBy: actor,
            createdAt: Timestamp.now(),
            expiresAt: expiresAt
        )
        pending.previewTokens.append(token)
        var request = stored.request
        request.updatedAt = token.createdAt
        let saved = record(
            request,
            after: stored,
            action: .previewToken,
            changed: ["/previewTokens"],
            note:
                "preview token \(token.id) (\(name)) created, valid until \(Timestamp.format(milliseconds: expiresAt))",
            actor: actor
        )
        return (saved, token)
    }

    /// Revokes a preview token of request `id`; revoking a revoked token changes nothing.
    /// - Throws: `.unknownPreviewToken`.
    package func revokePreviewToken(
        _ tokenID: Int,
        of id: Int,
        actor: String
    ) throws -> PreviewTokenRecord {
        let stored = try existingRequest(id)
        try flush()
        guard var token = try transaction.previewTokens(of: [id]).first(where: { $0.id == tokenID }) else {
            throw ChangeRequestError.unknownPreviewToken(id: id, token: tokenID)
        }
        guard token.revokedAt == nil else { return token }
        let now = Timestamp.now()
        token.revokedAt = now
        token.revokedBy = actor
        pending.previewTokens.append(token)
        var request = stored.request
        request.updatedAt = now
        record(
            request,
            after: stored,
            action: .previewToken,
            changed: ["/previewTokens"],
            note: "preview token \(tokenID) (\(token.name)) revoked",
            actor: actor
        )
        return token
    }

    // MARK: - Pieces

    /// Request `id`.
    /// - Throws: `ChangeRequestError.notFound`.
    func existingRequest(_ id: Int) throws -> StoredChangeRequest {
        guard let stored = try changeRequest(id) else { throw ChangeRequestError.notFound(id: id) }
        return stored
    }

    /// Request `id`, still open to changes, at `expectedRevision`.
    /// - Throws: `ChangeRequestError.notFound`, `.closed` (published or withdrawn);
    ///   `StoreError.stale`.
    func activeRequest(_ id: Int, expectedRevision: Int) throws -> StoredChangeRequest {
        let stored = try existingRequest(id)
        guard stored.request.state.isActive else {
            throw ChangeRequestError.closed(id: id, state: stored.request.state)
        }
        if stored.revision != expectedRevision { throw StoreError.stale(id: String(id), current: stored.revision) }
        return stored
    }

    /// Queues a review record of `request`'s current version.
    private func addReview(
        _ kind: ReviewRecord.Kind,
        to request: ChangeRequest,
        text: String,
        actor: String
    ) throws(StoreError) -> ReviewRecord {
        let review = ReviewRecord(
            changeRequestID: request.id,
            seq: try nextNumber(.review),
            kind: kind,
            author: actor,
            at: Timestamp.now(),
            version: request.version,
            text: text
        )
        pending.reviews.append(review)
        return review
    }

    /// Queues `request` as the revision after `previous` (`nil`: its first), with its line.
    @discardableResult
    func record(
        _ request: ChangeRequest,
        after previous: StoredChangeRequest?,
        action: RevisionRecord.Action,
        changed: [String],
        note: String?,
        actor: String
    ) -> StoredChangeRequest {
        var request = request
        let now = Timestamp.now()
        request.updatedAt = max(request.updatedAt, now)
        let revision = (previous?.revision ?? 0) + 1
        queue(
            RevisionWrite(
                documentID: ChangeRequest.documentID(request.id),
                kind: DocumentKind.changeRequest.rawValue,
                revision: revision,
                action: action,
                document: StoredDocuments.text(of: request.document),
                changedFields: StoredDocuments.changedFieldsText(changed),
                at: now,
                by: actor,
                note: note
            ),
            edited: true
        )
        pending.changeRequests.append(ChangeRequestSummary(request, revision: revision))
        return StoredChangeRequest(request: request, revision: revision)
    }
}
