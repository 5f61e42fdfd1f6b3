import EmptyStateCore
import JSONCoding

/// What a publication wrote, for the caller to serve: every document it changed, as stored.
package struct ChangeRequestPublication: Sendable {
    package var request: StoredChangeRequest
    /// Templates created or replaced, and deleted ones with their deletion's revision.
    package var templates: [StoredTemplate] = []
    package var removedTemplates: [(id: String, revision: Int)] = []
    package var policies: [StoredAppPolicy] = []
    package var experiments: [StoredExperiment] = []
    /// The request this publication rolled back, as it is now.
    package var rolledBack: StoredChangeRequest?

    package init(request: StoredChangeRequest) {
        self.request = request
    }
}

/// How a publication is asked for.
package enum PublishClaim: Sendable, Equatable {
    /// By someone, now: the request must be at `expectedRevision`. `emergency`: publish a
    /// rollback request without its approvals, when the rules allow it.
    case now(expectedRevision: Int, emergency: Bool)
    /// By the scheduler at instant `now` (milliseconds since the epoch): the request must still
    /// be scheduled, at or before `now`. Whoever claims it first under the catalogue write lock
    /// publishes it; the others find it published (or no longer scheduled) and do nothing.
    case scheduled(now: Int64)
}

/// What a scheduled publication came to.
package enum ScheduledOutcome: Sendable {
    case published(ChangeRequestPublication)
    /// Not (or no longer) due: published by another replica, cancelled, or moved.
    case notDue
    /// Due, but it could not be published (its approvals no longer suffice, or live moved under
    /// it): its schedule was dropped, and the request says why.
    case dropped(request: StoredChangeRequest, reason: String)
}

