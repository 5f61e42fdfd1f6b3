import EmptyStateCore
import EmptyStateStore
import HTTPServer
import JSONCoding

/// `POST /v1/admin/experiment-plan`: the planning calculator, before an experiment exists.
///
/// Two questions, one per request: with `minimumDetectableEffect`, how many installs per arm the
/// fixed-horizon and the sequential test need (`ExperimentPlan.make`); with `totalInstalls`, the
/// smallest rise each test finds with that many (`ExperimentPlan.minimumDetectableEffect`). With
/// `templateId`, the expected duration of the sequential size at that template's displays of the
/// last 28 whole days, times `coverage`. Nothing is stored: a viewer may ask.
extension AdminAPI {
    func registerExperimentPlan(on router: inout Router) {
        router.add(
            .post,
            "/v1/admin/experiment-plan",
            blocking: true,
            route(.viewer, subject: .experiment) { request, _ in try experimentPlan(request) }
        )
    }

    /// The members a plan request may have.
    private static let planFields: Set<String> = [
        "baselineRate", "minimumDetectableEffect", "totalInstalls", "alpha", "power", "weights", "templateId",
        "coverage",
    ]

    private func experimentPlan(_ request: HTTPRequest) throws -> HTTPResponse {
        guard case .object(let members) = try body(request) else { throw AdminProblems.notAnObject }
        let document = JSONValue.object(members)
        var issues: [ValidationIssue] = []
        for member in members where !Self.planFields.contains(member.key) {
            issues.append(
                .init(
                    "/" + member.key,
                    "unknown field (expected one of \(Self.planFields.sorted().joined(separator: ", ")))"
                )
            )
        }
        func number(_ key: String, default fallback: Double? = nil) -> Double? {
            switch document[key] {
            case .number(let n)?: return n
            case nil: if fallback == nil { issues.append(.init("/" + key, "is required: a number")) }
            case let other?: issues.append(.init("/" + key, "expected a number, found \(other.kindName)"))
            }
            return fallback
        }
        let baseline = number("baselineRate")
        let alpha = number("alpha", default: 0.05)
        let power = number("power", default: 0.8)
        let coverage = number("coverage", default: 1)
        if let coverage, !(coverage > 0 && coverage <= 1) {
            issues.append(.init("/coverage", "must be greater than 0 and at most 1"))
        }
        var weights = [0.5, 0.5]
        switch document["weights"] {
        case nil: break
        case .array(let items)?:
            weights = items.map { if case .number(let n) = $0 { n } else { .nan } }
        case let other?: issues.append(.init("/weights", "expected an array of numbers, found \(other.kindName)"))
        }
        var effect: ExperimentEffect?
        var total: Int?
        switch (document["minimumDetectableEffect"], document["totalInstalls"]) {
        case (nil, nil), (_?, _?):
            issues.append(
                .init("", "send exactly one of minimumDetectableEffect (→ installs) and totalInstalls (→ effect)")
            )
        case (let value?, nil):
            if case .object(let pairs) = value, pairs.count == 1, case .number(let n) = pairs[0].value {
                effect = pairs[0].key == "relative" ? .relative(n) : pairs[0].key == "absolute" ? .absolute(n) : nil
            }
            if effect == nil {
                issues.append(
                    .init(
                        "/minimumDetectableEffect",
                        "expected {\"relative\": 0.1} (+10 % of the baseline) or {\"absolute\": 0.01} (+1 point)"
                    )
                )
            }
        case (nil, let value?):
            if case .number(let n) = value, n.rounded() == n, n >= 1, n <= 1e12 {
                total = Int(n)
            } else {
                issues.append(.init("/totalInstalls", "must be a whole number of installs, at least 1"))
            }
        }
        var templateID: String?
        switch document["templateId"] {
        case nil: break
        case .string(let id)?: templateID = id
        case let other?: issues.append(.init("/templateId", "expected a string, found \(other.kindName)"))
        }
        guard issues.isEmpty, let baseline, let alpha, let power, let coverage else { throw Self.planProblem(issues) }
        if let templateID { _ = try liveTemplateForPlan(templateID) }

        var answer = PlanAnswer(baselineRate: baseline, alpha: alpha, power: power, weights: weights)
        if let effect {
            let plan: ExperimentPlan
            do {
                plan = try ExperimentPlan.make(
                    .init(
                        baselineRate: baseline,
                        minimumDetectableEffect: effect,
                        alpha: alpha,
                        power: power,
                        weights: weights
                    )
                )
            } catch {
                throw Self.planProblem(error.issues)
            }
            answer.absoluteEffect = plan.absoluteEffect
            answer.relativeEffect = plan.relativeEffect
            answer.fixedHorizonInstalls = plan.fixedHorizonInstalls
            answer.sequentialInstalls = plan.sequentialInstalls
            answer.fixedHorizonTotal = plan.fixedHorizonTotal
            answer.sequentialTotal = plan.sequentialTotal
            if let templateID, let events {
                let now = Timestamp.nowMilliseconds()
                let duration = ExperimentDuration.estimate(
                    installs: plan.sequentialTotal,
                    recentDays: try recentDailyDisplays(templateID: templateID, events: events, now: now),
                    coverage: coverage,
                    basis: .displays
                )
                answer.expectedDuration = .init(
                    basis: duration.basis.rawValue,
                    dailyInstalls: duration.dailyInstalls,
                    days: duration.days,
                    recommendedDays: duration.recommendedDays
                )
            }
        } else if let total {
            do {
                answer.totalInstalls = total
                answer.fixedHorizonEffect = try ExperimentPlan.minimumDetectableEffect(
                    baselineRate: baseline,
                    totalInstalls: total,
                    alpha: alpha,
                    power: power,
                    weights: weights,
                    sequential: false
                )
                answer.sequentialEffect = try ExperimentPlan.minimumDetectableEffect(
                    baselineRate: baseline,
                    totalInstalls: total,
                    alpha: alpha,
                    power: power,
                    weights: weights,
                    sequential: true
                )
            } catch {
                throw Self.planProblem(error.issues)
            }
        }
        return try .json(answer)
    }

