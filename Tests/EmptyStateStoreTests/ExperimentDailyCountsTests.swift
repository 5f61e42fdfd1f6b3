import EmptyStateCore
import Testing

@testable import EmptyStateStore

/// The results over time read from the exposures: installs by the day first seen, conversions by
/// the day of the first tap that counts, only inside the running window, and the rest excluded by
/// reason (issue 35's clean windows), on both stores.
@Suite("EventStore: experiment counts by day, inside the running window")
struct ExperimentDailyCountsTests {
    private func exposure(
        _ id: String,
        _ key: String,
        install: String,
        tap action: String? = nil,
        at occurredAt: Int64
    ) -> AnalyticsEvent {
        var event = analyticsEvent(id, action == nil ? .displayed : .actionTapped, action: action, at: occurredAt)
        event.variant = "copy/" + key
        event.installID = install
        return event
    }

    @Test("days, conversions per metric, the window and every exclusion reason", arguments: StoreBackend.all)
    func windowAndExclusions(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, _) = try makeEventStore(backend)
            store.start()
            defer { store.stop() }
            let start = march1 + 2 * hour  // the experiment ran from day 0, 02:00 …
            let stop = march1 + 2 * day + 12 * hour  // … to day 2, 12:00
            _ = try store.append(
                [
                    // Day 0: two control installs, one converts on retry on day 1.
                    exposure("a1", "control", install: "c1", at: start + hour),
                    exposure("a2", "control", install: "c2", at: start + 2 * hour),
                    exposure("a3", "control", install: "c1", tap: "retry", at: march1 + day + hour),
                    // Day 1: one b install that taps back (anyTap converts, retry does not), and
                    // one that taps retry on day 2, after the stop (not counted).
                    exposure("b1", "b", install: "b1", at: march1 + day),
                    exposure("b2", "b", install: "b1", tap: "back", at: march1 + day + hour),
                    exposure("b3", "b", install: "b2", at: march1 + day + 2 * hour),
                    exposure("b4", "b", install: "b2", tap: "retry", at: stop + hour),
                    // Day 2 before the stop: b converts on retry the same day.
                    exposure("b5", "b", install: "b3", at: march1 + 2 * day),
                    exposure("b6", "b", install: "b3", tap: "retry", at: march1 + 2 * day + hour),
                    // Excluded: seen while a draft (its later events do not bring it in) …
                    exposure("x1", "b", install: "early", at: start - hour),
                    exposure("x2", "b", install: "early", tap: "retry", at: start + hour),
                    // … first seen after the stop …
                    exposure("x3", "control", install: "late", at: stop + 1),
                    // … in two variants …
                    exposure("x4", "control", install: "both", at: start + hour),
                    exposure("x5", "b", install: "both", at: start + 2 * hour),
                    // … and a variant the assignment contradicts (stored as ~b by the ingest).
                    exposure("x6", "~b", install: "forged", tap: "retry", at: start + hour),
                    // … a QA device forced to b by an override (stored as =b), converting …
                    exposure("x7", "=b", install: "qa-device", at: start + hour),
                    exposure("x8", "=b", install: "qa-device", tap: "retry", at: start + 2 * hour),
                    // … and an install outside the target (stored as !control), twice.
                    exposure("x9", "!control", install: "outsider", at: start + hour),
                    exposure("x10", "!control", install: "outsider", tap: "retry", at: start + 3 * hour),
                ],
                quarantined: []
            )
            let day0 = march1 / day
            let retry = try store.experimentDailyCounts(
                experimentID: "copy",
                metric: .tap(action: "retry"),
                from: start,
                to: stop
            )
            #expect(
                retry.days == [
                    .init(variant: "control", day: day0, installs: 2, conversions: 0),
                    .init(variant: "b", day: day0 + 1, installs: 2, conversions: 0),
                    .init(variant: "control", day: day0 + 1, installs: 0, conversions: 1),
                    .init(variant: "b", day: day0 + 2, installs: 1, conversions: 1),
                ]
            )
            #expect(
                retry.excluded
                    == .init(crossed: 1, override: 1, outsideTarget: 1, notAssigned: 1, beforeStart: 1, afterStop: 1)
            )
            #expect(retry.excluded.total == 6)

            let anyTap = try store.experimentDailyCounts(experimentID: "copy", metric: .anyTap, from: start, to: stop)
            #expect(
                anyTap.days == [
                    .init(variant: "control", day: day0, installs: 2, conversions: 0),
                    .init(variant: "b", day: day0 + 1, installs: 2, conversions: 1),
                    .init(variant: "control", day: day0 + 1, installs: 0, conversions: 1),
                    .init(variant: "b", day: day0 + 2, installs: 1, conversions: 1),
                ]
            )
            // Still running (the window to now): the late install counts, b2's retry converts.
            let running = try store.experimentDailyCounts(
                experimentID: "copy",
                metric: .tap(action: "retry"),
                from: start,
                to: .max
            )
            #expect(
                running.excluded
                    == .init(crossed: 1, override: 1, outsideTarget: 1, notAssigned: 1, beforeStart: 1, afterStop: 0)
            )
            #expect(running.days.map(\.installs).reduce(0, +) == 6)
            #expect(running.days.map(\.conversions).reduce(0, +) == 3)
            // Another experiment: nothing.
            let other = try store.experimentDailyCounts(experimentID: "none", metric: .anyTap, from: 0, to: .max)
            #expect(other == ExperimentDailyCounts(days: [], excluded: .init()))
        }
    }
}