/// The publication of a change request, and its rollback request.
///
/// A publication is one catalogue transaction: the request is claimed (its state and schedule
/// read under the write lock), its approvals and every change's base revision checked, every
/// change applied through the same edits a direct write uses (the template rules, revisions,
/// the audit trail, each revision noted `change request #n`), and the request marked
/// published; on PostgreSQL all of it is announced with one feed insert and one NOTIFY. It
/// commits whole or not at all. Emits `changeRequest.published` (payload `id`, `title`,
/// `version`, `revisions`: each change's document, revision before and after, `scheduled`,
/// `lateMilliseconds`, `emergency`) and, for a rollback request, `changeRequest.rolledBack`
/// about the request it undid (`id`, `rollbackRequestId`).
extension CatalogueWrite {
    /// Publishes request `id` as `claim` says.
    /// - Returns: what was written; `nil` for a scheduled claim that is not due (see
    ///   `ScheduledOutcome`, which `publishScheduled` makes of it).
    /// - Throws: `ChangeRequestError` (`.notFound`, `.closed`, `.rejected`, `.approvalsMissing`,
    ///   `.conflicts`), `StoreError` (`.stale`; `.conflicts` when a document no longer passes
    ///   the rules it passed when it was proposed).
    package func publishChangeRequest(
        _ id: Int,
        claim: PublishClaim,
        actor: String
    ) throws
        -> ChangeRequestPublication?
    {
        let stored = try existingRequest(id)
        var request = stored.request
        let nowText = Timestamp.now()
        var scheduledAt: Int64?
        var late: Int64 = 0
        switch claim {
        case .now(let expected, _):
            guard request.state.isActive else { throw ChangeRequestError.closed(id: id, state: request.state) }
            if stored.revision != expected { throw StoreError.stale(id: String(id), current: stored.revision) }
        case .scheduled(let now):
            guard request.state == .open, let schedule = request.schedule, schedule.at <= now else { return nil }
            scheduledAt = schedule.at
            late = now - schedule.at
        }
        if request.state == .rejected { throw ChangeRequestError.rejected(id: id) }
        let standing = try review(of: request)
        var emergency = false
        if !standing.isApproved {
            let rules = try reviewRules().rules
            let allowed = request.rollbackOf != nil && rules.allowEmergencyRollback
            if case .now(_, true) = claim, allowed {
                emergency = true
            } else {
                throw ChangeRequestError.approvalsMissing(
                    id: id,
                    have: standing.approvedBy.count,
                    need: standing.required,
                    rule: standing.rule,
                    emergency: allowed
                )
            }
        }
        let rows = try currentRows(of: request.changes)
        let conflicts = try conflicts(of: request.changes, rows: rows)
        if !conflicts.isEmpty { throw ChangeRequestError.conflicts(id: id, conflicts) }

        var publication = ChangeRequestPublication(request: stored)
        var revisions: [ChangeRequest.RevisionChange] = []
        var expected = rows.mapValues(\.revision)
        reviewed = true
        revisionNote = "change request #\(id): \(request.title)"
        defer {
            reviewed = false
            revisionNote = nil
        }
        for (index, change) in request.changes.enumerated() {
            let documentID = change.target.documentID
            let before = expected[documentID] ?? 0
            let after = try apply(change, index: index, expected: before, actor: actor, into: &publication)
            expected[documentID] = after
            revisions.append(.init(before: before, after: after))
        }
        reviewed = false
        revisionNote = nil
        request.state = .published
        request.schedule = nil
        request.publication = ChangeRequest.Publication(
            at: nowText,
            by: actor,
            scheduledAt: scheduledAt,
            lateMilliseconds: max(0, late),
            emergency: emergency,
            revisions: revisions
        )
        var note = scheduledAt.map {
            "published on its schedule (\(Timestamp.format(milliseconds: $0))), \(max(0, late)) ms after it"
        }
        if emergency { note = "emergency rollback, published without the approvals the review rules ask for" }
        publication.request = record(
            request,
            after: stored,
            action: .publish,
            changed: ["/state", "/publication"] + (stored.request.schedule == nil ? [] : ["/schedule"]),
            note: note,
            actor: actor
        )
        emitPublished(request, revisions: revisions, at: nowText, actor: actor)
        if let of = request.rollbackOf, let original = try changeRequest(of), original.request.rolledBackBy == nil {
            var undone = original.request
            undone.rolledBackBy = id
            publication.rolledBack = record(
                undone,
                after: original,
                action: .rollback,
                changed: ["/rolledBackBy"],
                note: "rolled back by change request #\(id)" + (emergency ? " (emergency)" : ""),
                actor: actor
            )
            emit(
                CatalogueEvent(
                    kind: .changeRequestRolledBack,
                    subjectID: String(of),
                    actor: actor,
                    occurredAt: nowText,
                    payload: .object([
                        ("id", .number(Double(of))), ("rollbackRequestId", .number(Double(id))),
                        ("emergency", .bool(emergency)),
                    ])
                )
            )
        }
        return publication
    }

    /// The scheduler's claim of request `id` at `now`: published when it is due and may be;
    /// when it is due and may not (approvals or conflicts), its schedule is dropped with the
    /// reason, in this transaction, so the next due request is not held up behind it.
    package func publishScheduled(_ id: Int, now: Int64, actor: String) throws -> ScheduledOutcome {
        do {
            guard let publication = try publishChangeRequest(id, claim: .scheduled(now: now), actor: actor) else {
                return .notDue
            }
            return .published(publication)
        } catch let error as ChangeRequestError {
            let reason: String
            switch error {
            case .approvalsMissing(_, let have, let need, let rule, _):
                reason = "it has \(have) of the \(need) approvals the review rules ask for (\(rule))"
            case .conflicts(_, let conflicts):
                reason =
                    "live changed under it since it was made (\(conflicts.map(\.target.label).joined(separator: ", "))): rebase it"
            case .rejected:
                reason = "it was rejected"
            default:
                throw error
            }
            let dropped = try unschedule(
                id,
                expectedRevision: nil,
                note: "not published on its schedule: \(reason)",
                actor: actor
            )
            return .dropped(request: dropped, reason: reason)
        }
    }

