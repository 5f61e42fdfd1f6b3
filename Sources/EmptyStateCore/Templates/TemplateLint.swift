import JSONCoding

/// Warnings about a live template: things clients are served all the same, that an editor should
/// look at. Each is a `ValidationIssue` (the field's JSON pointer and what is wrong).
///
/// - Rules added after the template was stored: the store keeps loading what it accepted under
///   earlier rules (`TemplateParser.Origin.stored`); the next write must meet them.
/// - A web icon outside the icon set (`WebIconRule`, against the set given): web pages get no icon.
/// - Copy that looks untranslated: a string of another language identical to the default
///   locale's (locales of the same language, `en-GB` beside `en`, may well agree).
package enum TemplateLint {
    /// - Parameter icons: the service's web icons (`IconSet.lucide`).
    package static func warnings(for template: Template, icons: some IconDrawing) -> [ValidationIssue] {
        var warnings: [ValidationIssue] = []
        if case .failure(let failure) = TemplateParser.parse(template.document, origin: .new) {
            warnings += failure.issues.map {
                ValidationIssue($0.pointer, "breaks a rule added since it was stored: \($0.rule)")
            }
        }
        if let rule = WebIconRule.violation(in: template, icons: icons) {
            warnings.append(ValidationIssue(WebIconRule.pointer, rule))
        }
        guard let source = template.strings(for: template.defaultLocale) else { return warnings }
        let sourceLanguage = LocaleTag(template.defaultLocale)?.language
        for (locale, values) in template.strings where locale != template.defaultLocale {
            guard LocaleTag(locale)?.language != sourceLanguage else { continue }
            for key in values.keys.sorted() {
                guard let text = values[key], text == source[key], Self.hasWords(text) else { continue }
                warnings.append(
                    ValidationIssue(
                        "/strings/" + jsonPointerToken(locale) + "/" + jsonPointerToken(key),
                        "identical to \(template.defaultLocale): not translated yet?"
                    )
                )
            }
        }
        return warnings
    }

    /// Whether `text` has two letters in a row outside its placeholders (a brand name or a
    /// placeholder alone is the same in every language).
    private static func hasWords(_ text: String) -> Bool {
        var run = 0
        var inPlaceholder = false
        for character in text {
            if character == "{" { inPlaceholder = true }
            if character == "}" { inPlaceholder = false }
            if !inPlaceholder, character.isLetter {
                run += 1
                if run >= 2 { return true }
            } else {
                run = 0
            }
        }
        return false
    }
}
