import EmptyStateCore
import JSONCoding

/// The catalogue's writes, each written once over any backend's `CatalogueTransaction`: one
/// value is one transaction, and every edit made through it commits together with the others,
/// or none does (`TemplateStoring.write(_:)`).
///
/// Each edit reads what its decision needs, decides with `CatalogueRules` (precondition, plan,
/// conflicts), describes the result with `RevisionWrite`, and queues its rows. Queued rows are
/// handed to the transaction in one batch before the next read (so an edit sees the ones before
/// it: two templates of one change cannot claim the same alias) and when the transaction ends,
/// then every revision is announced at once. So one edit costs a backend a few reads and one
/// batch of writes, and N edits cost N times the reads and still one batch at the end when they
/// read nothing in between.
///
/// Making several edits atomic is calling several of these methods in one `write { … }`; a
/// precondition that fails in any of them throws out of the closure and rolls all of them back.
/// New kinds of rows that must commit with the edits (the state of a change request) are new
/// requirements of `CatalogueTransaction` and new queued rows here, not new transactions. What
/// the edits did that other systems may want to hear of is emitted as `CatalogueEvent`s
/// (`emit(_:)`), which the transaction records before it commits (`CatalogueTransaction.record`).
///
/// Not `Sendable`: it lives on the thread that runs its transaction, for the length of it.
package final class CatalogueWrite {
    /// Internal, not private: the edits of other files (`CatalogueWrite+Webhooks`,
    /// `CatalogueWrite+ChangeRequests`) write their own rows through it.
    let transaction: any CatalogueTransaction
    var pending = CatalogueRows()
    /// The review rules, once read in this transaction.
    var rulesRead: StoredReviewRules?
    /// Set while a reviewed change request is published: its writes are not held back by the
    /// review rules, which only hold back direct writes (`checkDirectWrite`).
    var reviewed = false
    /// The note of the revisions written while it is set (a publication's `change request #4`),
    /// for those that have none of their own.
    var revisionNote: String?
    /// Every revision written so far, in order: what `run` announces once the edits are done.
    package private(set) var written: [RevisionWrite] = []
    /// Every event emitted so far, in order: what `run` records once the edits are done.
    package private(set) var events: [CatalogueEvent] = []

    private init(_ transaction: any CatalogueTransaction) {
        self.transaction = transaction
    }

    /// Runs `edits` over `transaction`, then writes what they queued and announces it. The backend
    /// commits when this returns and rolls back when it throws.
    /// - Throws: what `edits` throws, as it is; `StoreError` from the transaction.
    package static func run<T>(
        on transaction: any CatalogueTransaction,
        _ edits: (CatalogueWrite) throws -> T
    ) throws -> T {
        let write = CatalogueWrite(transaction)
        let value = try edits(write)
        try write.flush()
        if !write.written.isEmpty { try transaction.announce(write.written) }
        if !write.events.isEmpty { try transaction.record(write.events) }
        return value
    }

    /// Emits `event`: recorded with this transaction when it commits (and never if it does not).
    package func emit(_ event: CatalogueEvent) {
        events.append(event)
    }

    // MARK: - Reads (each sees the rows queued before it)

    /// The current row of document `id` of `kind`, live or deleted; `nil` when none ever had it.
    package func current(_ id: String, kind: DocumentKind) throws(StoreError) -> CurrentDocument? {
        try currentRows([id], kind: kind)[id]
    }

    /// The current rows of the documents of `kind` with these ids, by id (one read).
    func currentRows(_ ids: [String], kind: DocumentKind) throws(StoreError) -> [String: CurrentDocument] {
        try flush()
        return try transaction.currentRows(ids, kind: kind)
    }

    /// Throws `.conflicts` when `template`'s id or aliases clash with other live templates
    /// (`CatalogueRules.checkConflicts`); writes nothing.
    package func checkConflicts(_ template: Template) throws(StoreError) {
        try flush()
        let aliasOwners = try transaction.aliasOwners(
            of: CatalogueRules.claimedNames(template),
            except: template.id
        )
        let liveIDs = try transaction.liveTemplateIDs(among: template.aliases, except: template.id)
        try CatalogueRules.checkConflicts(template, aliasOwners: aliasOwners, liveIDs: liveIDs)
    }

    /// The plan of a create or replace of document `id` (`CatalogueRules.put`).
    /// - Parameter name: the document as errors name it.
    private func planPut(
        _ id: String,
        kind: DocumentKind,
        name: String,
        precondition: WritePrecondition
    ) throws(StoreError) -> CatalogueRules.Plan {
        try CatalogueRules.put(name: name, current: try current(id, kind: kind), precondition: precondition)
    }

    /// The plan of a rollback of document `id` (`CatalogueRules.rollback`) and the text it
    /// restores: revision `target`'s.
    /// - Parameter name: the document as errors name it.
    private func planRollback(
        _ id: String,
        kind: DocumentKind,
        name: String,
        to target: Int,
        expectedRevision: Int?
    ) throws(StoreError) -> (plan: CatalogueRules.Plan, text: String) {
        let plan = try CatalogueRules.rollback(
            name: name,
            current: try current(id, kind: kind),
            expectedRevision: expectedRevision
        )
        return (plan, try rollbackText(id, name: name, number: target))
    }

    /// The text revision `number` of document `documentID` holds, for a rollback.
    /// - Parameter name: the document as errors name it.
    private func rollbackText(_ documentID: String, name: String, number: Int) throws(StoreError) -> String {
        try flush()
        return try CatalogueRules.rollbackText(
            name: name,
            number: number,
            target: try transaction.recorded(documentID: documentID, revision: number)
        )
    }

    // MARK: - Queuing rows

    /// Queues a document's current row and its revision.
    func queue(_ write: RevisionWrite, edited: Bool) {
        var write = write
        if write.note == nil { write.note = revisionNote }
        pending.documents.append((write, edited))
        pending.revisions.append(write)
        written.append(write)
    }

    /// Queues the deletion of a document (its row marked deleted) and the revision recording it.
    func queueDeletion(_ deletion: RevisionWrite) {
        pending.deletions.append(deletion)
        pending.revisions.append(deletion)
        written.append(deletion)
    }

    /// Queues a template's current row, strings, aliases and revision.
    /// - Parameter replacing: the live row the write replaces; `nil` when it had none.
    /// - Parameter marks: strings this write marks (`TemplateContent.marks`).
    @discardableResult
    func queue(
        _ template: Template,
        _ write: RevisionWrite,
        replacing: CurrentDocument?,
        edited: Bool,
        marks: [String: ReviewState] = [:]
    ) -> StoredTemplate {
        queue(write, edited: edited)
        pending.contents.append(TemplateContent(template, write, replacing: replacing, marks: marks))
        return StoredTemplate(template: template, revision: write.revision, updatedAt: write.at, updatedBy: write.by)
    }

    /// Hands the queued rows to the transaction.
    func flush() throws(StoreError) {
        guard !pending.isEmpty else { return }
        let rows = pending
        pending = CatalogueRows()
        try transaction.write(rows)
    }

    // MARK: - Templates

    /// Creates or replaces a template.
    /// - Returns: the stored template and whether it was created (or re-created after a delete).
    /// - Throws: `.alreadyExists`, `.notFound`, `.deleted`, `.stale` when the precondition fails;
    ///   `.conflicts` when an id or alias is taken by another template.
    package func put(
        _ template: Template,
        precondition: WritePrecondition,
        actor: String
    ) throws(StoreError) -> (stored: StoredTemplate, created: Bool) {
        let plan = try planPut(template.id, kind: .template, name: template.id, precondition: precondition)
        try checkDirectWrite(template.id) { [template.category, plan.replaced.flatMap(Self.category)] }
        try checkConflicts(template)
        let write = try RevisionWrite.template(template, plan: plan, actor: actor)
        return (queue(template, write, replacing: plan.replaced, edited: true), plan.created)
    }

    /// Replaces strings of a live template (a translator's unit of work). `build` runs inside the
    /// transaction, so nothing can change the template between the read it builds on and the
    /// write.
    /// - Parameters:
    ///   - note: why, recorded with the revision; `nil` for none.
    ///   - marks: strings whose review state this write sets, changed or not
    ///     (`TemplateContent.markKey` → state): a reviewer's confirmation of a translation,
    ///     which also makes a stale one current. A revision is written even when only marks
    ///     change (its changed fields are then empty, its note says why).
    ///   - build: makes the new template from the current one, or throws its validation error
    ///     (rethrown as it is; nothing is written).
    package func updateStrings<Failure: Error>(
        id: String,
        expectedRevision: Int,
        actor: String,
        note: String?,
        marks: [String: ReviewState] = [:],
        build: (Template) throws(Failure) -> Template
    ) throws -> StoredTemplate {
        let live = try CatalogueRules.change(
            name: id,
            current: try current(id, kind: .template),
            expectedRevision: expectedRevision
        )
        let current = try StoredDocuments.template(fromText: live.document)
        try checkDirectWrite(id) { [current.category] }
        let template = try build(current)
        let write = RevisionWrite.template(
            template,
            previous: current,
            revision: live.revision + 1,
            action: .strings,
            actor: actor,
            note: note
        )
        return queue(template, write, replacing: live, edited: true, marks: marks)
    }

    /// Deletes a live template: clients get 404 from now on; its revisions stay.
    /// - Returns: the revision that records the deletion.
    package func delete(id: String, expectedRevision: Int, actor: String) throws(StoreError) -> Int {
        let live = try CatalogueRules.change(
            name: id,
            current: try current(id, kind: .template),
            expectedRevision: expectedRevision
        )
        try checkDirectWrite(id) { [Self.category(live)] }
        let deletion = RevisionWrite.deletion(id: id, revision: live.revision + 1, actor: actor)
        pending.deletions.append(deletion)
        pending.revisions.append(deletion)
        written.append(deletion)
        return deletion.revision
    }

    /// Makes the content of revision `target` the newest revision; on a deleted template this
    /// restores it.
    /// - Parameter expectedRevision: when given, the current revision must equal it.
    package func rollback(
        id: String,
        to target: Int,
        expectedRevision: Int?,
        actor: String
    ) throws(StoreError) -> StoredTemplate {
        let (plan, text) = try planRollback(
            id,
            kind: .template,
            name: id,
            to: target,
            expectedRevision: expectedRevision
        )
        let template = try StoredDocuments.template(fromText: text)
        try checkDirectWrite(id) { [template.category, plan.replaced.flatMap(Self.category)] }
        try checkConflicts(template)
        let write = try RevisionWrite.template(template, plan: plan, actor: actor)
        return queue(template, write, replacing: plan.replaced, edited: true)
    }

    // MARK: - App policies (errors name the platform, not the row id)

    /// Creates (`.absent`) or replaces (`.revision(n)`) a platform's policy.
    package func putPolicy(
        _ policy: AppPolicy,
        precondition: WritePrecondition,
        actor: String
    ) throws(StoreError) -> (stored: StoredAppPolicy, created: Bool) {
        let id = StoredDocuments.appPolicyID(policy.platform)
        let plan = try planPut(id, kind: .appPolicy, name: policy.platform.rawValue, precondition: precondition)
        try checkDirectWrite(policy.platform.rawValue) { [nil] }
        return (queue(policy, try RevisionWrite.policy(policy, plan: plan, actor: actor)), plan.created)
    }

    /// Emits `appPolicy.published` for a policy just written. Payload: `platform`, `revision`,
    /// `action` (`create`, `replace` or `rollback`).
    private func emitPolicyPublished(_ write: RevisionWrite, platform: Platform) {
        emit(
            CatalogueEvent(
                kind: .appPolicyPublished,
                subjectID: platform.rawValue,
                actor: write.by,
                occurredAt: write.at,
                payload: .object([
                    ("platform", .string(platform.rawValue)), ("revision", .number(Double(write.revision))),
                    ("action", .string(write.action.rawValue)),
                ])
            )
        )
    }

    /// Makes the content of revision `target` of a platform's policy its newest revision.
    /// - Parameter expectedRevision: when given, the current revision must equal it.
    package func rollbackPolicy(
        platform: Platform,
        to target: Int,
        expectedRevision: Int?,
        actor: String
    ) throws(StoreError) -> StoredAppPolicy {
        let (plan, text) = try planRollback(
            StoredDocuments.appPolicyID(platform),
            kind: .appPolicy,
            name: platform.rawValue,
            to: target,
            expectedRevision: expectedRevision
        )
        let policy = try StoredDocuments.appPolicy(fromText: text)
        try checkDirectWrite(platform.rawValue) { [nil] }
        return queue(policy, try RevisionWrite.policy(policy, plan: plan, actor: actor))
    }

    private func queue(_ policy: AppPolicy, _ write: RevisionWrite) -> StoredAppPolicy {
        queue(write, edited: true)
        emitPolicyPublished(write, platform: policy.platform)
        return StoredAppPolicy(policy: policy, revision: write.revision, updatedAt: write.at, updatedBy: write.by)
    }

    // MARK: - Experiments (errors name the experiment's id, not the row id)

    /// Creates (`.absent`) or replaces (`.revision(n)`) an experiment. A change of status emits
    /// `experiment.started` (to `running`), `experiment.stopped` (`running` to `stopped`) or
    /// `experiment.shipped`; payload: `experimentId`, `templateId`, `revision`, `status`, and
    /// `variant` when shipped and the caller names it.
    /// - Parameter shippedVariant: the key of the variant shipped, for the event.
    /// - Returns: the stored experiment and whether it was created.
    package func putExperiment(
        _ experiment: Experiment,
        precondition: WritePrecondition,
        actor: String,
        shippedVariant: String? = nil
    ) throws(StoreError) -> (stored: StoredExperiment, created: Bool) {
        let id = StoredDocuments.experimentID(experiment.id)
        let plan = try planPut(id, kind: .experiment, name: experiment.id, precondition: precondition)
        let before = plan.replaced.flatMap { try? StoredDocuments.experiment(fromText: $0.document).status }
        // Stopping returns every install to the live copy, which was reviewed: never held back.
        if !(before == .running && experiment.status == .stopped) {
            try checkDirectWrite(experiment.id) { [nil] }
        }
        let write = RevisionWrite.experiment(experiment, plan: plan, actor: actor)
        queue(write, edited: true)
        if let kind = Self.eventKind(from: before, to: experiment.status) {
            var payload: [(key: String, value: JSONValue)] = [
                ("experimentId", .string(experiment.id)), ("templateId", .string(experiment.templateID)),
                ("revision", .number(Double(write.revision))), ("status", .string(experiment.status.rawValue)),
            ]
            if kind == .experimentShipped, let shippedVariant { payload.append(("variant", .string(shippedVariant))) }
            emit(
                CatalogueEvent(
                    kind: kind,
                    subjectID: experiment.id,
                    actor: actor,
                    occurredAt: write.at,
                    payload: .object(payload)
                )
            )
        }
        return (StoredExperiment(experiment, written: write), plan.created)
    }

    /// The event of an experiment's move from status `before` (`nil`: new) to `after`, if any.
    private static func eventKind(from before: Experiment.Status?, to after: Experiment.Status) -> CatalogueEvent.Kind?
    {
        guard before != after else { return nil }
        switch after {
        case .running: return .experimentStarted
        case .stopped: return before == .running ? .experimentStopped : nil
        case .shipped: return .experimentShipped
        case .draft: return nil
        }
    }
}
