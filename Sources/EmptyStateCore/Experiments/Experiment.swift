import JSONCoding

/// A copy experiment on one template: 2–5 variants, the first of which (control) is the live
/// copy and the others override some of its strings (action labels are strings too:
/// `actions.<id>`) per locale, or its visual.
///
/// Installs are split by `ExperimentAssignment` with the experiment's id as the seed, so an
/// assignment can be reproduced by any GrowthBook SDK. The document is stored as a versioned
/// document of its own kind in the templates' tables (`StoredDocuments.experimentKind`).
package struct Experiment: Sendable, Equatable {
    package enum Status: String, Sendable, CaseIterable {
        case draft, running, stopped, shipped
    }

    /// What counts as a conversion: a tap on one action, or on any.
    package enum Metric: Sendable, Equatable {
        case tap(action: String)
        case anyTap
    }

    package struct Variant: Sendable, Equatable {
        /// Its name in events and results: `[a-z0-9_-]`, at most 32 characters.
        package var key: String
        package var weight: Double
        /// Overridden strings by locale: `[(locale, [key: value])]`, in document order.
        package var strings: [(locale: String, values: [String: String])]
        /// The overridden visual as its document (`{"icon": …}` or `{"illustration": …}`).
        package var visual: JSONValue?

        package init(
            key: String,
            weight: Double,
            strings: [(locale: String, values: [String: String])] = [],
            visual: JSONValue? = nil
        ) {
            self.key = key
            self.weight = weight
            self.strings = strings
            self.visual = visual
        }

        package static func == (lhs: Variant, rhs: Variant) -> Bool {
            lhs.key == rhs.key && lhs.weight == rhs.weight && lhs.visual == rhs.visual
                && lhs.strings.count == rhs.strings.count
                && zip(lhs.strings, rhs.strings).allSatisfy { $0.locale == $1.locale && $0.values == $1.values }
        }

        /// Whether it changes nothing: control.
        package var overridesNothing: Bool { strings.isEmpty && visual == nil }
    }

    /// What the experiment is sized to find, set before it starts (`ExperimentPlan.Input` without
    /// the weights, which are the variants'). It tunes the confidence sequences and says when the
    /// planned installs are reached, so it is frozen once the experiment has run: re-planning
    /// after seeing the data would let a reader pick the tuning that gives a verdict.
    package struct Plan: Sendable, Equatable {
        package var baselineRate: Double
        package var minimumDetectableEffect: ExperimentEffect
        package var alpha: Double
        package var power: Double

        package init(
            baselineRate: Double,
            minimumDetectableEffect: ExperimentEffect,
            alpha: Double = 0.05,
            power: Double = 0.8
        ) {
            self.baselineRate = baselineRate
            self.minimumDetectableEffect = minimumDetectableEffect
            self.alpha = alpha
            self.power = power
        }

        /// The planner's input for `weights`.
        package func input(weights: [Double]) -> ExperimentPlan.Input {
            .init(
                baselineRate: baselineRate,
                minimumDetectableEffect: minimumDetectableEffect,
                alpha: alpha,
                power: power,
                weights: weights
            )
        }
    }

    package var id: String
    package var templateID: String
    package var status: Status
    /// The share of installs that enter at all, in `[0, 1]`.
    package var coverage: Double
    package var metric: Metric
    package var variants: [Variant]
    /// What it is sized to find; `nil` when no plan was set (the results then say so).
    package var plan: Plan?
    /// Secondary rates that must not get worse, each the share of exposed installs that tapped an
    /// action (its `key`); at most `maximumGuardrails`. Frozen once the experiment has run.
    package var guardrails: [ExperimentGuardrail]
    package static let maximumGuardrails = 3
    /// Who may enter; empty: everyone. Frozen once the experiment has run (it decides who is in).
    package var targeting: ExperimentTargeting
    /// QA devices forced to a variant, whatever the hash and the target say; their events are
    /// excluded from the results (`override`). Editable while running: an install's place
    /// depends on its own id alone, so adding or removing one moves nobody else.
    package var overrides: [ExperimentOverride]
    package static let maximumOverrides = 100
    /// When it last started running and when it stopped (`Timestamp` text), set by the service.
    package var startedAt: String?
    package var stoppedAt: String?

    package init(
        id: String,
        templateID: String,
        status: Status = .draft,
        coverage: Double = 1,
        metric: Metric = .anyTap,
        variants: [Variant],
        plan: Plan? = nil,
        guardrails: [ExperimentGuardrail] = [],
        targeting: ExperimentTargeting = .init(),
        overrides: [ExperimentOverride] = [],
        startedAt: String? = nil,
        stoppedAt: String? = nil
    ) {
        self.id = id
        self.templateID = templateID
        self.status = status
        self.coverage = coverage
        self.metric = metric
        self.variants = variants
        self.plan = plan
        self.guardrails = guardrails
        self.targeting = targeting
        self.overrides = overrides
        self.startedAt = startedAt
        self.stoppedAt = stoppedAt
    }

    /// The experiment's weights, in variant order.
    package var weights: [Double] { variants.map(\.weight) }

    /// The planner's answer for the experiment's plan and weights; `nil` without a plan (or with
    /// one the planner refuses, which a write never stores).
    package var sizedPlan: ExperimentPlan? {
        guard let plan else { return nil }
        return try? ExperimentPlan.make(plan.input(weights: weights))
    }

    /// The variant `installID` gets, or `nil` when the install is outside the coverage (it is
    /// then served control and not counted as exposed).
    package func variant(for installID: String) -> Variant? {
        ExperimentAssignment.variant(seed: id, installID: installID, weights: weights, coverage: coverage)
            .map { variants[$0] }
    }

    /// Where an install stands in the experiment, from its id and what it sent.
    package enum Placement: Sendable, Equatable {
        /// Forced to this variant by a QA override (served it; its events excluded).
        case overridden(Variant)
        /// Assigned this variant by the hash: counted in the results.
        case assigned(Variant)
        /// Outside the target: served the base copy, never assigned.
        case outsideTarget
        /// Inside the target, outside the coverage: served the base copy.
        case notCovered

        /// The variant it is served, if any.
        package var variant: Variant? {
            switch self {
            case .overridden(let variant), .assigned(let variant): variant
            case .outsideTarget, .notCovered: nil
            }
        }
    }

    /// Where `installID` stands: an override first, then the target, then the hash.
    /// - Parameters:
    ///   - startedAt: `startedAt` in milliseconds, for the new-install condition.
    ///   - checkingNewInstall: false for events, which do not carry the install time.
    package func place(
        _ installID: String,
        attributes: ExperimentTargeting.Attributes,
        startedAt: Int64?,
        checkingNewInstall: Bool = true
    ) -> Placement {
        if let forced = override(for: installID) { return .overridden(forced) }
        if !targeting.admits(attributes, startedAt: startedAt, checkingNewInstall: checkingNewInstall) {
            return .outsideTarget
        }
        return variant(for: installID).map(Placement.assigned) ?? .notCovered
    }

    /// The variant a QA override forces `installID` to, if any.
    package func override(for installID: String) -> Variant? {
        guard !overrides.isEmpty, let forced = overrides.first(where: { $0.installID == installID }) else {
            return nil
        }
        return variants.first { $0.key == forced.variant }
    }

    /// The template a variant shows: the live template with the variant's strings and visual.
    /// - Returns: `nil` when the result breaks a rule (`ExperimentParser.validate(_:against:)`
    ///   refuses such a variant at write time; a template edited since may still break it).
    package func apply(_ variant: Variant, to template: Template) -> Template? {
        if variant.overridesNothing { return template }
        switch TemplateParser.parse(variantDocument(variant, template: template)) {
        case .success(let result): return result
        case .failure: return nil
        }
    }

    /// The template's document with the variant's strings merged in and its visual replaced.
    package func variantDocument(_ variant: Variant, template: Template) -> JSONValue {
        var result = template
        for override in variant.strings {
            guard let index = result.strings.firstIndex(where: { $0.locale == override.locale }) else { continue }
            result.strings[index].values.merge(override.values) { _, new in new }
            // A variant's text replaces a plural string whole: it is a plain string.
            for key in override.values.keys { result.plurals[override.locale]?[key] = nil }
        }
        guard case .object(var members) = result.document else { return result.document }
        if let visual = variant.visual, let index = members.firstIndex(where: { $0.key == "visual" }) {
            members[index].value = visual
        }
        return .object(members)
    }
}

