import Dispatch
import EmptyStateSQLite
import Foundation
import Logging
import Synchronization
import Testing

@testable import EmptyStateStore

@Suite("EventStore: reading and pruning")
struct EventReadTests {
    /// Two days of events of two templates, started.
    private func seeded(_ backend: StoreBackend) throws -> any EventStoring {
        let (store, _) = try makeEventStore(backend)
        store.start()
        let events = [
            // March 1
            analyticsEvent("d1", template: "connectionRefused", locale: "en", platform: "ios", at: march1 + hour),
            analyticsEvent(
                "d2",
                template: "connectionRefused",
                locale: "fr",
                platform: "android",
                at: march1 + 2 * hour
            ),
            analyticsEvent("d3", template: "noSearchResults", locale: "en", platform: "web", at: march1 + 3 * hour),
            analyticsEvent(
                "t1",
                .actionTapped,
                template: "connectionRefused",
                action: "retry",
                locale: "en",
                platform: "ios",
                at: march1 + 4 * hour
            ),
            analyticsEvent(
                "t2",
                .actionTapped,
                template: "connectionRefused",
                action: "back",
                locale: "fr",
                platform: "ios",
                appVersion: "2.0.0",
                at: march1 + 5 * hour
            ),
            // March 2
            analyticsEvent("d4", template: "connectionRefused", locale: "de", platform: "web", at: march1 + day),
            analyticsEvent(
                "t3",
                .actionTapped,
                template: "connectionRefused",
                action: "retry",
                locale: "de",
                platform: "web",
                appVersion: "2.0.0",
                at: march1 + day + hour
            ),
            analyticsEvent(
                "t4",
                .actionTapped,
                template: "noSearchResults",
                action: "clearFilters",
                locale: "en",
                platform: "web",
                at: march1 + day + 2 * hour
            ),
            // Outside the windows of the tests: Feb 28 and March 3.
            analyticsEvent("early", template: "connectionRefused", at: march1 - 1),
            analyticsEvent("late", .actionTapped, template: "connectionRefused", action: "retry", at: march1 + 2 * day),
        ]
        #expect(try store.append(events, quarantined: []) == Array(repeating: true, count: events.count))
        return store
    }

    private func row(_ key: String?, _ displays: Int, _ taps: Int, _ byAction: [String: Int] = [:]) -> SummaryRow {
        SummaryRow(key: key, displays: displays, taps: taps, tapsByAction: byAction)
    }

    @Test("totals count displays and taps per action in [from, to)", arguments: StoreBackend.all)
    func totals(_ backend: StoreBackend) async throws {
        try await offPool {
            let store = try seeded(backend)
            defer { store.stop() }
            let all = try store.countEvents(from: march1, to: march1 + 2 * day, templateID: nil, groupBy: nil)
            #expect(all.totals == row(nil, 4, 4, ["retry": 2, "back": 1, "clearFilters": 1]))
            #expect(all.groups.isEmpty)
            // `to` is exclusive, `from` inclusive.
            let wider = try store.countEvents(from: march1 - 1, to: march1 + 2 * day + 1, templateID: nil, groupBy: nil)
            #expect(wider.totals == row(nil, 5, 5, ["retry": 3, "back": 1, "clearFilters": 1]))
            let firstDay = try store.countEvents(from: march1, to: march1 + day, templateID: nil, groupBy: nil)
            #expect(firstDay.totals == row(nil, 3, 2, ["retry": 1, "back": 1]))
            let nothing = try store.countEvents(
                from: march1 + 10 * day,
                to: march1 + 11 * day,
                templateID: nil,
                groupBy: nil
            )
            #expect(nothing.totals == row(nil, 0, 0))
            let filtered = try store.countEvents(
                from: march1,
                to: march1 + 2 * day,
                templateID: "noSearchResults",
                groupBy: nil
            )
            #expect(filtered.totals == row(nil, 1, 1, ["clearFilters": 1]))
            let unknown = try store.countEvents(from: march1, to: march1 + 2 * day, templateID: "nope", groupBy: nil)
            #expect(unknown.totals == row(nil, 0, 0))
        }
    }