    /// Opens the request that undoes published request `id`: for each document it changed, the
    /// document as it was before (a template it created is deleted), based on the revision the
    /// publication wrote, so that a change published since shows as a conflict. Policies and
    /// experiments it created stay (neither is ever deleted: the description says so); an
    /// experiment it started is stopped.
    /// - Throws: `.nothingToRollBack` unless the request was published and not rolled back.
    package func openRollback(of id: Int, actor: String) throws -> StoredChangeRequest {
        let stored = try existingRequest(id)
        let request = stored.request
        guard request.state == .published, let publication = request.publication else {
            throw ChangeRequestError.nothingToRollBack(id: id, reason: "it was not published")
        }
        if let by = request.rolledBackBy {
            throw ChangeRequestError.nothingToRollBack(id: id, reason: "change request #\(by) rolled it back already")
        }
        // Each document once: from its revision before the first change to the last one's after.
        var order: [String] = []
        var spans: [String: (target: ProposedChange.Target, before: Int, after: Int)] = [:]
        for (change, revision) in zip(request.changes, publication.revisions) where revision.after != revision.before {
            let documentID = change.target.documentID
            if let span = spans[documentID] {
                spans[documentID] = (span.target, span.before, revision.after)
            } else {
                order.append(documentID)
                spans[documentID] = (change.target, revision.before, revision.after)
            }
        }
        var changes: [ProposedChange] = []
        var kept: [String] = []
        for documentID in order {
            let span = spans[documentID]!
            var before: String?
            if span.before > 0 {
                try flush()
                if case .document(let text) = try transaction.recorded(documentID: documentID, revision: span.before) {
                    before = text
                }
            }
            switch span.target {
            case .template(let templateID), .templateStrings(let templateID, _), .templateDeletion(let templateID):
                if let before {
                    changes.append(
                        ProposedChange(
                            target: .template(id: templateID),
                            document: try StoredDocuments.json(before),
                            baseRevision: span.after
                        )
                    )
                } else {
                    changes.append(
                        ProposedChange(
                            target: .templateDeletion(id: templateID),
                            document: nil,
                            baseRevision: span.after
                        )
                    )
                }
            case .appPolicy(let platform):
                if let before {
                    changes.append(
                        ProposedChange(
                            target: .appPolicy(platform),
                            document: try StoredDocuments.json(before),
                            baseRevision: span.after
                        )
                    )
                } else {
                    kept.append("the \(platform.rawValue) app policy it created stays (policies are never deleted)")
                }
            case .experiment(let experimentID):
                if let change = try inverseExperiment(experimentID, before: before, after: span.after) {
                    changes.append(change)
                } else {
                    kept.append("the experiment \(experimentID) stays as it is (an experiment does not go back)")
                }
            }
        }
        var description =
            "Rolls back change request #\(id) (\(request.title)), published \(publication.at) by \(publication.by)."
        if !kept.isEmpty { description += " Not undone: " + kept.joined(separator: "; ") + "." }
        return try openChangeRequest(
            title: "Roll back #\(id): \(request.title)",
            description: description,
            changes: changes,
            rollbackOf: id,
            actor: actor
        )
    }

    // MARK: - Pieces

    /// The text of document `documentID` at revision `revision`; `nil` when it has no such
    /// revision or the revision records a deletion.
    package func documentText(_ documentID: String, revision: Int) throws(StoreError) -> String? {
        try flush()
        if case .document(let text) = try transaction.recorded(documentID: documentID, revision: revision) {
            return text
        }
        return nil
    }

