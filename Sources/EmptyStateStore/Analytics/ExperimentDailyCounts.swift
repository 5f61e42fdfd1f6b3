import EmptyStateCore

/// An experiment's installs and conversions day by day, inside its running window, and the
/// installs left out of its results with the reason: what the results over time are made of
/// (`EventStoring.experimentDailyCounts`).
///
/// **What counts.** An install counts when it was seen in one variant only, that variant is the
/// one the service assigns it (`EventIngest` stores a claimed variant the assignment contradicts
/// as `~<key>`), and it was first seen inside the window (from `startedAt` to `stoppedAt`, or
/// now). It counts on the day it was first seen, and converts on the day of its first tap that
/// counts for the metric, if that tap is inside the window too. Days are UTC days.
///
/// **What is excluded**, each install once, in this order: seen in two variants (`crossed`),
/// forced to its variant by a QA override (`override`, stored as `=<key>`), outside the
/// experiment's target (`outsideTarget`, stored as `!<key>`), reported in a variant it is not
/// assigned (`notAssigned`), first seen before the start
/// (`beforeStart`: while a draft, or by a clock set back), first seen after the stop
/// (`afterStop`: a late app, or a cache).
package struct ExperimentDailyCounts: Sendable, Equatable {
    /// One variant's new installs and new conversions of one UTC day.
    package struct Day: Sendable, Equatable {
        package var variant: String
        /// Days since 1970-01-01 (UTC): `milliseconds / 86,400,000`.
        package var day: Int64
        package var installs: Int
        package var conversions: Int

        package init(variant: String, day: Int64, installs: Int, conversions: Int) {
            self.variant = variant
            self.day = day
            self.installs = installs
            self.conversions = conversions
        }
    }

    /// Installs left out of the results, by reason.
    package struct Exclusions: Sendable, Equatable {
        package var crossed: Int
        package var override: Int
        package var outsideTarget: Int
        package var notAssigned: Int
        package var beforeStart: Int
        package var afterStop: Int

        package init(
            crossed: Int = 0,
            override: Int = 0,
            outsideTarget: Int = 0,
            notAssigned: Int = 0,
            beforeStart: Int = 0,
            afterStop: Int = 0
        ) {
            self.crossed = crossed
            self.override = override
            self.outsideTarget = outsideTarget
            self.notAssigned = notAssigned
            self.beforeStart = beforeStart
            self.afterStop = afterStop
        }

        package var total: Int { crossed + override + outsideTarget + notAssigned + beforeStart + afterStop }
    }

    /// Sorted by day, then variant; a day without news for a variant has no entry.
    package var days: [Day]
    package var excluded: Exclusions

    package init(days: [Day], excluded: Exclusions) {
        self.days = days.sorted { ($0.day, $0.variant) < ($1.day, $1.variant) }
        self.excluded = excluded
    }

    /// Merges rows of new installs and rows of new conversions into days.
    package init(
        installs: [(variant: String, day: Int64, count: Int)],
        conversions: [(variant: String, day: Int64, count: Int)],
        excluded: Exclusions
    ) {
        var merged: [String: Day] = [:]
        for row in installs {
            merged[
                "\(row.day)/\(row.variant)",
                default: Day(variant: row.variant, day: row.day, installs: 0, conversions: 0)
            ]
            .installs += row.count
        }
        for row in conversions {
            merged[
                "\(row.day)/\(row.variant)",
                default: Day(variant: row.variant, day: row.day, installs: 0, conversions: 0)
            ]
            .conversions += row.count
        }
        self.init(days: Array(merged.values), excluded: excluded)
    }

    /// The milliseconds of a UTC day.
    package static let dayMilliseconds: Int64 = 86_400_000

    /// The prefix of a variant stored for an install that claimed a variant it is not assigned.
    package static let notAssignedPrefix = "~"
    /// The prefix of a variant stored for an install a QA override forced into it.
    package static let overridePrefix = "="
    /// The prefix of a variant stored for an install outside the experiment's target.
    package static let outsideTargetPrefix = "!"
}
