import EmptyStatePostgres
import EmptyStateStore
import Foundation
import Testing

/// How PostgreSQL group commits claim event ids: with a plain insert while no event is a
/// duplicate, and skipping stored ids for a second after one was (`ClaimingCommit`,
/// `SkippingCommit`, `DuplicateWatch`). The results are the same either way; what is checked here
/// is that a claim failing on a stored id leaves nothing behind, and which form runs when.
@Suite(
    "PostgreSQL: claiming event ids",
    .enabled(if: StoreBackend.testDatabaseURL != nil, "needs EMPTY_STATE_TEST_DATABASE_URL")
)
struct PostgresClaimTests {
    @Test(
        "a group holding a stored id is committed again skipping it, with nothing of the failed claim left; claiming resumes after a quiet second"
    )
    func duplicateFallsBack() async throws {
        try await offPool {
            // The watch reads a clock the test moves: which form a commit takes depends on the
            // time since the last failed claim, and that time is now what the test says.
            let clock = ManualNanoseconds()
            let store = try makePostgresEventStore(duplicates: DuplicateWatch(now: { clock.now }))
            store.start()
            defer { store.stop() }
            let (a, b, c, d, e) = (
                analyticsEvent(), analyticsEvent(), analyticsEvent(), analyticsEvent(), analyticsEvent()
            )
            #expect(try store.append([a], quarantined: []) == [true])
            #expect(store.duplicates.lastSeen == 0, "a group of new ids claims them")

            // The claim fails on a; the group is committed again, skipping it.
            #expect(try store.append([b, a, c], quarantined: [quarantinedEvent("bad")]) == [true, false, true])
            let failed = store.duplicates.lastSeen
            #expect(failed == clock.now, "the failed claim is noted at its time")
            // Within the second, groups skip stored ids from the start: a claim that failed would
            // note the later time.
            clock.advance(by: DuplicateWatch.quiet / 2)
            #expect(try store.append([d, c, d], quarantined: []) == [true, false, false])
            #expect(store.duplicates.lastSeen == failed)
            #expect(try store.counts() == (events: 4, quarantined: 1))

            clock.advance(by: DuplicateWatch.quiet / 2)
            #expect(!store.duplicates.expectsNone, "a second after the failure is still within it")
            clock.advance(by: 1)
            #expect(store.duplicates.expectsNone, "a quiet second later, groups claim again")
            let settled = store.duplicates.lastSeen
            #expect(try store.append([e], quarantined: []) == [true])
            #expect(store.duplicates.lastSeen == settled, "new ids claimed without a failure")
            clock.advance(by: 1)
            let beforeStored = clock.now
            #expect(try store.append([e, a], quarantined: []) == [false, false])
            #expect(store.duplicates.lastSeen == beforeStored, "a claim of stored ids fails, and is noted")

            // Every event counted once: the failed claims added no rollup delta either.
            #expect(try store.counts() == (events: 5, quarantined: 1))
            _ = try store.foldRollups()
            let (from, to) = (march1 - day, march1 + day)
            let summary = try AnalyticsSummaries(store: store).summary(
                from: from,
                to: to,
                templateID: nil,
                groupBy: nil
            )
            let counted = try store.countEvents(from: from, to: to, templateID: nil, groupBy: nil)
            #expect(summary.totals == counted.totals)
            #expect(counted.totals.displays == 5)
        }
    }
}
