import JSONCoding

/// Reads and validates experiment documents; every broken rule is reported with a JSON pointer
/// into the document, as templates' are.
///
/// Two passes: `parse` checks the document on its own (shape, 2–5 variants, weights summing to
/// 1, control first and changing nothing); `validate(_:against:)` checks it against the live
/// template (the metric's action exists; each overridden locale and key exists; every variant's
/// copy passes the template rules in every locale it overrides).
package enum ExperimentParser {
    /// Ids and variant keys: lowercase letters, digits, `-` and `_`.
    package static func isName(_ text: String, maxLength: Int) -> Bool {
        !text.isEmpty && text.utf8.count <= maxLength
            && text.utf8.allSatisfy {
                (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == 0x2D || $0 == 0x5F
            }
    }

    static let fields: Set<String> = [
        "id", "templateId", "status", "coverage", "primaryMetric", "variants", "plan", "guardrails", "targeting",
        "overrides", "startedAt", "stoppedAt",
    ]

    /// Parses one experiment document.
    /// - Parameter expectedID: the id of the URL; the document's must equal it when given.
    package static func parse(
        _ document: JSONValue,
        expectedID: String? = nil
    ) -> Result<Experiment, TemplateValidationError> {
        var issues: [ValidationIssue] = []
        func fail(_ pointer: String, _ rule: String) { issues.append(ValidationIssue(pointer, rule)) }
        guard case .object(let members) = document else {
            return .failure(.init(issues: [ValidationIssue("", "expected an object, found \(document.kindName)")]))
        }
        for member in members where !fields.contains(member.key) {
            fail("/" + member.key, "unknown field")
        }
        func string(_ key: String, required: Bool = true) -> String? {
            switch document[key] {
            case .string(let text)?: return text
            case nil: if required { fail("/" + key, "is required") }
            case let other?: fail("/" + key, "expected a string, found \(other.kindName)")
            }
            return nil
        }
        let id = string("id")
        if let id, !isName(id, maxLength: 64) { fail("/id", "must be 1–64 of a-z, 0-9, - and _") }
        if let id, let expectedID, id != expectedID { fail("/id", "must equal the id in the URL (\(expectedID))") }
        let templateID = string("templateId")
        var status = Experiment.Status.draft
        if let text = string("status", required: false) {
            if let parsed = Experiment.Status(rawValue: text) {
                status = parsed
            } else {
                fail("/status", "expected one of draft, running, stopped, shipped")
            }
        }
        var coverage = 1.0
        switch document["coverage"] {
        case .number(let n)? where n > 0 && n <= 1: coverage = n
        case nil: break
        default: fail("/coverage", "expected a number greater than 0 and at most 1")
        }
        let metric = parseMetric(document["primaryMetric"], fail: fail)
        let variants = parseVariants(document["variants"], fail: fail)
        let plan = parsePlan(document["plan"], weights: variants?.map(\.weight), fail: fail)
        let guardrails = parseGuardrails(document["guardrails"], metric: metric, fail: fail)
        let targeting = ExperimentTargeting.parse(document["targeting"], fail: fail)
        let overrides = ExperimentOverride.parse(document["overrides"], variantKeys: variants?.map(\.key), fail: fail)
        let startedAt = string("startedAt", required: false)
        let stoppedAt = string("stoppedAt", required: false)
        guard issues.isEmpty, let id, let templateID, let metric, let variants else {
            return .failure(.init(issues: issues))
        }
        return .success(
            Experiment(
                id: id,
                templateID: templateID,
                status: status,
                coverage: coverage,
                metric: metric,
                variants: variants,
                plan: plan,
                guardrails: guardrails,
                targeting: targeting,
                overrides: overrides,
                startedAt: startedAt,
                stoppedAt: stoppedAt
            )
        )
    }

    private static func parseMetric(
        _ value: JSONValue?,
        fail: (String, String) -> Void
    ) -> Experiment.Metric? {
        guard let value else { return .anyTap }
        guard case .object(let members) = value else {
            fail("/primaryMetric", "expected an object ({\"type\": \"tap\", \"action\": …} or {\"type\": \"anyTap\"})")
            return nil
        }
        for member in members where member.key != "type" && member.key != "action" {
            fail("/primaryMetric/" + member.key, "unknown field")
        }
        switch (value["type"], value["action"]) {
        case (.string("anyTap")?, nil): return .anyTap
        case (.string("tap")?, .string(let action)?): return .tap(action: action)
        case (.string("tap")?, _): fail("/primaryMetric/action", "is required for a tap metric: an action id")
        default: fail("/primaryMetric/type", "expected tap or anyTap")
        }
        return nil
    }

    /// `{"baselineRate": 0.1, "minimumDetectableEffect": {"relative": 0.1}, "alpha": 0.05,
    /// "power": 0.8}` (alpha and power optional), checked by the planner with the variants' weights.
    private static func parsePlan(
        _ value: JSONValue?,
        weights: [Double]?,
        fail: (String, String) -> Void
    ) -> Experiment.Plan? {
        guard let value, value != .null else { return nil }
        guard case .object(let members) = value else {
            fail(
                "/plan",
                "expected an object: {\"baselineRate\": 0.1, \"minimumDetectableEffect\": {\"relative\": 0.1}}"
            )
            return nil
        }
        var failed = false
        for member in members where !["baselineRate", "minimumDetectableEffect", "alpha", "power"].contains(member.key)
        {
            fail(
                "/plan/" + member.key,
                "unknown field (expected baselineRate, minimumDetectableEffect, alpha or power)"
            )
            failed = true
        }
        func number(_ key: String, default fallback: Double?) -> Double? {
            switch value[key] {
            case .number(let n)?: return n
            case nil where fallback != nil: return fallback
            case nil:
                fail("/plan/" + key, "is required: a number")
            case let other?:
                fail("/plan/" + key, "expected a number, found \(other.kindName)")
            }
            failed = true
            return nil
        }
        let baseline = number("baselineRate", default: nil)
        let alpha = number("alpha", default: 0.05)
        let power = number("power", default: 0.8)
        var effect: ExperimentEffect?
        switch value["minimumDetectableEffect"] {
        case .object(let pairs)? where pairs.count == 1:
            switch (pairs[0].key, pairs[0].value) {
            case ("relative", .number(let n)): effect = .relative(n)
            case ("absolute", .number(let n)): effect = .absolute(n)
            default: break
            }
        default: break
        }
        if effect == nil {
            fail(
                "/plan/minimumDetectableEffect",
                "expected {\"relative\": 0.1} (+10 % of the baseline) or {\"absolute\": 0.01} (+1 point)"
            )
            failed = true
        }
        guard !failed, let baseline, let alpha, let power, let effect else { return nil }
        let plan = Experiment.Plan(baselineRate: baseline, minimumDetectableEffect: effect, alpha: alpha, power: power)
        // The weights' own issues are the variants'; the planner judges the rest.
        guard let weights else { return plan }
        do {
            _ = try ExperimentPlan.make(plan.input(weights: weights))
        } catch {
            for issue in error.issues where !issue.pointer.hasPrefix("/weights") {
                fail("/plan" + issue.pointer, issue.rule)
            }
        }
        return plan
    }

    /// `[{"action": "back", "harm": "increase", "margin": {"relative": 0.1}}]`: harm (`increase`,
    /// the default, or `decrease`) and margin (10 % of control's rate by default) optional.
    private static func parseGuardrails(
        _ value: JSONValue?,
        metric: Experiment.Metric?,
        fail: (String, String) -> Void
    ) -> [ExperimentGuardrail] {
        guard let value, value != .null else { return [] }
        guard case .array(let items) = value, items.count <= Experiment.maximumGuardrails else {
            fail("/guardrails", "expected an array of at most \(Experiment.maximumGuardrails) guardrails")
            return []
        }
        var result: [ExperimentGuardrail] = []
        for (index, item) in items.enumerated() {
            let base = "/guardrails/\(index)"
            guard case .object(let members) = item else {
                fail(base, "expected an object: {\"action\": \"back\"}")
                continue
            }
            for member in members where !["action", "harm", "margin"].contains(member.key) {
                fail(base + "/" + member.key, "unknown field (expected action, harm or margin)")
            }
            // An action id's characters (the template then says whether it has the action).
            guard case .string(let action)? = item["action"], !action.isEmpty, action.utf8.count <= 32,
                action.utf8.allSatisfy({ (($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x7A) || (0x30...0x39).contains($0) })
            else {
                fail(base + "/action", "is required: the id of the template's action whose taps must not get worse")
                continue
            }
            if case .tap(let metricAction)? = metric, metricAction == action {
                fail(base + "/action", "is the primary metric's action: a guardrail watches another one")
            }
            if result.contains(where: { $0.key == action }) { fail(base + "/action", "repeats an earlier guardrail") }
            var harm = ExperimentGuardrail.Harm.increase
            switch item["harm"] {
            case nil: break
            case .string(let text)? where ExperimentGuardrail.Harm(rawValue: text) != nil:
                harm = ExperimentGuardrail.Harm(rawValue: text) ?? .increase
            default: fail(base + "/harm", "expected increase (more taps are worse) or decrease")
            }
            var margin = ExperimentGuardrail.defaultMargin
            switch item["margin"] {
            case nil: break
            case .object(let pairs)? where pairs.count == 1:
                switch (pairs[0].key, pairs[0].value) {
                case ("relative", .number(let n)) where n > 0 && n.isFinite: margin = .relative(n)
                case ("absolute", .number(let n)) where n > 0 && n < 1: margin = .absolute(n)
                default: fail(base + "/margin", "expected {\"relative\": 0.1} or {\"absolute\": 0.02}, positive")
                }
            default: fail(base + "/margin", "expected {\"relative\": 0.1} or {\"absolute\": 0.02}, positive")
            }
            result.append(ExperimentGuardrail(key: action, harm: harm, margin: margin))
        }
        return result
    }

    private static func parseVariants(
        _ value: JSONValue?,
        fail: (String, String) -> Void
    ) -> [Experiment.Variant]? {
        guard case .array(let items)? = value else {
            fail("/variants", "is required: an array of 2 to 5 variants, control first")
            return nil
        }
        guard (2...5).contains(items.count) else {
            fail("/variants", "needs 2 to 5 variants, found \(items.count)")
            return nil
        }
        var variants: [Experiment.Variant] = []
        var keys: Set<String> = []
        var failed = false
        for (index, item) in items.enumerated() {
            let base = "/variants/\(index)"
            guard case .object(let members) = item else {
                fail(base, "expected an object, found \(item.kindName)")
                failed = true
                continue
            }
            for member in members where !["key", "weight", "strings", "visual"].contains(member.key) {
                fail(base + "/" + member.key, "unknown field (expected key, weight, strings or visual)")
                failed = true
            }
            var key = ""
            if case .string(let text)? = item["key"], isName(text, maxLength: 32) {
                key = text
                if !keys.insert(text).inserted {
                    fail(base + "/key", "is used by an earlier variant")
                    failed = true
                }
            } else {
                fail(base + "/key", "is required: 1–32 of a-z, 0-9, - and _")
                failed = true
            }
            var weight = 0.0
            if case .number(let n)? = item["weight"], n > 0, n < 1 {
                weight = n
            } else {
                fail(base + "/weight", "is required: a number greater than 0 and less than 1")
                failed = true
            }
            var strings: [(locale: String, values: [String: String])] = []
            switch item["strings"] {
            case nil: break
            case .object(let locales)?:
                for (locale, entries) in locales {
                    guard case .object(let pairs) = entries, !pairs.isEmpty else {
                        fail(base + "/strings/" + locale, "expected an object of strings by key")
                        failed = true
                        continue
                    }
                    var values: [String: String] = [:]
                    for (stringKey, text) in pairs {
                        if case .string(let text) = text {
                            values[stringKey] = text
                        } else {
                            fail(base + "/strings/\(locale)/\(stringKey)", "expected a string")
                            failed = true
                        }
                    }
                    strings.append((locale, values))
                }
            case let other?:
                fail(base + "/strings", "expected an object of locales, found \(other.kindName)")
                failed = true
            }
            let variant = Experiment.Variant(key: key, weight: weight, strings: strings, visual: item["visual"])
            if index == 0, !variant.overridesNothing {
                fail(base, "is control (the live copy): it overrides nothing")
                failed = true
            }
            if index > 0, variant.overridesNothing {
                fail(base, "overrides nothing: give it strings or a visual")
                failed = true
            }
            variants.append(variant)
        }
        let total = variants.reduce(0) { $0 + $1.weight }
        if !failed, abs(total - 1) > 1e-6 {
            fail("/variants", "weights must add up to 1, found \(total)")
            failed = true
        }
        return failed ? nil : variants
    }

    /// Checks `experiment` against the live template it runs on.
    /// - Returns: every broken rule, pointers into the experiment document.
    package static func validate(_ experiment: Experiment, against template: Template) -> [ValidationIssue] {
        var issues: [ValidationIssue] = []
        if case .tap(let action) = experiment.metric, !template.actions.contains(where: { $0.id == action }) {
            issues.append(.init("/primaryMetric/action", "the template has no action \"\(action)\""))
        }
        for (index, guardrail) in experiment.guardrails.enumerated()
        where !template.actions.contains(where: { $0.id == guardrail.key }) {
            issues.append(.init("/guardrails/\(index)/action", "the template has no action \"\(guardrail.key)\""))
        }
        // A targeted locale the template does not have would admit nobody: a typo, refused.
        let templateLocales = template.strings.map(\.locale)
        for (index, locale) in experiment.targeting.locales.enumerated()
        where !templateLocales.contains(where: { $0.lowercased() == locale.lowercased() }) {
            issues.append(
                .init(
                    "/targeting/locales/\(index)",
                    "the template has no locale \(locale) (it has \(templateLocales.joined(separator: ", ")))"
                )
            )
        }
        for (index, variant) in experiment.variants.enumerated() where !variant.overridesNothing {
            let base = "/variants/\(index)"
            var checkable = true
            for entry in variant.strings {
                guard let live = template.strings(for: entry.locale) else {
                    issues.append(
                        .init(base + "/strings/" + entry.locale, "the template has no locale \(entry.locale)")
                    )
                    checkable = false
                    continue
                }
                for key in entry.values.keys.sorted() where live[key] == nil {
                    issues.append(
                        .init(
                            base + "/strings/\(entry.locale)/\(key)",
                            "the template has no string \(key) in \(entry.locale)"
                        )
                    )
                    checkable = false
                }
            }
            guard checkable else { continue }
            // The variant's copy passes every template rule (lengths, vague labels, placeholders,
            // control characters) in every locale it overrides: it is parsed as a template.
            let document = experiment.variantDocument(variant, template: template)
            // The variant sends only its overridden locales; a placeholder its source-locale copy
            // drops is reported at that field, not at the live locales it left alone.
            let sent = Set(variant.strings.map(\.locale))
            if case .failure(let failure) = TemplateParser.parse(document, sentLocales: sent) {
                for issue in failure.issues {
                    issues.append(.init(base + variantPointer(issue.pointer, variant: variant), issue.rule))
                }
            }
        }
        return issues
    }

    /// Where a template issue is in the variant: `/strings/fr/title` and `/visual/…` are the
    /// variant's own fields; anything else is reported at the variant itself.
    private static func variantPointer(_ pointer: String, variant: Experiment.Variant) -> String {
        if pointer.hasPrefix("/visual"), variant.visual != nil { return pointer }
        if pointer.hasPrefix("/strings/") { return pointer }
        return ""
    }
}