    @Test("each grouping, sorted by key, in the window", arguments: StoreBackend.all)
    func groupings(_ backend: StoreBackend) async throws {
        try await offPool {
            let store = try seeded(backend)
            defer { store.stop() }
            func groups(_ grouping: SummaryGrouping, template: String? = nil) throws -> [SummaryRow] {
                try store.countEvents(from: march1, to: march1 + 2 * day, templateID: template, groupBy: grouping)
                    .groups
            }
            #expect(
                try groups(.template) == [
                    row("connectionRefused", 3, 3, ["retry": 2, "back": 1]),
                    row("noSearchResults", 1, 1, ["clearFilters": 1]),
                ]
            )
            // Displays have no action: they form the group without a key.
            #expect(
                try groups(.action) == [
                    row(nil, 4, 0),
                    row("back", 0, 1, ["back": 1]),
                    row("clearFilters", 0, 1, ["clearFilters": 1]),
                    row("retry", 0, 2, ["retry": 2]),
                ]
            )
            #expect(
                try groups(.locale) == [
                    row("de", 1, 1, ["retry": 1]),
                    row("en", 2, 2, ["retry": 1, "clearFilters": 1]),
                    row("fr", 1, 1, ["back": 1]),
                ]
            )
            #expect(
                try groups(.platform) == [
                    row("android", 1, 0),
                    row("ios", 1, 2, ["retry": 1, "back": 1]),
                    row("web", 2, 2, ["retry": 1, "clearFilters": 1]),
                ]
            )
            #expect(
                try groups(.appVersion) == [
                    row("1.0.0", 4, 2, ["retry": 1, "clearFilters": 1]),
                    row("2.0.0", 0, 2, ["retry": 1, "back": 1]),
                ]
            )
            #expect(
                try groups(.day) == [
                    row("2026-03-01", 3, 2, ["retry": 1, "back": 1]),
                    row("2026-03-02", 1, 2, ["retry": 1, "clearFilters": 1]),
                ]
            )
            #expect(
                try groups(.day, template: "connectionRefused") == [
                    row("2026-03-01", 2, 2, ["retry": 1, "back": 1]),
                    row("2026-03-02", 1, 1, ["retry": 1]),
                ]
            )
            #expect(try groups(.locale, template: "noSearchResults") == [row("en", 1, 1, ["clearFilters": 1])])
        }
    }

    @Test("export: oldest first, paged by cursor, an empty page past the end", arguments: StoreBackend.all)
    func exportPaging(_ backend: StoreBackend) async throws {
        try await offPool {
            let store = try seeded(backend)
            defer { store.stop() }
            let expected = ["d1", "d2", "d3", "t1", "t2", "d4", "t3", "t4", "early", "late"]
            var seen: [String] = []
            var cursors: [Int64] = []
            var after: Int64 = 0
            var pages = 0
            // PostgreSQL exports only rows of transactions older than every one still running
            // (other tests' included): a page may come back empty for a moment before the end.
            let deadline = ContinuousClock.now + .seconds(10)
            while seen.count < expected.count, ContinuousClock.now < deadline {
                let page = try store.events(after: after, limit: 3)
                #expect(page.count <= 3)
                guard let last = page.last else {
                    Thread.sleep(forTimeInterval: 0.01)
                    continue
                }
                pages += 1
                seen += page.map(\.event.id)
                cursors += page.map(\.cursor)
                after = last.cursor
            }
            #expect(seen == expected)
            #expect(pages == 4)
            #expect(cursors == cursors.sorted() && Set(cursors).count == cursors.count && cursors.first! > 0)
            #expect(try store.events(after: after, limit: 3).isEmpty)
            #expect(try store.events(after: cursors[4], limit: 100).map(\.event.id) == Array(expected.dropFirst(5)))
            // Every field comes back as stored.
            let t2 = try #require(try store.events(after: cursors[3], limit: 1).first?.event)
            #expect(
                t2
                    == analyticsEvent(
                        "t2",
                        .actionTapped,
                        template: "connectionRefused",
                        action: "back",
                        locale: "fr",
                        platform: "ios",
                        appVersion: "2.0.0",
                        at: march1 + 5 * hour
                    )
            )
        }
    }

    @Test(
        "each field is stored in its own column: distinct values, empty and non-ASCII texts, absent ones",
        arguments: StoreBackend.all
    )
    func everyFieldInItsColumn(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, _) = try makeEventStore(backend)
            store.start()
            defer { store.stop() }
            // The group commit binds each field by position (SQLite: `RawBindings`; PostgreSQL:
            // the prepared statement's arrays): values no two fields share show a shifted one.
            let full = AnalyticsEvent(
                id: "0b1c2d3e-0000-4000-8000-00000000000a",
                kind: .actionTapped,
                templateID: "connectionRefused",
                revision: 7,
                etag: "\"r7-ÉtÄg\"",
                locale: "ja",
                platform: "android",
                appVersion: "3.2.1",
                actionID: "retry",
                sessionID: "",
                occurredAt: 1_700_000_000_123,
                receivedAt: 1_700_000_000_456,
                clockSkewMilliseconds: -42,
                requestID: "req-日本語-🙂",
                variant: "exp-1/b",
                installID: "install-Ω"
            )
            var bare = full
            bare.id = "0b1c2d3e-0000-4000-8000-00000000000b"
            bare.kind = .displayed
            bare.revision = nil
            bare.etag = nil
            bare.actionID = nil
            bare.sessionID = nil
            bare.variant = nil
            bare.installID = nil
            #expect(try store.append([full, bare], quarantined: []) == [true, true])
            #expect(try exported(store, limit: 2, count: 2).map(\.event) == [full, bare])
        }
    }

    @Test("a stored event with every optional field empty comes back the same", arguments: StoreBackend.all)
    func optionalFields(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, _) = try makeEventStore(backend)
            store.start()
            defer { store.stop() }
            var event = analyticsEvent("bare")
            event.revision = nil
            event.etag = "\"abc\""
            event.sessionID = nil
            event.clockSkewMilliseconds = -3_600_000
            #expect(try store.append([event], quarantined: []) == [true])
            #expect(try exported(store, limit: 1, count: 1).first?.event == event)
        }
    }

    @Test(
        "prune deletes only events that happened, and quarantined ones received, before the cutoff",
        arguments: StoreBackend.all
    )
    func prune(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, _) = try makeEventStore(backend)
            store.start()
            defer { store.stop() }
            let cutoff = march1
            _ = try store.append(
                [
                    analyticsEvent("old", at: cutoff - day), analyticsEvent("just-old", at: cutoff - 1),
                    analyticsEvent("at-cutoff", at: cutoff), analyticsEvent("new", at: cutoff + day),
                ],
                quarantined: [quarantinedEvent("old", at: cutoff - 1), quarantinedEvent("kept", at: cutoff)]
            )
            #expect(try store.prune(before: cutoff) == 3)
            #expect(try exported(store, limit: 10, count: 2).map(\.event.id) == ["at-cutoff", "new"])
            #expect(try store.counts() == (events: 2, quarantined: 1))
            #expect(try store.prune(before: cutoff) == 0)
            // A pruned id may come again (it is new to the store); a kept one is still a duplicate.
            #expect(try store.append([analyticsEvent("old", at: cutoff + 1)], quarantined: []) == [true])
            #expect(try store.append([analyticsEvent("new", at: cutoff + 2)], quarantined: []) == [false])
        }
    }

    @Test(
        "PostgreSQL version 7: event ids of days whose partitions are gone are deleted, the index by day dropped",
        arguments: StoreBackend.all.filter { $0 == .postgres }
    )
    func eventIDsByPartition(_ backend: StoreBackend) async throws {
        try await offPool {
            let today = march1 / day
            // An id of a day before the only partition (its partition was dropped and the run
            // stopped before its ids went), one of the partition's day, one of a day after it.
            let (ids, dayIndex) = try eventIDsAfterVersion7(
                keptDay: today,
                ids: [("orphan", today - 3), ("kept", today), ("later", today + 1)]
            )
            #expect(ids == ["kept", "later"])
            #expect(!dayIndex)
        }
    }
}
