/// How long an experiment takes to reach its planned installs at the template's recent traffic.
///
/// The daily figure is the **median** of the recent days, not the mean: an empty state's traffic
/// follows outages (a `connectionRefused` screen is shown when the network fails), and one bad day
/// would make a mean promise a duration the ordinary days cannot keep. Only the covered share of
/// that traffic enters the experiment. The duration is also given in whole weeks (at least one):
/// behaviour differs between weekdays and weekends, and an experiment that stops mid-week weighs
/// some days twice.
package struct ExperimentDuration: Sendable, Equatable {
    /// What the daily counts are.
    package enum Basis: String, Sendable {
        /// Events displayed (the rollups): an install that sees the template on three days counts
        /// three times, so distinct installs grow more slowly and the duration is a lower bound.
        case displays
        /// Distinct installs a day: the duration is an estimate.
        case installs
    }

    package var basis: Basis
    /// The installs expected to enter per day: the median of the recent days times the coverage.
    package var dailyInstalls: Double
    /// Days to reach the installs, rounded up; `nil` when the recent days had no traffic.
    package var days: Int?
    /// `days` rounded up to whole weeks, at least 7.
    package var recommendedDays: Int?

    package init(basis: Basis, dailyInstalls: Double, days: Int?, recommendedDays: Int?) {
        self.basis = basis
        self.dailyInstalls = dailyInstalls
        self.days = days
        self.recommendedDays = recommendedDays
    }

    /// The duration to reach `installs` installs.
    /// - Parameters:
    ///   - recentDays: the counts of the recent whole days (the last 28 is a good window), oldest
    ///     first; negative counts are read as 0.
    ///   - coverage: the experiment's coverage, clamped to `[0, 1]`.
    package static func estimate(
        installs: Int,
        recentDays: [Int],
        coverage: Double,
        basis: Basis
    ) -> ExperimentDuration {
        let sorted = recentDays.map { Double(max($0, 0)) }.sorted()
        let median: Double =
            switch sorted.count {
            case 0: 0
            case let count where count % 2 == 1: sorted[count / 2]
            case let count: (sorted[count / 2 - 1] + sorted[count / 2]) / 2
            }
        let daily = median * (coverage.isNaN ? 0 : min(max(coverage, 0), 1))
        guard daily > 0 else {
            return ExperimentDuration(basis: basis, dailyInstalls: 0, days: nil, recommendedDays: nil)
        }
        let exact = Double(max(installs, 0)) / daily
        // A year and more is an answer too ("not with this traffic"); the cap only keeps the Int
        // conversion safe for absurd inputs.
        let days = Int(min(exact.rounded(.up), 1e9))
        let weeks = max(1, (days + 6) / 7)
        return ExperimentDuration(basis: basis, dailyInstalls: daily, days: days, recommendedDays: weeks * 7)
    }
}
