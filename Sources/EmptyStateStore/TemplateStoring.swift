import EmptyStateCore

/// The localization store as the admin API, the snapshot and the importer use it: templates,
/// their strings, aliases, revisions, the audit trail and app policies.
///
/// Two backends implement it: `SQLiteTemplateStore` (SQLite in the data directory, the embedded
/// default) and `PostgresTemplateStore` (replicas sharing one PostgreSQL). Callers do not know
/// which. Every method is synchronous and is called from the HTTP server's worker threads or at
/// start, never from Swift concurrency's cooperative pool.
///
/// Every write is one transaction (`write(_:)`) of edits written once for every backend
/// (`CatalogueWrite`): each changes the current state and appends an immutable revision, and the
/// transaction returns only once it is durable. The single edits (`put`, `delete`, `rollback`,
/// `putPolicy` …) are each a transaction of their own (`TemplateStoring+Writes.swift`).
package protocol TemplateStoring: Sendable {
    /// Where the store is, for logs (a path, or a URL without its password).
    var location: String { get }

    /// Imports the built-in templates: new ones are added; ones ops never edited are updated when
    /// the release changed them; ones ops edited or deleted are kept as they are (and logged).
    @discardableResult
    func importBuiltins(_ templates: [Template]) throws(StoreError) -> (added: Int, updated: Int)

    /// Runs `edits` as one write transaction: every edit it makes through `CatalogueWrite`
    /// commits together when it returns, and none does when it throws (a precondition that
    /// fails in any edit fails them all). Other replicas hear of every change at once.
    /// - Throws: what `edits` throws, as it is (a `StoreError` of a precondition, or the
    ///   caller's own error); a `StoreError` when the transaction cannot commit (`.unavailable`,
    ///   `.outcomeUnknown`, `.busy`, `.database`).
    func write<T>(_ edits: (CatalogueWrite) throws -> T) throws -> T

    /// Runs `reads` in one read-only transaction: every read they make through `CatalogueWrite`
    /// (its reads are the writes' own, written once) sees one consistent state of the catalogue,
    /// and waits for no writer. `reads` must not write.
    /// - Throws: what `reads` throws, as it is; a `StoreError` for the store's failures.
    func readCatalogue<T>(_ reads: (CatalogueWrite) throws -> T) throws -> T

    /// Change requests `filter` selects, newest first (their lines; `read` has the rest).
    func changeRequests(
        _ filter: ChangeRequestFilter,
        page: Int,
        pageSize: Int
    ) throws(StoreError)
        -> Page<ChangeRequestSummary>

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

    /// A policy's revisions, newest first, without their documents.
    func policyRevisions(platform: Platform, page: Int, pageSize: Int) throws(StoreError) -> Page<RevisionRecord>

    /// One revision of a policy with its document.
    func policyRevision(platform: Platform, number: Int) throws(StoreError) -> RevisionRecord

    /// Every experiment (any status), ordered by id: for the list and for what is served.
    func liveExperiments() throws(StoreError) -> [StoredExperiment]

    /// The experiment `id`.
    /// - Throws: `.notFound(id:)` when there is none.
    func experiment(id: String) throws(StoreError) -> StoredExperiment

    /// An experiment's revisions, newest first, without their documents.
    func experimentRevisions(id: String, page: Int, pageSize: Int) throws(StoreError) -> Page<RevisionRecord>
}

extension TemplateStoring {
    /// Every change, newest first, optionally of one document only.
    package func audit(page: Int, pageSize: Int, templateID: String?) throws(StoreError) -> Page<RevisionRecord> {
        try audit(AuditFilter(documentID: templateID), page: page, pageSize: pageSize)
    }
}
