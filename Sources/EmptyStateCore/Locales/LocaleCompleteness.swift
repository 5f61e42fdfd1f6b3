/// How completely one locale of the catalogue is translated: of the keys each template requires,
/// how many the locale has.
package struct LocaleCompleteness: Sendable, Equatable {
    /// The keys one template still lacks in the locale.
    package struct Missing: Sendable, Equatable {
        package var templateID: String
        /// In the template's order of required keys.
        package var keys: [String]

        package init(templateID: String, keys: [String]) {
            self.templateID = templateID
            self.keys = keys
        }
    }

    package var locale: String
    /// How many templates were looked at (all of them, whether or not they have the locale).
    package var templates: Int
    /// How many templates have every required key in the locale.
    package var completeTemplates: Int
    /// Present required keys over all required keys, rounded to three decimals; 1 when no key is
    /// required.
    package var completeness: Double
    /// The templates that lack keys, in catalogue order.
    package var missing: [Missing]

    /// One entry per locale any template has strings in, in the order they first appear.
    package static func report(for templates: [Template]) -> [LocaleCompleteness] {
        var locales: [String] = []
        for template in templates {
            for entry in template.strings where !locales.contains(entry.locale) { locales.append(entry.locale) }
        }
        return locales.map { locale in
            var present = 0
            var required = 0
            var complete = 0
            var missing: [Missing] = []
            for template in templates {
                let keys = template.requiredKeys
                let have = template.strings(for: locale) ?? [:]
                let absent = keys.filter { have[$0] == nil }
                required += keys.count
                present += keys.count - absent.count
                if absent.isEmpty {
                    complete += 1
                } else {
                    missing.append(Missing(templateID: template.id, keys: absent))
                }
            }
            return LocaleCompleteness(
                locale: locale,
                templates: templates.count,
                completeTemplates: complete,
                completeness: required == 0 ? 1 : (Double(present) / Double(required) * 1000).rounded() / 1000,
                missing: missing
            )
        }
    }
}
