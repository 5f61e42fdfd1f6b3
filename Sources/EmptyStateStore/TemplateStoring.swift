import EmptyStateCore

/// The localization store as the admin API, the snapshot and the importer use it: templates,
/// their strings, aliases, revisions, the audit trail and app policies.
///
/// Two backends implement it: `SQLiteTemplateStore` (SQLite in the data directory, the embedded
/// default) and `PostgresTemplateStore` (replicas sharing one PostgreSQL). Callers do not know
/// which. Every method is synchronous and is called from the HTTP server's worker threads or at
/// start, never from Swift concurrency's cooperative pool.
///
/// Each write is one transaction that changes the current state and appends an immutable
/// revision; it returns only once that transaction is durable.
package protocol TemplateStoring: Sendable {
    /// Where the store is, for logs (a path, or a URL without its password).
    var location: String { get }

    /// Imports the built-in templates: new ones are added; ones ops never edited are updated when
    /// the release changed them; ones ops edited or deleted are kept as they are (and logged).
    @discardableResult
    func importBuiltins(_ templates: [Template]) throws(StoreError) -> (added: Int, updated: Int)

    /// Creates or replaces a template.
    /// - Returns: the stored template and whether it was created (or re-created after a delete).
    /// - Throws: `.alreadyExists`, `.notFound`, `.deleted`, `.stale` when the precondition fails;
    ///   `.conflicts` when an id or alias is taken by another template.
    func put(
        _ template: Template,
        precondition: WritePrecondition,
        actor: String
    ) throws(StoreError)
        -> (stored: StoredTemplate, created: Bool)

    /// Replaces strings of a live template (a translator's unit of work: one locale through the
    /// admin API, the accepted strings of a translation file through an import).
    /// - Parameters:
    ///   - note: why, recorded with the revision (`imported from fr.xlf`); `nil` for none.
    ///   - build: makes the new template from the current one, or throws its validation error
    ///     (rethrown as it is; nothing is written).
    func updateStrings<Failure: Error>(
        id: String,
        expectedRevision: Int,
        actor: String,
        note: String?,
        build: (Template) throws(Failure) -> Template
    ) throws -> StoredTemplate

    /// Deletes a live template: clients get 404 from now on; its revisions stay.
    /// - Returns: the revision that records the deletion.
    func delete(id: String, expectedRevision: Int, actor: String) throws(StoreError) -> Int

    /// Makes the content of revision `target` the newest revision; on a deleted template this
    /// restores it.
    func rollback(
        id: String,
        to target: Int,
        expectedRevision: Int?,
        actor: String
    ) throws(StoreError)
        -> StoredTemplate

    /// Every live template, in id order: what clients are served.
    func liveTemplates() throws(StoreError) -> [StoredTemplate]

    /// The live template with this id.
    /// - Throws: `.notFound` or `.deleted`.
    func template(id: String) throws(StoreError) -> StoredTemplate

    /// The strings of a live template with who changed each and when.
    func strings(id: String) throws(StoreError) -> [StoredString]

    /// When each string of every live template was last changed (the revision and the time,
    /// without the values), ordered by template id: what translation coverage and exports compare
    /// to tell stale translations. One read, for the whole catalogue.
    func stringStamps() throws(StoreError) -> [StringStamp]

    /// Live templates in id order, one page.
    func list(page: Int, pageSize: Int) throws(StoreError) -> Page<TemplateSummary>

    /// A template's revisions, newest first, without their documents.
    /// - Throws: `.notFound` when no template ever had the id.
    func revisions(id: String, page: Int, pageSize: Int) throws(StoreError) -> Page<RevisionRecord>

    /// One revision with its document.
    func revision(id: String, number: Int) throws(StoreError) -> RevisionRecord

    /// The changes `filter` selects, newest first: who changed what, when, and which fields.
    func audit(_ filter: AuditFilter, page: Int, pageSize: Int) throws(StoreError) -> Page<RevisionRecord>

    /// Throws `.conflicts` when `template`'s id or aliases clash with other live templates;
    /// writes nothing (for `?validateOnly=true`).
    func checkConflicts(_ template: Template) throws(StoreError)

    // MARK: App policies (versioned documents beside the templates)

    /// Every platform's policy, for the snapshot clients are served from.
    func livePolicies() throws(StoreError) -> [StoredAppPolicy]

    /// The revision of each platform's policy.
    func policyRevisions() throws(StoreError) -> [Platform: Int]

    /// The policy of `platform`.
    /// - Throws: `.notFound` (named by the platform) when it has none.
    func policy(platform: Platform) throws(StoreError) -> StoredAppPolicy

    /// Creates (`.absent`) or replaces (`.revision(n)`) a platform's policy.
    func putPolicy(
        _ policy: AppPolicy,
        precondition: WritePrecondition,
        actor: String
    ) throws(StoreError)
        -> (stored: StoredAppPolicy, created: Bool)

    /// Makes the content of revision `target` of a platform's policy its newest revision.
    func rollbackPolicy(
        platform: Platform,
        to target: Int,
        expectedRevision: Int?,
        actor: String
    )
        throws(StoreError) -> StoredAppPolicy

    /// A policy's revisions, newest first, without their documents.
    func policyRevisions(platform: Platform, page: Int, pageSize: Int) throws(StoreError) -> Page<RevisionRecord>

    /// One revision of a policy with its document.
    func policyRevision(platform: Platform, number: Int) throws(StoreError) -> RevisionRecord

    /// Every experiment (any status), ordered by id: for the list and for what is served.
    func liveExperiments() throws(StoreError) -> [StoredExperiment]

    /// The experiment `id`.
    /// - Throws: `.notFound(id:)` when there is none.
    func experiment(id: String) throws(StoreError) -> StoredExperiment

    /// Creates (`.absent`) or replaces (`.revision(n)`) an experiment: a revision like a
    /// template's, in the same transaction (and, on PostgreSQL, announced on the change feed).
    /// - Returns: the stored experiment and whether it was created.
    func putExperiment(
        _ experiment: Experiment,
        precondition: WritePrecondition,
        actor: String
    ) throws(StoreError)
        -> (stored: StoredExperiment, created: Bool)

    /// An experiment's revisions, newest first, without their documents.
    func experimentRevisions(id: String, page: Int, pageSize: Int) throws(StoreError) -> Page<RevisionRecord>
}

extension TemplateStoring {
    /// Every change, newest first, optionally of one document only.
    package func audit(page: Int, pageSize: Int, templateID: String?) throws(StoreError) -> Page<RevisionRecord> {
        try audit(AuditFilter(documentID: templateID), page: page, pageSize: pageSize)
    }

    /// `updateStrings(id:expectedRevision:actor:note:build:)` without a note.
    package func updateStrings<Failure: Error>(
        id: String,
        expectedRevision: Int,
        actor: String,
        build: (Template) throws(Failure) -> Template
    ) throws -> StoredTemplate {
        try updateStrings(id: id, expectedRevision: expectedRevision, actor: actor, note: nil, build: build)
    }
}