    /// The current rows of every document `changes` target, by store id.
    package func currentRows(of changes: [ProposedChange]) throws(StoreError) -> [String: CurrentDocument] {
        var rows: [String: CurrentDocument] = [:]
        for kind in DocumentKind.allCases {
            let ids = changes.filter { $0.target.documentKind == kind }.map(\.target.documentID)
            guard !ids.isEmpty else { continue }
            rows.merge(try currentRows(Array(Set(ids)), kind: kind)) { $1 }
        }
        return rows
    }

    /// The conflict of each change whose document is no longer at its base revision.
    package func conflicts(
        of changes: [ProposedChange],
        rows: [String: CurrentDocument]
    ) throws(StoreError)
        -> [ChangeConflict]
    {
        var conflicts: [ChangeConflict] = []
        for (index, change) in changes.enumerated() {
            let current = rows[change.target.documentID]
            guard (current?.revision ?? 0) != change.baseRevision else { continue }
            var base: JSONValue?
            if change.baseRevision > 0 {
                try flush()
                if case .document(let text) = try transaction.recorded(
                    documentID: change.target.documentID,
                    revision: change.baseRevision
                ) {
                    base = try StoredDocuments.json(text)
                }
            }
            if let conflict = try ChangeRequestDiff.conflict(index: index, change, current: current, base: base) {
                conflicts.append(conflict)
            }
        }
        return conflicts
    }

    /// Applies one change at the revision its document is at now.
    /// - Returns: the document's revision after it.
    private func apply(
        _ change: ProposedChange,
        index: Int,
        expected: Int,
        actor: String,
        into publication: inout ChangeRequestPublication
    ) throws -> Int {
        let pointer = "/changes/\(index)"
        let live = try current(change.target.documentID, kind: change.target.documentKind).flatMap {
            $0.deleted ? nil : $0
        }
        switch change.target {
        case .template(let id):
            let template = try parsed(
                TemplateParser.parse(change.document ?? .null, expectedID: id),
                at: pointer + "/document"
            )
            let stored: StoredTemplate
            do {
                stored = try put(template, precondition: live == nil ? .absent : .revision(expected), actor: actor)
                    .stored
            } catch {
                // An id or alias another template took since: named in the request's body.
                throw Self.moved(error, under: pointer + "/document")
            }
            publication.templates.removeAll { $0.template.id == id }
            publication.templates.append(stored)
            return stored.revision
        case .templateStrings(let id, let locale):
            let stored = try updateStrings(id: id, expectedRevision: expected, actor: actor, note: nil) {
                (current: Template) throws -> Template in
                guard let merged = ChangeRequestDiff.proposedDocument(change, live: current.document) else {
                    throw StoreError.conflicts([(pointer, "the template is not live")])
                }
                // Pointers into the body of the change: `/changes/2/strings/title`.
                let prefix = "/strings/" + jsonPointerToken(locale)
                switch TemplateParser.parse(merged, expectedID: id) {
                case .success(let template): return template
                case .failure(let failure):
                    throw StoreError.conflicts(
                        failure.issues.map { issue in
                            let inner =
                                issue.pointer.hasPrefix(prefix) ? String(issue.pointer.dropFirst(prefix.count)) : ""
                            return (pointer + "/strings" + inner, issue.rule)
                        }
                    )
                }
            }
            publication.templates.removeAll { $0.template.id == id }
            publication.templates.append(stored)
            return stored.revision
        case .templateDeletion(let id):
            let revision = try delete(id: id, expectedRevision: expected, actor: actor)
            publication.templates.removeAll { $0.template.id == id }
            publication.removedTemplates.append((id, revision))
            return revision
        case .appPolicy(let platform):
            let policy = try parsed(
                AppPolicy.parse(change.document ?? .null, expectedPlatform: platform),
                at: pointer + "/document"
            )
            let (stored, _) = try putPolicy(
                policy,
                precondition: live == nil ? .absent : .revision(expected),
                actor: actor
            )
            publication.policies.append(stored)
            return stored.revision
        case .experiment(let id):
            var experiment = try parsed(
                ExperimentParser.parse(change.document ?? .null, expectedID: id),
                at: pointer + "/document"
            )
            var currentExperiment: Experiment?
            if let live { currentExperiment = try StoredDocuments.experiment(fromText: live.document) }
            experiment = try Self.lifecycle(experiment, over: currentExperiment, at: pointer + "/document")
            let (stored, _) = try putExperiment(
                experiment,
                precondition: live == nil ? .absent : .revision(expected),
                actor: actor
            )
            publication.experiments.append(stored)
            return stored.revision
        }
    }

