/// The sentences of `ExperimentDecision`, for a product manager: what the data say, in rates and
/// percentage points, with the always-valid interval, and what to do next. English, plain words, no
/// jargon beyond "always-valid p"; numbers rounded for reading (the figures beside them are exact).
///
/// Deterministic: formatting is done here, digit by digit, not by a locale-dependent formatter, so
/// every replica writes the same sentence for the same counts.
package struct ExperimentWording {
    let evidence: ExperimentDecision.Evidence

    package init(_ evidence: ExperimentDecision.Evidence) {
        self.evidence = evidence
    }

    // MARK: - Outcomes

    package func collecting() -> String {
        if evidence.status == .draft { return "Not started: a draft has no results yet." }
        let minimum = evidence.settings.minimumInstalls
        let short = zip(evidence.arms, evidence.fixedHorizon.arms).filter { arm, analysis in
            arm.weight > 0 && analysis.installs < minimum
        }
        let counts = short.map { "\($0.0.key) has \(Self.integer($0.1.installs))" }
        let sofar = counts.isEmpty ? "" : "; " + Self.list(counts) + " so far"
        return "Collecting: every variant needs \(Self.integer(minimum)) installs before its results are read\(sofar)."
    }

    package func sampleRatioMismatch() -> String {
        let analysis = evidence.fixedHorizon
        let total = Double(analysis.arms.map(\.installs).reduce(0, +))
        let weightTotal = evidence.arms.map { $0.weight.isFinite && $0.weight > 0 ? $0.weight : 0 }.reduce(0, +)
        let observed = analysis.arms.map { "\($0.key) \(Self.percent(total > 0 ? Double($0.installs) / total : 0))" }
        let expected = evidence.arms.map { Self.percent(weightTotal > 0 ? max($0.weight, 0) / weightTotal : 0) }
        return "Do not use these results: installs are not split as the weights say ("
            + Self.list(observed) + " of installs, where the weights say " + Self.list(expected)
            + "; p " + Self.pValue(analysis.sampleRatio.pValue) + "). Something moves or loses one variant's"
            + " installs, such as a cache serving one variant to everyone or an app that drops events;"
            + " fix it, then start a new experiment."
    }

    package func winner(_ best: ExperimentTimelineArm, others: [ExperimentTimelineArm]) -> String {
        let control = evidence.latest?.arms.first
        var text =
            "Variant \(best.key) wins: \(Self.percent(best.rate.value)) of its installs converted against "
            + "\(Self.percent(control?.rate.value ?? 0)) for \(control?.key ?? "control"), "
            + difference(best) + "."
        if evidence.status == .running {
            text +=
                " This holds however often the results were looked at, so the experiment can stop now and ship \(best.key)."
        }
        if !others.isEmpty {
            let phrases = others.map { "\($0.key) (\(Self.points($0.comparison?.sequential?.difference ?? 0)) points)" }
            let (noun, verb) = others.count == 1 ? ("Variant", "beats") : ("Variants", "beat")
            text += " \(noun) " + Self.list(phrases) + " also \(verb) control, by less."
        }
        for guardrail in evidence.latest?.guardrails ?? [] {
            guard let comparison = guardrail.comparisons.first(where: { $0.variant == best.key }) else { continue }
            switch comparison.state {
            case .notHarmed:
                text +=
                    " Guardrail \(guardrail.key): not harmed (any \(rise(guardrail)) is below "
                    + "\(Self.points(comparison.margin, signed: false)) points)."
            case .inconclusive:
                text +=
                    " Guardrail \(guardrail.key): not clear yet (a \(rise(guardrail)) of up to "
                    + "\(Self.points(max(comparison.upperBound, 0), signed: false)) points is possible; "
                    + "the margin is \(Self.points(comparison.margin, signed: false)))."
            case .harmed:
                break  // a warning of its own
            }
        }
        return text
    }

    package func controlWins() -> String {
        "Control wins: every variant converts fewer installs. " + comparisons() + " Keep the live copy."
    }

    package func keepRunning() -> String {
        var text = "Keep running: no variant differs clearly from control yet. " + comparisons()
        text += worse()
        text += progress()
        let alpha = evidence.comparisonAlpha
        // Only where the two disagree: the figure a team used to peek at says "winner" (or "loser"),
        // the sequential one does not yet.
        let peeking = evidence.variants.filter {
            ($0.comparison?.fixedHorizonPValue ?? 1) < alpha && $0.comparison?.sequential?.significant != true
        }
        if let first = peeking.first, let p = first.comparison?.fixedHorizonPValue {
            text +=
                " The fixed-horizon p-value of \(first.key) (\(Self.pValue(p, equals: false))) is below "
                + "\(Self.decimal(alpha)), but that figure holds only when read once, at a size fixed in advance;"
                + " stopping at the first such figure finds false winners far more often than it says."
        }
        return text
    }

    package func noDetectableDifference() -> String {
        let installs = evidence.progress?.installs ?? 0
        var text =
            "No detectable difference at the planned size: after \(Self.integer(installs)) installs, "
            + "no variant differs clearly from control. " + comparisons()
        text += worse()
        if let plan = evidence.plan {
            let effect = abs(plan.absoluteEffect)
            let sized = Self.points(effect, signed: false) + " points"
            let within = evidence.variants.allSatisfy {
                guard let s = $0.comparison?.sequential else { return false }
                return s.lower > -effect && s.upper < effect
            }
            text +=
                within
                ? " Any difference is smaller than the \(sized) the plan was sized to find: keep control, or ship"
                    + " a variant for other reasons."
                : " The intervals still reach the \(sized) the plan was sized to find (conversions were rarer or"
                    + " noisier than planned): run longer for a firmer answer, or stop knowing that an effect of"
                    + " that size may be missed."
        }
        return text
    }

    package func inconclusive() -> String {
        var text = "Stopped before a verdict"
        if let progress = evidence.progress {
            text +=
                ", after \(Self.integer(progress.installs)) of the \(Self.integer(progress.plannedInstalls))"
                + " installs planned"
        }
        return text + ": no variant differed clearly from control. " + comparisons() + worse()
            + " This is no evidence either way."
    }

    // MARK: - Warnings

    package func guardrailHarmed(_ guardrail: GuardrailResult, _ comparison: GuardrailComparison) -> String {
        let verb = guardrail.harm == .increase ? "rose" : "fell"
        return "Warning: variant \(comparison.variant) harms the guardrail \(guardrail.key): its rate \(verb) to "
            + "\(Self.percent(comparison.rate)) from \(Self.percent(comparison.controlRate)) for control "
            + "(by at least \(Self.points(max(comparison.lowerBound, 0), signed: false)) points, "
            + "always-valid p \(Self.pValue(comparison.pValue)))."
    }

    package func drifted(_ variant: String, since: String) -> String {
        "Warning: variant \(variant)'s difference to control changed over time (the intervals of an earlier and a later"
            + " day do not overlap): a novelty effect, or something changed midway. The interval shown counts"
            + " from \(since) on; do not trust a verdict from before."
    }

    // MARK: - Pieces

    /// "+1.0 points (between +0.3 and +1.7; always-valid p = 0.004)", the three at one precision.
    private func difference(_ arm: ExperimentTimelineArm) -> String {
        guard let s = arm.comparison?.sequential else { return "not compared yet" }
        let figures = Self.points([s.difference, s.lower, s.upper])
        return figures[0] + " points (between " + figures[1] + " and " + figures[2] + "; always-valid p "
            + Self.pValue(s.pValue) + ")"
    }

    /// "b: +1.0 points (…); c: −0.2 points (…)." — every variant's sequential figures.
    private func comparisons() -> String {
        evidence.variants.map { "\($0.key): " + difference($0) }.joined(separator: "; ") + "."
    }

    private func progress() -> String {
        guard let progress = evidence.progress else {
            return " There is no plan: set a minimum detectable effect to know how many installs to wait for."
        }
        var text =
            " \(Self.integer(progress.installs)) of the \(Self.integer(progress.plannedInstalls)) installs"
            + " planned (\(Self.percent(min(progress.share, 9.99))))"
        if let days = progress.remainingDays {
            text +=
                days <= 1
                ? "; about a day more at the recent pace" : "; about \(Self.integer(days)) more days at the recent pace"
        }
        return text + "."
    }

    /// " Variant c is clearly worse than control." for variants whose interval is below 0.
    private func worse() -> String {
        let worse = evidence.variants.filter {
            ($0.comparison?.sequential).map { $0.significant && $0.upper < 0 } ?? false
        }
        guard !worse.isEmpty else { return "" }
        let (noun, verb) = worse.count == 1 ? ("Variant", "is") : ("Variants", "are")
        return " \(noun) " + Self.list(worse.map(\.key)) + " \(verb) clearly worse than control."
    }

    private func rise(_ guardrail: GuardrailResult) -> String {
        guardrail.harm == .increase ? "rise" : "fall"
    }

    // MARK: - Numbers

    /// A rate as a percentage: one decimal from 1 %, more below so that small rates keep two digits.
    package static func percent(_ rate: Double) -> String {
        let value = rate * 100
        if value == 0 { return "0 %" }
        return decimal(value, decimals: digits(value)) + " %"
    }

    /// A difference of rates in percentage points, signed ("+1.0", "−0.35", "0.0").
    package static func points(_ difference: Double, signed: Bool = true) -> String {
        let value = difference * 100
        let text = decimal(abs(value), decimals: digits(value))
        guard signed, text.contains(where: { $0 != "0" && $0 != "." }) else { return text }
        return (value < 0 ? "\u{2212}" : "+") + text
    }

    /// Differences in points at the precision the largest of them needs, so that an estimate and
    /// its bounds read alike ("+1.0", "−0.1", "+2.1", not "−0.089").
    package static func points(_ differences: [Double]) -> [String] {
        let largest = differences.map { abs($0 * 100) }.max() ?? 0
        let decimals = digits(largest)
        return differences.map { difference in
            let value = difference * 100
            let text = decimal(abs(value), decimals: decimals)
            guard text.contains(where: { $0 != "0" && $0 != "." }) else { return text }
            return (value < 0 ? "\u{2212}" : "+") + text
        }
    }

    /// "= 0.004", "< 0.0001": two significant digits, never 0.
    package static func pValue(_ p: Double, equals: Bool = true) -> String {
        if !(p >= 0.0001) { return "< 0.0001" }
        let decimals = p >= 0.1 ? 2 : p >= 0.01 ? 3 : p >= 0.001 ? 4 : 5
        return (equals ? "= " : "") + decimal(p, decimals: decimals)
    }

    /// 56480 → "56,480".
    package static func integer(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var grouped = ""
        for (index, digit) in digits.enumerated() {
            if index > 0, (digits.count - index) % 3 == 0 { grouped.append(",") }
            grouped.append(digit)
        }
        return (value < 0 ? "\u{2212}" : "") + grouped
    }

    /// α and the like: as few decimals as they need, up to four (0.05, 0.025, 0.0167).
    package static func decimal(_ value: Double) -> String {
        for decimals in 1...4 {
            let text = decimal(value, decimals: decimals)
            if abs(parse(text) - value) < 1e-9 { return text }
        }
        return decimal(value, decimals: 4)
    }

    /// A non-negative value rounded half away from zero to `decimals` places, digit by digit.
    package static func decimal(_ value: Double, decimals: Int) -> String {
        guard value.isFinite else { return "?" }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = min((abs(value) * scale).rounded(.toNearestOrAwayFromZero), 9e15)
        let whole = Int(scaled)
        let divisor = Int(scale)
        var text = String(whole / divisor)
        if decimals > 0 {
            let fraction = String(whole % divisor)
            text += "." + String(repeating: "0", count: decimals - fraction.count) + fraction
        }
        return (value < 0 && whole != 0 ? "-" : "") + text
    }

    private static func digits(_ percentValue: Double) -> Int {
        let magnitude = abs(percentValue)
        return magnitude >= 0.95 ? 1 : magnitude >= 0.095 ? 2 : 3
    }

    private static func parse(_ text: String) -> Double { Double(text) ?? .nan }

    /// "a", "a and b", "a, b and c".
    package static func list(_ items: [String]) -> String {
        switch items.count {
        case 0: ""
        case 1: items[0]
        default: items.dropLast().joined(separator: ", ") + " and " + items[items.count - 1]
        }
    }
}
