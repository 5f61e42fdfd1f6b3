import EmptyStateCore

/// What a backend's write transaction provides to the catalogue's writes: read the rows a
/// decision needs, write the rows it decided, announce what changed. Each backend implements it
/// with its SQL alone (`SQLiteCatalogueTransaction`, `PostgresCatalogueTransaction`); the steps
/// of every write (plan, check conflicts, `RevisionWrite`, apply) are `CatalogueWrite`'s, written
/// once.
///
/// A value lives for one transaction, on the thread that runs it, and every call is inside that
/// transaction: under SQLite's writer lock, or PostgreSQL's catalogue write lock
/// (`pg_advisory_xact_lock`), so what it reads stays true until COMMIT. Reads see the rows this
/// transaction wrote: `CatalogueWrite` hands over its pending rows before each read.
///
/// Each method throws `StoreError` only (a driver's failure mapped as the backend maps it), so
/// that an error of any other type thrown through a transaction is known to be its caller's own
/// (a validation failure of `CatalogueWrite.updateStrings`'s `build`).
package protocol CatalogueTransaction: WebhookTransaction, AdminTokenTransaction {
    /// The current rows of the documents of `kind` with these ids, live or deleted, by id (with
    /// `edited`); an id that no document ever had is absent. One read for many ids: the import of
    /// built-ins asks for every template at once.
    func currentRows(_ ids: [String], kind: DocumentKind) throws(StoreError) -> [String: CurrentDocument]

    /// What revision `revision` of document `documentID` holds, for a rollback.
    func recorded(documentID: String, revision: Int) throws(StoreError) -> CatalogueRules.Target

    /// Which of `names` are aliases of a template other than `templateID`, with that template's
    /// id (what `CatalogueRules.checkConflicts` takes as `aliasOwners`).
    func aliasOwners(of names: [String], except templateID: String) throws(StoreError) -> [String: String]

    /// Which of `ids` are ids of live templates other than `templateID`.
    func liveTemplateIDs(among ids: [String], except templateID: String) throws(StoreError) -> Set<String>

    /// The review records of change request `id`, in the order they were made.
    func reviews(of changeRequestID: Int) throws(StoreError) -> [ReviewRecord]

    /// The preview tokens of these change requests, revoked ones included, by id.
    func previewTokens(of changeRequestIDs: [Int]) throws(StoreError) -> [PreviewTokenRecord]

    /// The preview token whose secret hashes to `secretSHA256` (lowercase hex), revoked or not;
    /// `nil` when there is none. One lookup of the column's unique index.
    func previewToken(secretSHA256: String) throws(StoreError) -> PreviewTokenRecord?

    /// The next number of `sequence`: one more than the largest in its table (writes are
    /// serialized, so no other transaction takes it).
    func nextNumber(_ sequence: CatalogueSequence) throws(StoreError) -> Int

    /// Writes `rows`, table by table (see `CatalogueRows` for the order), in as few statements as
    /// the backend's SQL allows.
    func write(_ rows: CatalogueRows) throws(StoreError)

    /// Tells other processes that these revisions commit with this transaction (PostgreSQL: the
    /// change feed and one NOTIFY, both taking effect at COMMIT). Called once, last, with every
    /// revision the transaction wrote; a backend without followers does nothing.
    func announce(_ revisions: [RevisionWrite]) throws(StoreError)

    /// Records the events the edits emitted (`CatalogueWrite.emit(_:)`) so that they commit with
    /// this transaction, or not at all: the webhooks' outbox. Called once, after `announce`,
    /// with every event in the order emitted, and only when there is one. A backend that keeps
    /// no outbox does nothing.
    func record(_ events: [CatalogueEvent]) throws(StoreError)
}

/// The numbered rows a catalogue transaction allocates (`CatalogueTransaction.nextNumber`).
package enum CatalogueSequence: Sendable {
    /// `change_request.id`.
    case changeRequest
    /// `change_request_review.seq`.
    case review
    /// `preview_token.id`.
    case previewToken
}
