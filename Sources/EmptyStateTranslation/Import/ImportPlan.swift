import EmptyStateCore

/// What importing one file would do: an outcome per unit, in file order, and the template
/// writes that carry the accepted changes. A dry run reports it; applying it performs `writes`.
package struct ImportPlan: Sendable {
    /// A translation as the report shows it: its text, and its forms when it is a plural
    /// string (the text is then its `other` form).
    /// Compared scalar for scalar, as every text of an import is.
    package struct Text: Sendable, Equatable, ExpressibleByStringLiteral {
        package var text: String
        package var plural: PluralText?

        package init(_ text: String, plural: PluralText? = nil) {
            self.text = text
            self.plural = plural
        }

        package init(stringLiteral text: String) {
            self.init(text)
        }

        package static func == (lhs: Text, rhs: Text) -> Bool {
            sameText(lhs.text, rhs.text) && samePlural(lhs.plural, rhs.plural)
        }
    }

    package enum Outcome: Sendable, Equatable {
        /// The locale had no string for this key.
        case new(Text)
        case changed(from: Text, to: Text)
        /// The file's translation is the store's, scalar for scalar.
        case unchanged
        /// The file's translation is the store's, and the file says a reviewer confirmed it
        /// (`reviewed`, `final`; a String Catalog's `translated` after `needs_review`): the write
        /// records that state, and a stale translation becomes current.
        case confirmed(TranslationState)
        /// Nothing to import: no target, an empty one, or a draft (state `missing`).
        case untranslated
        case rejected([ImportRejection])
    }

    package struct Entry: Sendable, Equatable {
        package var unitID: String
        package var outcome: Outcome
    }

    /// One revision to write: the template with the file's accepted strings, validated by
    /// `TemplateParser` as the admin API validates a write.
    package struct TemplateWrite: Sendable {
        package var templateID: String
        /// The revision the plan was made against: the write's precondition (`If-Match`), so
        /// an edit made between the dry run and the apply is not overwritten.
        package var baseRevision: Int
        package var template: Template
        /// The target locale's keys this write changes, in the template's key order.
        package var changedKeys: [String]
        /// The target locale's keys whose review state this write records (`reviewed`, `final`,
        /// or `translated` for a confirmation a String Catalog can express), changed or not.
        package var marks: [String: TranslationState] = [:]
    }

    package var sourceLocale: String
    package var targetLocale: String
    package var entries: [Entry]
    /// Sorted by template id.
    package var writes: [TemplateWrite]

    /// Whether applying the plan would change nothing (a file imported a second time).
    package var isEmpty: Bool { writes.isEmpty }

    /// How many entries have each kind of outcome: `new`, `changed`, `unchanged`, `untranslated`,
    /// `rejected`.
    package var counts: [String: Int] {
        var counts = ["new": 0, "changed": 0, "unchanged": 0, "confirmed": 0, "untranslated": 0, "rejected": 0]
        for entry in entries {
            switch entry.outcome {
            case .new: counts["new"]! += 1
            case .changed: counts["changed"]! += 1
            case .unchanged: counts["unchanged"]! += 1
            case .confirmed: counts["confirmed"]! += 1
            case .untranslated: counts["untranslated"]! += 1
            case .rejected: counts["rejected"]! += 1
            }
        }
        return counts
    }

    /// Whether any string of the file is refused (what a strict import fails on).
    package var hasRejections: Bool {
        entries.contains { if case .rejected = $0.outcome { true } else { false } }
    }
}

/// Why one unit of a file is not imported.
package struct ImportRejection: Sendable, Equatable, CustomStringConvertible {
    package enum Reason: String, Sendable, CaseIterable {
        /// No template has the unit's template id.
        case unknownTemplate
        /// The template has no such string key (in its default or the file's source locale).
        case unknownKey
        /// The same unit appears twice in the file.
        case duplicate
        /// The translation's `{placeholder}` set differs from the source's.
        case placeholders
        /// A copy rule: the admin API's 422 reason, with its JSON pointer.
        case copyRule
        /// The source string in the store is not the one the file was translated from.
        case sourceChanged
        /// The store's translation was edited after the export: importing would overwrite it.
        case changedSinceExport
        /// The file's plural forms of the string cannot be taken: an ICU plural that does not
        /// read (unbalanced braces, no `other`, an unknown selector), a category CLDR does not
        /// give the locale, another number variable than the source's, forms for a string that
        /// is not a plural, or one text for one that is.
        case plural
    }

    package var reason: Reason
    /// For copy rules, where in the template document (`/strings/fr/title`), as the 422 says.
    package var pointer: String?
    package var message: String

    package init(_ reason: Reason, pointer: String? = nil, _ message: String) {
        self.reason = reason
        self.pointer = pointer
        self.message = message
    }

    package var description: String { pointer.map { "\($0): \(message)" } ?? message }
}

/// A file that cannot be planned at all (its target locale).
package struct ImportPlanError: Error, Sendable, Equatable, CustomStringConvertible {
    package var message: String
    package var description: String { message }
}
