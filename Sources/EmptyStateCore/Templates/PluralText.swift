import CLDRPlurals
import JSONCoding

/// A string with a form per CLDR plural category of its locale, the form chosen by the number an
/// app puts in one of its placeholders: "{count} result hidden by filters" / "{count} results …".
///
/// In a template document it is an object in place of the text, the variable under `plural`
/// and each form under its category:
///
/// ```json
/// "message": {"plural": "count", "one": "{count} result is hidden", "other": "{count} results are hidden"}
/// ```
///
/// A plural string is an addition: every other string stays a string. The template keeps the
/// `other` form as the key's plain text too (`Template.strings`), so every reader that knows
/// nothing of plurals (search, lint, an old client) sees the general form. The choice of a form
/// is made here (`form(for:locale:)`) by `CLDRPlurals`, which the client library shares.
package struct PluralText: Sendable, Equatable {
    /// The placeholder whose number chooses the form: `count` for `{count}`.
    package var variable: String
    /// Category → text; `other` is always there.
    package var forms: [PluralCategory: String]

    package init(variable: String, forms: [PluralCategory: String]) {
        self.variable = variable
        self.forms = forms
    }

    /// The general form.
    package var other: String { forms[.other] ?? "" }

    /// The forms in CLDR's order (zero, one, two, few, many, other).
    package var orderedForms: [(category: PluralCategory, text: String)] {
        PluralCategory.allCases.compactMap { category in forms[category].map { (category, $0) } }
    }

    /// The form for `number` (as the app wrote it: `3`, `1.5`) by `locale`'s rules: its category's
    /// form, or `other` when the string lacks that form or `number` is not a number.
    package func form(for number: String, locale: String) -> String {
        let category = PluralRules.forLocale(locale).category(of: number.trimmingSpaces) ?? .other
        return forms[category] ?? other
    }

    /// The object a document holds: `plural`, then the forms in CLDR's order.
    package var document: JSONValue {
        .object([("plural", .string(variable))] + orderedForms.map { ($0.category.rawValue, .string($0.text)) })
    }

    /// The text a store keeps for it where it keeps one text per string (a string's row, whose
    /// change marks translations of it stale): its document as JSON, so any form's change shows.
    package var storedText: String {
        var writer = JSONWriter()
        writer.value(document)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    /// The categories `locale` has, in CLDR's order.
    package static func categories(for locale: String) -> [PluralCategory] {
        PluralRules.forLocale(locale).categories
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        var text = Substring(self)
        while text.first == " " { text = text.dropFirst() }
        while text.last == " " { text = text.dropLast() }
        return String(text)
    }
}
