import JSONCoding

// One job in one file: the rules of a template document (config/templates/README.md), checked
// top-down in the order of the document (id, aliases, category and style, visual, actions,
// strings and their copy). Every check writes into the parser's one list of issues through
// `fail`, `string` and `enumeration`, and reads `origin`; split by section, those would have to be
// internal to the whole module instead of private to the parser, and a rule that spans sections
// (the error rule: category and actions; labels: actions and strings) would sit in neither file.
// What the parser reports, `ValidationIssue`, is in ValidationIssue.swift: AppPolicy uses it too.

/// Turns a template document into a `Template`, checking every rule of `config/templates/README.md`
/// and reporting all broken ones at once (not just the first).
package struct TemplateParser {
    package static let idPattern = "^[A-Za-z][A-Za-z0-9_-]{0,63}$"
    private static let knownKeys: Set<String> = [
        "id", "aliases", "category", "style", "defaultLocale", "visual", "actions", "strings", "examples",
    ]

    /// Where a document comes from, which decides the rules it is held to.
    package enum Origin: Sendable {
        /// A built-in file or an admin write: every rule.
        case new
        /// A document the store accepted earlier. It was valid under the rules of its time, so
        /// rules added since (the error rule, `errorRule`; no control characters in strings)
        /// are not applied: an upgrade must
        /// never refuse to load the store it wrote. Such a template is held to them when it is
        /// next written.
        case stored
    }

    private var issues: [ValidationIssue] = []
    let origin: Origin
    /// Locale → key → the plural strings `parseStrings` found (TemplateParser+Plurals.swift).
    var plurals: [String: [String: PluralText]] = [:]
    /// `locale` + NUL + `key` of the plural strings that did not parse: their issues are
    /// reported, and the rules across locales skip them rather than report them again.
    var brokenPlurals: Set<String> = []
    /// The locales the write being checked sends (nil: the whole document is new). A placeholder
    /// mismatch between a sent default locale and an unsent locale is the sent locale's fault,
    /// and is reported there: the request never sent the other locale's field.
    let sentLocales: Set<String>?

    private init(origin: Origin, sentLocales: Set<String>? = nil) {
        self.origin = origin
        self.sentLocales = sentLocales
    }

    /// Parses and validates one template document.
    /// - Parameters:
    ///   - document: the parsed JSON.
    ///   - expectedID: when given (a file name, a URL), the `id` must equal it.
    ///   - origin: `.stored` for a document read back from the store.
    ///   - sentLocales: when the document is a stored template with some locales replaced (one
    ///     locale's strings, an experiment variant's overrides), those locales: a placeholder the
    ///     sent default locale drops or adds is reported at the default locale's field, not at
    ///     every other locale's.
    /// - Returns: the template, or every rule it breaks.
    package static func parse(
        _ document: JSONValue,
        expectedID: String? = nil,
        origin: Origin = .new,
        sentLocales: Set<String>? = nil
    ) -> Result<Template, TemplateValidationError> {
        var parser = TemplateParser(origin: origin, sentLocales: sentLocales)
        let template = parser.parseTemplate(document, expectedID: expectedID)
        if let template, parser.issues.isEmpty { return .success(template) }
        return .failure(TemplateValidationError(issues: parser.issues))
    }

    /// What a draft makes, for a preview as an editor types: the template the parser built in
    /// spite of the rules the draft breaks (copy too long for its lines, a vague label, a
    /// placeholder the default locale lacks: the preview shows what they look like), and every
    /// broken rule. The template is `nil` when the draft is too broken to draw (no strings for
    /// its default locale, no visual, an action without a role …).
    package static func draft(
        _ document: JSONValue,
        expectedID: String? = nil
    ) -> (template: Template?, issues: [ValidationIssue]) {
        var parser = TemplateParser(origin: .new)
        let template = parser.parseTemplate(document, expectedID: expectedID)
        return (template, parser.issues)
    }

    /// Whether `text` may be used as a template id or alias (safe in a URL path segment).
    package static func isValidID(_ text: String) -> Bool {
        guard let first = text.utf8.first, text.utf8.count <= 64 else { return false }
        let isLetter = { (b: UInt8) in (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7A }
        guard isLetter(first) else { return false }
        return text.utf8.allSatisfy {
            isLetter($0) || ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-")
        }
    }

    private static func isValidActionID(_ text: String) -> Bool {
        guard let first = text.utf8.first, text.utf8.count <= 32, first >= 0x61, first <= 0x7A else { return false }
        return text.utf8.allSatisfy { (($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) }
    }

    mutating func fail(_ pointer: String, _ rule: String) {
        issues.append(ValidationIssue(pointer, rule))
    }

    mutating func string(_ value: JSONValue?, at pointer: String, required: Bool = true) -> String? {
        switch value {
        case .string(let text)?:
            if text.isEmpty {
                fail(pointer, "must not be empty")
            } else if origin == .new, let control = CopyRules.firstControlCharacter(in: text) {
                // Every string: copy, and the names and targets the app acts on.
                fail(pointer, "contains the control character \(control); \(CopyRules.controlCharacterRule)")
            }
            return text.isEmpty ? nil : text
        case nil:
            if required { fail(pointer, "is required") }
            return nil
        case let other?:
            fail(pointer, "expected a string, found \(other.kindName)")
            return nil
        }
    }

    private mutating func enumeration<E: RawRepresentable & CaseIterable>(
        _ type: E.Type,
        _ value: JSONValue?,
        at pointer: String
    ) -> E? where E.RawValue == String {
        guard let text = string(value, at: pointer) else { return nil }
        guard let parsed = E(rawValue: text) else {
            fail(pointer, "must be one of \(E.allCases.map(\.rawValue).joined(separator: ", "))")
            return nil
        }
        return parsed
    }

    private mutating func parseTemplate(_ document: JSONValue, expectedID: String?) -> Template? {
        guard case .object(let members) = document else {
            fail("", "a template must be a JSON object, found \(document.kindName)")
            return nil
        }
        for member in members where !Self.knownKeys.contains(member.key) {
            fail(
                "/" + jsonPointerToken(member.key),
                "unknown field (expected one of \(Self.knownKeys.sorted().joined(separator: ", ")))"
            )
        }

        let id = string(document["id"], at: "/id")
        if let id {
            if !Self.isValidID(id) {
                fail("/id", "must match \(Self.idPattern) (safe in a URL)")
            } else if let expectedID, expectedID != id {
                fail("/id", "must equal \"\(expectedID)\" (the file name or the URL)")
            }
        }

        var aliases: [String] = []
        switch document["aliases"] {
        case nil: break
        case .array(let elements)?:
            for (index, element) in elements.enumerated() {
                guard let alias = string(element, at: "/aliases/\(index)") else { continue }
                if !Self.isValidID(alias) {
                    fail("/aliases/\(index)", "must match \(Self.idPattern) (safe in a URL)")
                } else if alias == id || aliases.contains(alias) {
                    fail("/aliases/\(index)", "repeats \"\(alias)\"")
                } else {
                    aliases.append(alias)
                }
            }
        case let other?:
            fail("/aliases", "expected an array of ids, found \(other.kindName)")
        }

        let category = enumeration(Template.Category.self, document["category"], at: "/category")
        let style = enumeration(Template.Style.self, document["style"], at: "/style")
        let visual = parseVisual(document["visual"])
        let (actions, actionIDs) = parseActions(document["actions"])
        if category == .firstUse, let actions, actions.contains(where: { $0.role == .secondary }) {
            fail("/actions", "a first-use state offers one primary action only (a logical first step), no secondary")
        }
        if origin == .new, let category, Self.errorCategories.contains(category), let actions,
            let rule = Self.errorRule(actions)
        {
            fail("/actions", rule)
        }

        var defaultLocale: String?
        if let text = string(document["defaultLocale"], at: "/defaultLocale") {
            if let tag = LocaleTag(text) {
                defaultLocale = tag.description
            } else {
                fail("/defaultLocale", "\"\(text)\" is not a well-formed BCP 47 language tag")
            }
        }
        let strings = parseStrings(document["strings"], defaultLocale: defaultLocale, actionIDs: actionIDs)
        let examples = parseExamples(document["examples"], strings: strings, defaultLocale: defaultLocale)

        guard let id, let category, let style, let defaultLocale, let visual, let actions, let strings else {
            return nil
        }
        return Template(
            id: id,
            aliases: aliases,
            category: category,
            style: style,
            defaultLocale: defaultLocale,
            visual: visual,
            actions: actions,
            strings: strings,
            plurals: plurals,
            examples: examples
        )
    }

    private mutating func parseVisual(_ value: JSONValue?) -> Template.Visual? {
        guard let value else {
            fail("/visual", "is required: an icon or an illustration")
            return nil
        }
        guard case .object(let members) = value else {
            fail("/visual", "expected an object, found \(value.kindName)")
            return nil
        }
        for member in members where member.key != "icon" && member.key != "illustration" {
            fail("/visual/" + jsonPointerToken(member.key), "unknown field (expected icon or illustration)")
        }
        switch (value["icon"], value["illustration"]) {
        case (nil, nil):
            fail("/visual", "needs an icon or an illustration")
            return nil
        case (.some, .some):
            fail("/visual", "has both an icon and an illustration; use one (the design systems never stack both)")
            return nil
        case (let icon?, nil):
            guard case .object(let entries) = icon else {
                fail(
                    "/visual/icon",
                    "expected an object with ios, android and web symbol names, found \(icon.kindName)"
                )
                return nil
            }
            var symbols: [Platform: String] = [:]
            for entry in entries where Platform(rawValue: entry.key) == nil {
                fail("/visual/icon/" + jsonPointerToken(entry.key), "unknown platform (expected ios, android, web)")
            }
            for platform in Platform.allCases {
                if let name = string(icon[platform.rawValue], at: "/visual/icon/\(platform.rawValue)") {
                    symbols[platform] = name
                }
            }
            return symbols.count == Platform.allCases.count ? .icon(symbols) : nil
        case (nil, let illustration?):
            guard case .object(let entries) = illustration else {
                fail("/visual/illustration", "expected an object with an asset name, found \(illustration.kindName)")
                return nil
            }
            for entry in entries where entry.key != "asset" {
                fail("/visual/illustration/" + jsonPointerToken(entry.key), "unknown field (expected asset)")
            }
            return string(illustration["asset"], at: "/visual/illustration/asset").map { .illustration(asset: $0) }
        }
    }

    /// - Returns: the actions (`nil` when one is broken) and the ids of every action that has a
    ///   valid id, so the labels of the valid ones are still checked, not reported as unknown keys.
    private mutating func parseActions(_ value: JSONValue?) -> (actions: [Template.Action]?, ids: [String]) {
        guard let value else { return ([], []) }
        guard case .array(let elements) = value else {
            fail("/actions", "expected an array, found \(value.kindName)")
            return (nil, [])
        }
        var ids: [String] = []
        if elements.count > 3 { fail("/actions", "at most 3 actions (found \(elements.count))") }
        var actions: [Template.Action] = []
        var valid = true
        for (index, element) in elements.enumerated() {
            let pointer = "/actions/\(index)"
            guard case .object(let members) = element else {
                fail(pointer, "expected an object, found \(element.kindName)")
                valid = false
                continue
            }
            for member in members where !["id", "role", "type", "target"].contains(member.key) {
                fail(pointer + "/" + jsonPointerToken(member.key), "unknown field (expected id, role, type, target)")
            }
            let id = string(element["id"], at: pointer + "/id")
            if let id {
                if ids.contains(id) {
                    fail(pointer + "/id", "repeats action id \"\(id)\"")
                } else {
                    // Known even when malformed, so its labels are not reported a second time.
                    ids.append(id)
                    if !Self.isValidActionID(id) { fail(pointer + "/id", "must match ^[a-z][A-Za-z0-9]{0,31}$") }
                }
            }
            let role = enumeration(Template.Action.Role.self, element["role"], at: pointer + "/role")
            let kind = enumeration(Template.Action.Kind.self, element["type"], at: pointer + "/type")
            let target = string(element["target"], at: pointer + "/target", required: false)
            if let kind { checkTarget(target, for: kind, at: pointer + "/target") }
            guard let id, let role, let kind else {
                valid = false
                continue
            }
            actions.append(Template.Action(id: id, role: role, kind: kind, target: target))
        }
        let primaries = actions.filter { $0.role == .primary }.count
        if !actions.isEmpty, primaries != 1 {
            fail("/actions", "exactly one action must have role primary (found \(primaries))")
        }
        return (valid ? actions : nil, ids)
    }

    private mutating func checkTarget(_ target: String?, for kind: Template.Action.Kind, at pointer: String) {
        switch kind {
        case .openURL:
            guard let target else { return fail(pointer, "openURL needs an https:// target") }
            if !target.hasPrefix("https://") || target.count <= 8 { fail(pointer, "openURL needs an https:// URL") }
        case .navigate:
            if target == nil { fail(pointer, "navigate needs a target (an app route)") }
        case .custom:
            if target == nil { fail(pointer, "custom needs a target (the event name the app handles)") }
        case .openStore:
            break
        case .retry, .navigateBack, .openSettings, .signIn, .dismiss:
            if target != nil { fail(pointer, "\(kind.rawValue) takes no target") }
        }
    }

    private mutating func parseStrings(
        _ value: JSONValue?,
        defaultLocale: String?,
        actionIDs: [String]
    ) -> [(locale: String, values: [String: String])]? {
        guard let value else {
            fail("/strings", "is required")
            return nil
        }
        guard case .object(let locales) = value else {
            fail("/strings", "expected an object of locale → strings, found \(value.kindName)")
            return nil
        }
        var result: [(locale: String, values: [String: String])] = []
        var allowedKeys: Set<String> = ["title", "message", "visual.label"]
        for id in actionIDs { allowedKeys.insert(Template.labelKey(id)) }

        for (localeText, entry) in locales {
            let pointer = "/strings/" + jsonPointerToken(localeText)
            guard let tag = LocaleTag(localeText) else {
                fail(pointer, "\"\(localeText)\" is not a well-formed BCP 47 language tag")
                continue
            }
            if PseudoLocale.isPseudo(tag.description) {
                fail(pointer, "\(tag) is a pseudo-locale the service generates; it cannot be written")
                continue
            }
            if result.contains(where: { $0.locale == tag.description }) {
                fail(pointer, "repeats locale \(tag)")
                continue
            }
            guard case .object(let members) = entry else {
                fail(pointer, "expected an object of key → text, found \(entry.kindName)")
                continue
            }
            var values: [String: String] = [:]
            for (key, text) in members {
                let keyPointer = pointer + "/" + jsonPointerToken(key)
                guard allowedKeys.contains(key) else {
                    fail(keyPointer, "unknown key (expected title, message, visual.label or actions.<id> of an action)")
                    continue
                }
                if case .object = text, key.hasPrefix("actions.") {
                    fail(
                        keyPointer,
                        "a button label is a plain string: the title, message and visual label may be plural strings"
                    )
                    continue
                }
                if case .object = text {
                    // A plural string: its `other` form is the key's text (`Template.plurals`).
                    if let plural = parsePlural(text, key: key, locale: tag.description, at: keyPointer) {
                        plurals[tag.description, default: [:]][key] = plural
                        values[key] = plural.other
                    } else {
                        brokenPlurals.insert(tag.description + "\u{0}" + key)
                        if case .string(let other)? = text["other"] { values[key] = other }
                    }
                    continue
                }
                guard let text = string(text, at: keyPointer) else { continue }
                checkCopy(text, key: key, at: keyPointer)
                values[key] = text
            }
            if values["title"] == nil, members.first(where: { $0.key == "title" }) == nil {
                fail(pointer + "/title", "is required")
            }
            for id in actionIDs
            where values[Template.labelKey(id)] == nil
                && !members.contains(where: { $0.key == Template.labelKey(id) })
            {
                fail(pointer + "/" + jsonPointerToken(Template.labelKey(id)), "is required: a label for action \(id)")
            }
            result.append((tag.description, values))
        }

        guard let defaultLocale else { return result }
        guard let reference = result.first(where: { $0.locale == defaultLocale }) else {
            fail("/strings", "has no strings for the default locale \(defaultLocale)")
            return nil
        }
        var sourceMismatches: [String: [(locale: String, placeholders: Set<String>)]] = [:]
        for (locale, values) in result where locale != defaultLocale {
            let pointer = "/strings/" + jsonPointerToken(locale)
            for key in reference.values.keys.sorted()
            where values[key] == nil && !(key == "title" || key.hasPrefix("actions."))
                && !brokenPlurals.contains(locale + "\u{0}" + key)
            {
                fail(
                    pointer + "/" + jsonPointerToken(key),
                    "is missing (\(defaultLocale) has it; every locale has the same keys)"
                )
            }
            for key in values.keys.sorted()
            where reference.values[key] == nil && !brokenPlurals.contains(defaultLocale + "\u{0}" + key) {
                fail(pointer + "/" + jsonPointerToken(key), "is not in the default locale \(defaultLocale)")
            }
            for (key, text) in values {
                guard let expected = reference.values[key] else { continue }
                let want = Set(CopyRules.placeholders(in: expected))
                let have = Set(CopyRules.placeholders(in: text))
                guard want != have else { continue }
                if let sentLocales, sentLocales.contains(defaultLocale), !sentLocales.contains(locale) {
                    // The default locale changed and this one did not: the fault is in the field sent.
                    sourceMismatches[key, default: []].append((locale, have))
                    continue
                }
                fail(
                    pointer + "/" + jsonPointerToken(key),
                    "uses placeholders \(Self.list(have)) but \(defaultLocale) uses \(Self.list(want))"
                )
            }
        }
        for key in sourceMismatches.keys.sorted() {
            guard let text = reference.values[key], let others = sourceMismatches[key] else { continue }
            let have = Set(CopyRules.placeholders(in: text))
            // Locales that agree with each other are named together: "es, fr use {provider}".
            let groups = Dictionary(grouping: others, by: { $0.placeholders.sorted() })
            let uses = groups.keys.sorted { $0.lexicographicallyPrecedes($1) }.map { names in
                let locales = (groups[names] ?? []).map(\.locale).sorted()
                return
                    "\(locales.joined(separator: ", ")) \(locales.count == 1 ? "uses" : "use") \(Self.list(Set(names)))"
            }
            fail(
                "/strings/" + jsonPointerToken(defaultLocale) + "/" + jsonPointerToken(key),
                "uses placeholders \(Self.list(have)) but \(uses.joined(separator: "; ")): keep the placeholders, "
                    + "or change them in every locale in the same write"
            )
        }
        checkPlurals(reference: reference.values, defaultLocale: defaultLocale)
        return result
    }

    /// `{a}, {b}` for a set of placeholder names, `{}` for none.
    static func list(_ names: Set<String>) -> String {
        "{" + names.sorted().joined(separator: "}, {") + "}"
    }

    /// `examples`: placeholder name → an example of its value (`provider` → `BankID`), which the
    /// translator files show (Android's `<xliff:g example>`, the notes of every format). Each name
    /// is a placeholder of the default locale's strings; an example is a label's length at most.
    private mutating func parseExamples(
        _ value: JSONValue?,
        strings: [(locale: String, values: [String: String])]?,
        defaultLocale: String?
    ) -> [String: String] {
        guard let value else { return [:] }
        guard case .object(let members) = value else {
            fail("/examples", "expected an object of placeholder name → example, found \(value.kindName)")
            return [:]
        }
        var used: Set<String> = []
        if let defaultLocale, let reference = strings?.first(where: { $0.locale == defaultLocale }) {
            for text in reference.values.values { used.formUnion(CopyRules.placeholders(in: text)) }
        }
        var examples: [String: String] = [:]
        for (name, member) in members {
            let pointer = "/examples/" + jsonPointerToken(name)
            guard let text = string(member, at: pointer) else { continue }
            // A stored document is read as it was accepted (its strings may have changed since).
            if origin == .new, strings != nil, !used.contains(name) {
                fail(pointer, "no string of the default locale has the placeholder {\(name)}")
                continue
            }
            if CopyRules.columns(text) > CopyRules.labelColumns {
                fail(pointer, "an example is at most \(CopyRules.labelColumns) columns")
                continue
            }
            examples[name] = text
        }
        return examples
    }

    mutating func checkCopy(_ text: String, key: String, at pointer: String) {
        let columns = CopyRules.columns(text)
        if key == "title", columns > CopyRules.titleColumns {
            fail(pointer, "\(columns) columns; a title must fit 2 lines (at most \(CopyRules.titleColumns))")
        } else if key == "message", columns > CopyRules.messageColumns {
            fail(pointer, "\(columns) columns; a message must fit 3 lines (at most \(CopyRules.messageColumns))")
        } else if key.hasPrefix("actions.") {
            if columns > CopyRules.labelColumns {
                fail(pointer, "\(columns) columns; a button label must be at most \(CopyRules.labelColumns)")
            }
            if CopyRules.isVague(text) {
                fail(pointer, "\"\(text)\" is not descriptive; say what the button does (not OK, Go, Click here)")
            }
        } else if key == "visual.label", columns > CopyRules.messageColumns {
            fail(pointer, "\(columns) columns; keep an accessibility label under \(CopyRules.messageColumns)")
        }
    }
}

extension TemplateParser {
    /// Categories held to Workday's error rule (seed 001, "Errors").
    static let errorCategories: Set<Template.Category> = [.error, .offline, .access]

    /// Action types that leave the state without fixing it.
    static let wayOutKinds: Set<Template.Action.Kind> = [.navigateBack, .dismiss]

    /// Why `actions` break the error rule, or `nil`: the primary action is a remedy and a
    /// secondary one a way out; where there is no remedy, the way out is the primary.
    static func errorRule(_ actions: [Template.Action]) -> String? {
        if actions.isEmpty { return "an error state offers at least a way out (a navigateBack or dismiss action)" }
        // Not exactly one primary: the rule on roles says so already.
        let primaries = actions.filter { $0.role == .primary }
        guard primaries.count == 1, let primary = primaries.first else { return nil }
        let others = actions.filter { $0.role != .primary }
        if wayOutKinds.contains(primary.kind) {
            if others.contains(where: { !wayOutKinds.contains($0.kind) }) {
                return
                    "an error state's remedy is its primary action and the way out (\(primary.kind.rawValue)) its secondary"
            }
        } else if !others.contains(where: { wayOutKinds.contains($0.kind) }) {
            return "an error state offers a way out (a navigateBack or dismiss action) beside its remedy"
        }
        return nil
    }
}