extension Experiment {
    /// The experiment as the document the admin API takes and returns and the store keeps.
    package var document: JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("id", .string(id)), ("templateId", .string(templateID)), ("status", .string(status.rawValue)),
            ("coverage", .number(coverage)),
        ]
        switch metric {
        case .tap(let action):
            members.append(("primaryMetric", .object([("type", .string("tap")), ("action", .string(action))])))
        case .anyTap:
            members.append(("primaryMetric", .object([("type", .string("anyTap"))])))
        }
        members.append(
            (
                "variants",
                .array(
                    variants.map { variant in
                        var fields: [(key: String, value: JSONValue)] = [
                            ("key", .string(variant.key)), ("weight", .number(variant.weight)),
                        ]
                        if !variant.strings.isEmpty {
                            fields.append(
                                (
                                    "strings",
                                    .object(
                                        variant.strings.map { entry in
                                            (
                                                entry.locale,
                                                .object(
                                                    entry.values.keys.sorted().map { ($0, .string(entry.values[$0]!)) }
                                                )
                                            )
                                        }
                                    )
                                )
                            )
                        }
                        if let visual = variant.visual { fields.append(("visual", visual)) }
                        return .object(fields)
                    }
                )
            )
        )
        if let plan {
            let effect: (key: String, value: JSONValue) =
                switch plan.minimumDetectableEffect {
                case .relative(let value): ("relative", .number(value))
                case .absolute(let value): ("absolute", .number(value))
                }
            members.append(
                (
                    "plan",
                    .object([
                        ("baselineRate", .number(plan.baselineRate)),
                        ("minimumDetectableEffect", .object([effect])),
                        ("alpha", .number(plan.alpha)), ("power", .number(plan.power)),
                    ])
                )
            )
        }
        if !guardrails.isEmpty {
            members.append(
                (
                    "guardrails",
                    .array(
                        guardrails.map { guardrail in
                            let margin: (key: String, value: JSONValue) =
                                switch guardrail.margin {
                                case .relative(let value): ("relative", .number(value))
                                case .absolute(let value): ("absolute", .number(value))
                                }
                            return .object([
                                ("action", .string(guardrail.key)), ("harm", .string(guardrail.harm.rawValue)),
                                ("margin", .object([margin])),
                            ])
                        }
                    )
                )
            )
        }
        if !targeting.isEmpty { members.append(("targeting", targeting.document)) }
        if !overrides.isEmpty {
            members.append(
                (
                    "overrides",
                    .array(
                        overrides.map {
                            JSONValue.object([("installId", .string($0.installID)), ("variant", .string($0.variant))])
                        }
                    )
                )
            )
        }
        if let startedAt { members.append(("startedAt", .string(startedAt))) }
        if let stoppedAt { members.append(("stoppedAt", .string(stoppedAt))) }
        return .object(members)
    }
}
