import EmptyStateCore

/// The stable id of one template string: `connectionRefused/actions.retry`.
///
/// Template ids never hold `/` or `.` (`TemplateParser.idPattern`), string keys never hold `/`, so
/// both separators below split at their first occurrence without ambiguity.
package struct UnitID: Sendable, Hashable, Comparable, CustomStringConvertible {
    package var template: String
    package var key: String

    package init(template: String, key: String) {
        self.template = template
        self.key = key
    }

    /// Parses `template/key`, or `template.key` (the spelling XLIFF 2.0 needs, see `tokenForm`).
    package init?(_ text: String) {
        let separator: Character = text.contains("/") ? "/" : "."
        guard let index = text.firstIndex(of: separator) else { return nil }
        let template = String(text[..<index])
        let key = String(text[text.index(after: index)...])
        guard !template.isEmpty, !key.isEmpty, !key.contains("/") else { return nil }
        self.init(template: template, key: key)
    }

    /// `template/key`: the id in the model, XLIFF 1.2, the String Catalog and import reports.
    package var description: String { template + "/" + key }

    /// `template.key`: XLIFF 2.0 types `<unit id>` as `xs:NMTOKEN`, which has no `/`. A template id
    /// has no `.`, so the first `.` still separates the two halves.
    package var tokenForm: String { template + "." + key }

    package static func < (lhs: UnitID, rhs: UnitID) -> Bool {
        (lhs.template, lhs.key) < (rhs.template, rhs.key)
    }
}

/// Where a translation stands.
package enum TranslationState: String, Sendable, CaseIterable {
    /// Not translated yet: no target, or a draft the translator has not confirmed (XLIFF 2.0
    /// `initial`, XLIFF 1.2 `new`/`needs-translation`, String Catalog `new`). Never imported.
    case missing
    case translated
    case reviewed
    case final
    /// The source string changed after this translation was written: it needs a look.
    case stale
}

/// One template string as translators see it: the source text, the translation, where it
/// stands, and the notes that help (the template's category, the copy rule's limit, where the
/// string shows).
///
/// Texts are compared by Unicode scalars, never by Swift's canonical equivalence: an NFD string
/// read from a file is a different string from its NFC twin in the store, and must come back
/// byte for byte.
package struct TranslationUnit: Sendable, Equatable {
    package var id: UnitID
    /// The source text as exported. `nil` only when the format does not carry it (an Android
    /// locale file read without its `values/strings.xml`).
    package var source: String?
    /// The translation, `nil` when there is none.
    package var target: String?
    package var state: TranslationState
    /// One line each.
    package var notes: [String]
    /// For a plural string: the source's forms (`source` is then its `other` form). `nil` for a
    /// plain string, or when the format does not carry the source.
    package var sourcePlural: PluralText?
    /// For a plural string: the translation's forms (`target` is then its `other` form); `nil`
    /// for a plain translation or none.
    package var targetPlural: PluralText?
    /// Why the file's plural forms of this unit cannot be taken (an ICU message that does not
    /// parse, a form without a category): the reader keeps the unit, and the import refuses it
    /// with reason `plural` and this text, so one bad string never fails the whole file.
    package var pluralIssue: String?
    /// Example values of the source's placeholders (`provider` → `BankID`), for the formats that
    /// show translators one (Android's `<xliff:g example>`). Written, never read back.
    package var examples: [String: String]

    package init(
        id: UnitID,
        source: String?,
        target: String?,
        state: TranslationState,
        notes: [String] = [],
        sourcePlural: PluralText? = nil,
        targetPlural: PluralText? = nil,
        examples: [String: String] = [:]
    ) {
        self.id = id
        self.source = source
        self.target = target
        self.state = state
        self.notes = notes
        self.sourcePlural = sourcePlural
        self.targetPlural = targetPlural
        self.examples = examples
    }

    /// Whether the unit is a plural string (its source's forms, or its translation's when the
    /// file has no source).
    package var isPlural: Bool { sourcePlural != nil || targetPlural != nil }

    /// The `{name}` placeholders of the source text (of the target when there is no source), in
    /// order of appearance.
    package var placeholders: [String] { CopyRules.placeholders(in: source ?? target ?? "") }

    package static func == (lhs: TranslationUnit, rhs: TranslationUnit) -> Bool {
        lhs.id == rhs.id && lhs.state == rhs.state && sameText(lhs.source, rhs.source)
            && sameText(lhs.target, rhs.target) && lhs.notes.count == rhs.notes.count
            && zip(lhs.notes, rhs.notes).allSatisfy { sameText($0, $1) }
            && samePlural(lhs.sourcePlural, rhs.sourcePlural) && samePlural(lhs.targetPlural, rhs.targetPlural)
            && lhs.pluralIssue == rhs.pluralIssue
    }
}

/// Whether two plurals have the same variable and the same forms, scalar for scalar.
package func samePlural(_ lhs: PluralText?, _ rhs: PluralText?) -> Bool {
    switch (lhs, rhs) {
    case (nil, nil): return true
    case (let a?, let b?):
        return a.variable == b.variable && a.forms.count == b.forms.count
            && a.forms.allSatisfy { sameText($0.value, b.forms[$0.key]) }
    default: return false
    }
}

/// Whether two texts are the same Unicode scalars (Swift's `==` equates NFC and NFD).
package func sameText(_ lhs: String?, _ rhs: String?) -> Bool {
    switch (lhs, rhs) {
    case (nil, nil): return true
    case (let a?, let b?): return a.utf8.elementsEqual(b.utf8)
    default: return false
    }
}
