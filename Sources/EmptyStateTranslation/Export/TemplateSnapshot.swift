import EmptyStateCore

/// One template as the store holds it, with when each of its strings was last written: what an
/// export reads and what an import plans against.
package struct TemplateSnapshot: Sendable {
    package var template: Template
    /// The store revision the strings are from; an import writes with it as its precondition.
    package var revision: Int
    /// Locale → key → the string's `updatedAt` (the store's per-string timestamps, all in the
    /// same `2026-11-23T10:00:00Z` form, so they compare as text). A string without one is never
    /// taken for stale or edited.
    package var updatedAt: [String: [String: String]]
    /// Locale → key → the template revision that last changed the string (the store's
    /// `StoredString.revision`; 0 or absent when unknown). Orders two strings exactly where
    /// their whole-second `updatedAt` ties.
    package var revisions: [String: [String: Int]]
    /// Locale → key → how far the translation was confirmed (the store's `review`); absent is
    /// `translated`.
    package var reviews: [String: [String: TranslationState]]

    package init(
        template: Template,
        revision: Int,
        updatedAt: [String: [String: String]] = [:],
        revisions: [String: [String: Int]] = [:],
        reviews: [String: [String: TranslationState]] = [:]
    ) {
        self.template = template
        self.revision = revision
        self.updatedAt = updatedAt
        self.revisions = revisions
        self.reviews = reviews
    }

    /// The review state of a translation: `translated`, `reviewed` or `final`.
    package func review(key: String, locale: String) -> TranslationState {
        reviews[locale]?[key] ?? .translated
    }

    /// Whether the `locale` translation of `key` was written before its `sourceLocale` string last
    /// changed: the source moved on and the translation needs a look. By the revisions that wrote
    /// them when both are known (exact: a revision changes both or neither, or one after the
    /// other), else by their times (a tie, the same second, is not stale).
    package func isStale(key: String, locale: String, sourceLocale: String) -> Bool {
        if let written = revisions[locale]?[key], let sourceChanged = revisions[sourceLocale]?[key], written > 0,
            sourceChanged > 0
        {
            return written < sourceChanged
        }
        guard let written = updatedAt[locale]?[key], let sourceChanged = updatedAt[sourceLocale]?[key] else {
            return false
        }
        return written.utf8.lexicographicallyPrecedes(sourceChanged.utf8)
    }
}

/// Which strings an export takes.
package struct TranslationSelection: Sendable, Equatable {
    /// Template ids; `nil` for all.
    package var ids: Set<String>?
    package var category: Template.Category?
    /// Only the strings missing or stale in the target locale.
    package var onlyMissingOrStale: Bool

    package init(ids: Set<String>? = nil, category: Template.Category? = nil, onlyMissingOrStale: Bool = false) {
        self.ids = ids
        self.category = category
        self.onlyMissingOrStale = onlyMissingOrStale
    }

    package static let all = TranslationSelection()

    func includes(_ template: Template) -> Bool {
        (ids?.contains(template.id) ?? true) && (category.map { $0 == template.category } ?? true)
    }
}
