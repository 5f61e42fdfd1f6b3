/// Why a store operation did not happen. The admin API maps each case to one HTTP status.
package enum StoreError: Error, Sendable, Equatable {
    /// No template ever had this id.
    case notFound(id: String)
    /// The template was deleted at this revision; its history remains.
    case deleted(id: String, revision: Int)
    /// Creation was asked for, but a live template has this id.
    case alreadyExists(id: String, revision: Int)
    /// The caller's revision is not the current one.
    case stale(id: String, current: Int)
    /// The template has no such revision.
    case noSuchRevision(id: String, revision: Int)
    /// The document clashes with other templates (ids and aliases are unique across the catalogue).
    case conflicts([(pointer: String, rule: String)])
    /// Another writer held the store past SQLite's busy timeout; nothing was changed, and the same
    /// request may be sent again.
    case busy
    /// The database cannot be reached (PostgreSQL down, or its connections exhausted past the
    /// wait bound); nothing was changed, and the same request may be sent again later.
    case unavailable(String)
    /// A write's COMMIT was sent, but no answer came (the wait bound passed, or the connection
    /// failed): it may or may not have taken effect. The caller must read the current state
    /// before sending the change again. (Never thrown while the COMMIT was not yet sent: then
    /// the write is abandoned, rolled back, and the answer is `unavailable`.)
    case outcomeUnknown(String)
    /// The database failed; the message is for the log, never for clients.
    case database(String)
    /// A direct write of a document whose review rule asks for approvals (`ReviewRules`): it
    /// must go through a change request. `rule` is the rule's pointer in the rules
    /// (`/categories/update`), `approvals` what it asks for.
    case reviewRequired(document: String, rule: String, approvals: Int)

    package static func == (lhs: StoreError, rhs: StoreError) -> Bool {
        switch (lhs, rhs) {
        case (.notFound(let a), .notFound(let b)): return a == b
        case (.deleted(let a, let r), .deleted(let b, let s)): return a == b && r == s
        case (.alreadyExists(let a, let r), .alreadyExists(let b, let s)): return a == b && r == s
        case (.stale(let a, let r), .stale(let b, let s)): return a == b && r == s
        case (.noSuchRevision(let a, let r), .noSuchRevision(let b, let s)): return a == b && r == s
        case (.conflicts(let a), .conflicts(let b)):
            return a.count == b.count && zip(a, b).allSatisfy { $0.pointer == $1.pointer && $0.rule == $1.rule }
        case (.database(let a), .database(let b)): return a == b
        case (.busy, .busy): return true
        case (.unavailable(let a), .unavailable(let b)): return a == b
        case (.outcomeUnknown(let a), .outcomeUnknown(let b)): return a == b
        case (.reviewRequired(let a, let r, let n), .reviewRequired(let b, let s, let m)):
            return a == b && r == s && n == m
        default: return false
        }
    }
}

/// What a write requires of the template's current state (HTTP `If-None-Match: *` / `If-Match`).
package enum WritePrecondition: Sendable, Equatable {
    /// Create: no live template may have the id.
    case absent
    /// Change: the live template must be at this revision.
    case revision(Int)
}

extension StoreError {
    /// Runs `body`, whose every error is a `StoreError` (a transaction of edits that throw only
    /// `StoreError`: `TemplateStoring.write(_:)` throws theirs and its own), and rethrows with
    /// that type.
    package static func only<T>(_ body: () throws -> T) throws(StoreError) -> T {
        do {
            return try body()
        } catch let error as StoreError {
            throw error
        } catch {
            throw .database("unexpected error: \(error)")
        }
    }
}
