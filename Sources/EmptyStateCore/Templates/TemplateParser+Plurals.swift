import CLDRPlurals
import JSONCoding

// Plural strings (`PluralText`): parsed through the parser's own `fail`, `string` and
// `checkCopy`, so their issues read like every other one. Apart from TemplateParser.swift because
// they are one concern (CLDR's categories and the number's placeholder) added to the strings.
extension TemplateParser {
    /// A plural string: `plural` names the placeholder whose number chooses the form, each other
    /// member is a CLDR category of `locale` with its form, `other` required. Each form is held
    /// to the key's copy rules.
    mutating func parsePlural(_ value: JSONValue, key: String, locale: String, at pointer: String) -> PluralText? {
        guard case .object(let members) = value else { return nil }
        var variable: String?
        var forms: [PluralCategory: String] = [:]
        // A stored string is read as it was accepted: CLDR's categories of a locale change
        // between CLDR releases, so it is held to today's only when it is next written.
        let expected = origin == .new ? PluralRules.forLocale(locale).categories : PluralCategory.allCases
        let names = expected.map(\.rawValue).joined(separator: ", ")
        for (name, member) in members {
            let memberPointer = pointer + "/" + jsonPointerToken(name)
            if name == "plural" {
                guard let text = string(member, at: memberPointer) else { continue }
                if CopyRules.isPlaceholderName(Substring(text)) {
                    variable = text
                } else {
                    fail(
                        memberPointer,
                        "must be the name of the placeholder whose number chooses the form (count for {count})"
                    )
                }
                continue
            }
            guard let category = PluralCategory(rawValue: name) else {
                fail(memberPointer, "unknown field (expected plural and \(locale)'s plural categories: \(names))")
                continue
            }
            guard expected.contains(category) else {
                fail(
                    memberPointer,
                    "\(locale) has no plural category \(name) (CLDR's categories of \(locale): \(names))"
                )
                continue
            }
            guard let text = string(member, at: memberPointer) else { continue }
            checkCopy(text, key: key, at: memberPointer)
            forms[category] = text
        }
        if !members.contains(where: { $0.key == "plural" }) {
            fail(pointer + "/plural", "is required: the placeholder whose number chooses the form (count for {count})")
        }
        if !members.contains(where: { $0.key == "other" }) {
            fail(pointer + "/other", "is required: the general form, used for every number without a form of its own")
        }
        guard let variable, forms[.other] != nil else { return nil }
        return PluralText(variable: variable, forms: forms)
    }

    /// The rules that span locales, once every locale is parsed: a plural starts in the default
    /// locale and keeps its variable; each form shows the number unless its category holds one
    /// number alone in its locale (English "One result is hidden"; a French `one` form holds 0, 1
    /// and 1.5, so it must show it), and uses the default locale's other placeholders. A
    /// translation may stay a plain string while its default locale is a plural: it then serves
    /// every number (and is marked stale, as after any change of its source).
    mutating func checkPlurals(reference: [String: String], defaultLocale: String) {
        for locale in plurals.keys.sorted() {
            let localePointer = "/strings/" + jsonPointerToken(locale)
            let sent = sentLocales.map { $0.contains(locale) } ?? true
            for (key, plural) in (plurals[locale] ?? [:]).sorted(by: { $0.key < $1.key }) {
                let pointer = localePointer + "/" + jsonPointerToken(key)
                guard let source = plurals[defaultLocale]?[key] else {
                    if reference[key] != nil, !brokenPlurals.contains(defaultLocale + "\u{0}" + key) {
                        fail(
                            pointer,
                            "is a plural, but \(defaultLocale)'s is not: make \(defaultLocale)'s a plural first (a plural string starts in the default locale)"
                        )
                    }
                    continue
                }
                if plural.variable != source.variable {
                    fail(pointer + "/plural", "must be \"\(source.variable)\", as in \(defaultLocale)")
                    continue
                }
                // A placeholder changed in the default locale alone is reported there (parseStrings).
                guard origin == .new, sent || locale == defaultLocale else { continue }
                checkForms(plural, want: source.other, locale: locale, defaultLocale: defaultLocale, at: pointer)
            }
        }
    }

    private mutating func checkForms(
        _ plural: PluralText,
        want source: String,
        locale: String,
        defaultLocale: String,
        at pointer: String
    ) {
        let variable = plural.variable
        let rules = PluralRules.forLocale(locale)
        let want = Set(CopyRules.placeholders(in: source)).subtracting([variable])
        for (category, text) in plural.orderedForms {
            let formPointer = pointer + "/" + category.rawValue
            let placeholders = Set(CopyRules.placeholders(in: text))
            if !placeholders.contains(variable) {
                if category == .other {
                    // A translation's general form is compared with the default locale's
                    // (parseStrings), which shows the number.
                    guard locale == defaultLocale else { continue }
                    fail(
                        formPointer,
                        "must show {\(variable)}: the general form is used for every number without a form of its own"
                    )
                    continue
                }
                if rules.soleNumber(of: category) == nil {
                    let numbers = rules.numbers(in: category, limit: 3).joined(separator: ", ")
                    fail(
                        formPointer,
                        "must show {\(variable)}: in \(locale), \(category.rawValue) is the form of more than one number (\(numbers)…)"
                    )
                    continue
                }
            }
            // `other` of a translation is compared with the default locale's in parseStrings.
            guard category != .other else { continue }
            let have = placeholders.subtracting([variable])
            if have != want {
                fail(
                    formPointer,
                    "uses placeholders \(Self.list(have)) but \(defaultLocale)'s general form uses \(Self.list(want)) (besides {\(variable)})"
                )
            }
        }
    }
}