    /// `error`, its conflicts' pointers under `prefix`.
    private static func moved(_ error: StoreError, under prefix: String) -> StoreError {
        guard case .conflicts(let clashes) = error else { return error }
        return .conflicts(clashes.map { (prefix + $0.pointer, $0.rule) })
    }

    /// `ExperimentLifecycle.apply`, its refusal as `.conflicts` under `pointer`.
    private static func lifecycle(
        _ experiment: Experiment,
        over current: Experiment?,
        at pointer: String
    ) throws(StoreError) -> Experiment {
        switch Result(catching: { () throws(ExperimentLifecycle.Refusal) -> Experiment in
            try ExperimentLifecycle.apply(experiment, over: current, now: Timestamp.now())
        }) {
        case .success(let applied): return applied
        case .failure(let refusal): throw .conflicts(refusal.issues.map { (pointer + $0.pointer, $0.rule) })
        }
    }

    /// The value of a parse, or its issues as `.conflicts` under `pointer` (a document that
    /// passed when it was proposed, and no longer does: the rules changed with a release).
    private func parsed<T>(_ result: Result<T, TemplateValidationError>, at pointer: String) throws(StoreError) -> T {
        switch result {
        case .success(let value): return value
        case .failure(let failure): throw .conflicts(failure.issues.map { (pointer + $0.pointer, $0.rule) })
        }
    }

    /// The change that undoes a publication's change of experiment `id`: it went back to its
    /// document `before` when the lifecycle allows; a start is undone by stopping it; `nil`
    /// when nothing can undo it.
    private func inverseExperiment(_ id: String, before: String?, after: Int) throws -> ProposedChange? {
        let documentID = StoredDocuments.experimentID(id)
        guard let now = try current(documentID, kind: .experiment), !now.deleted else { return nil }
        let current = try StoredDocuments.experiment(fromText: now.document)
        if let before {
            let previous = try StoredDocuments.experiment(fromText: before)
            if (try? ExperimentLifecycle.apply(previous, over: current, now: Timestamp.now())) != nil {
                return ProposedChange(target: .experiment(id: id), document: previous.document, baseRevision: after)
            }
        }
        guard current.status == .running else { return nil }
        var stopped = current
        stopped.status = .stopped
        return ProposedChange(target: .experiment(id: id), document: stopped.document, baseRevision: after)
    }

    /// `changeRequest.published`.
    private func emitPublished(
        _ request: ChangeRequest,
        revisions: [ChangeRequest.RevisionChange],
        at: String,
        actor: String
    ) {
        let written: [JSONValue] = zip(request.changes, revisions).map { change, revision in
            .object([
                ("target", .string(change.target.label)), ("before", .number(Double(revision.before))),
                ("after", .number(Double(revision.after))),
            ])
        }
        emit(
            CatalogueEvent(
                kind: .changeRequestPublished,
                subjectID: String(request.id),
                actor: actor,
                occurredAt: at,
                payload: .object([
                    ("id", .number(Double(request.id))), ("title", .string(request.title)),
                    ("version", .number(Double(request.version))), ("revisions", .array(written)),
                    ("scheduled", .bool(request.publication?.scheduledAt != nil)),
                    ("lateMilliseconds", .number(Double(request.publication?.lateMilliseconds ?? 0))),
                    ("emergency", .bool(request.publication?.emergency ?? false)),
                ])
            )
        )
    }
}
