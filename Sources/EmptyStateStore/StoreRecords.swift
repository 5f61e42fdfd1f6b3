import EmptyStateCore
import JSONCoding

/// A live template with its bookkeeping.
package struct StoredTemplate: Sendable, Equatable {
    package var template: Template
    package var revision: Int
    package var updatedAt: String
    package var updatedBy: String

    package init(template: Template, revision: Int, updatedAt: String, updatedBy: String) {
        self.template = template
        self.revision = revision
        self.updatedAt = updatedAt
        self.updatedBy = updatedBy
    }
}

/// A live app policy with its bookkeeping.
package struct StoredAppPolicy: Sendable, Equatable {
    package var policy: AppPolicy
    package var revision: Int
    package var updatedAt: String
    package var updatedBy: String

    package init(policy: AppPolicy, revision: Int, updatedAt: String, updatedBy: String) {
        self.policy = policy
        self.revision = revision
        self.updatedAt = updatedAt
        self.updatedBy = updatedBy
    }
}

/// A live experiment with its bookkeeping.
package struct StoredExperiment: Sendable, Equatable {
    package var experiment: Experiment
    package var revision: Int
    package var updatedAt: String
    package var updatedBy: String

    package init(experiment: Experiment, revision: Int, updatedAt: String, updatedBy: String) {
        self.experiment = experiment
        self.revision = revision
        self.updatedAt = updatedAt
        self.updatedBy = updatedBy
    }

    /// `experiment` as `write` (its `RevisionWrite.experiment`) stores it.
    package init(_ experiment: Experiment, written write: RevisionWrite) {
        self.init(experiment: experiment, revision: write.revision, updatedAt: write.at, updatedBy: write.by)
    }
}

/// One immutable revision of a template: what changed, who, when, and (when asked for) the
/// whole document as it was.
package struct RevisionRecord: Sendable, Equatable {
    package enum Action: String, Sendable, CaseIterable {
        /// Seeded or updated from `config/templates/`.
        case `import`
        case create, replace, strings, delete, rollback
        // What happens to a change request (`rollback` too: it was rolled back).
        case propose, edit, rebase, comment, approve, reject, withdraw, schedule, unschedule, publish
        /// A preview token of a change request was created or revoked (the note says which).
        case previewToken
    }

    package var templateID: String
    package var revision: Int
    package var action: Action
    package var createdAt: String
    package var createdBy: String
    /// JSON pointers of the fields that differ from the previous revision.
    package var changedFields: [String]
    /// The template document at this revision; `nil` in listings and for deletions.
    package var document: JSONValue?
    /// Why the change was made, when its writer said (`imported from fr.xlf`); `nil` otherwise.
    package var note: String?

    package init(
        templateID: String,
        revision: Int,
        action: Action,
        createdAt: String,
        createdBy: String,
        changedFields: [String],
        document: JSONValue?,
        note: String? = nil
    ) {
        self.templateID = templateID
        self.revision = revision
        self.action = action
        self.createdAt = createdAt
        self.createdBy = createdBy
        self.changedFields = changedFields
        self.document = document
        self.note = note
    }
}

/// A short line per template, for listings.
package struct TemplateSummary: Sendable, Equatable {
    package var id: String
    package var revision: Int
    package var updatedAt: String
    package var updatedBy: String

    package init(id: String, revision: Int, updatedAt: String, updatedBy: String) {
        self.id = id
        self.revision = revision
        self.updatedAt = updatedAt
        self.updatedBy = updatedBy
    }
}

/// One page of a listing.
package struct Page<Item: Sendable>: Sendable {
    package var items: [Item]
    package var page: Int
    package var pageSize: Int
    package var total: Int

    package var hasMore: Bool { page * pageSize < total }

    package init(items: [Item], page: Int, pageSize: Int, total: Int) {
        self.items = items
        self.page = page
        self.pageSize = pageSize
        self.total = total
    }
}

/// How far a translation was confirmed, besides being written: `translated` (the default:
/// written, nobody said more), `reviewed` or `final` (a reviewer's file said so: XLIFF 2.0
/// `reviewed`/`final`, XLIFF 1.2 `approved="yes"`). A write that changes the text resets it to
/// `translated` unless the write marks it too. Ordered: a file never lowers it.
package enum ReviewState: String, Sendable, CaseIterable, Comparable {
    case translated, reviewed, final

    package static func < (lhs: ReviewState, rhs: ReviewState) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// One stored string with who last changed it.
package struct StoredString: Sendable, Equatable {
    package var locale: String
    package var key: String
    package var value: String
    package var updatedAt: String
    package var updatedBy: String
    /// The template revision that last changed the value: orders two strings of one template
    /// exactly where `updatedAt` (whole seconds) ties. 0 when unknown (a row older than the
    /// column that no revision's time matched).
    package var revision: Int
    package var review: ReviewState

    package init(
        locale: String,
        key: String,
        value: String,
        updatedAt: String,
        updatedBy: String,
        revision: Int,
        review: ReviewState = .translated
    ) {
        self.locale = locale
        self.key = key
        self.value = value
        self.updatedAt = updatedAt
        self.updatedBy = updatedBy
        self.revision = revision
        self.review = review
    }
}

/// When one string of a live template was last changed, without its value: what translation
/// coverage and exports need to tell a translation written before its source changed (stale).
package struct StringStamp: Sendable, Equatable {
    package var templateID: String
    package var locale: String
    package var key: String
    /// The template revision that last changed the value (see `StoredString.revision`).
    package var revision: Int
    package var updatedAt: String
    /// How far the translation was confirmed (`ReviewState`).
    package var review: ReviewState

    package init(
        templateID: String,
        locale: String,
        key: String,
        revision: Int,
        updatedAt: String,
        review: ReviewState = .translated
    ) {
        self.templateID = templateID
        self.locale = locale
        self.key = key
        self.revision = revision
        self.updatedAt = updatedAt
        self.review = review
    }
}