    private func liveTemplateForPlan(_ id: String) throws -> Template {
        do {
            return try store.template(id: id).template
        } catch {
            switch error {
            case .notFound, .deleted: throw Self.planProblem([.init("/templateId", "no live template has this id")])
            default: throw error
            }
        }
    }

    private static func planProblem(_ issues: [ValidationIssue]) -> ProblemDetails {
        ProblemDetails(
            status: 422,
            slug: "validation-failed",
            title: "Unprocessable Content",
            detail: issues.count == 1
                ? "The plan's inputs break a rule." : "The plan's inputs break \(issues.count) rules.",
            errors: issues.map { .init(.pointer($0.pointer), $0.rule) }
        )
    }

    /// `AdminExperimentPlan` in openapi.yaml: the inputs as used (defaults filled in), then either
    /// the installs for the effect asked (and the expected duration with a template), or the
    /// effects found with the installs asked (absent when no rise up to 100 % is).
    struct PlanAnswer: Encodable {
        struct Duration: Encodable {
            var basis: String
            var dailyInstalls: Double
            var days: Int?
            var recommendedDays: Int?
        }

        var baselineRate: Double
        var alpha: Double
        var power: Double
        var weights: [Double]
        var absoluteEffect: Double?
        var relativeEffect: Double?
        var fixedHorizonInstalls: [Int]?
        var sequentialInstalls: [Int]?
        var fixedHorizonTotal: Int?
        var sequentialTotal: Int?
        var expectedDuration: Duration?
        var totalInstalls: Int?
        var fixedHorizonEffect: Double?
        var sequentialEffect: Double?

        init(baselineRate: Double, alpha: Double, power: Double, weights: [Double]) {
            self.baselineRate = baselineRate
            self.alpha = alpha
            self.power = power
            self.weights = weights
        }
    }
}
