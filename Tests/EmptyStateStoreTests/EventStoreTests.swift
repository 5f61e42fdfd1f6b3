import Dispatch
import EmptyStateSQLite
import Foundation
import Logging
import Synchronization
import Testing

@testable import EmptyStateStore

/// 2026-03-01T00:00:00Z in milliseconds since the epoch.
let march1: Int64 = 1_772_323_200_000
let hour: Int64 = 3_600_000
let day: Int64 = 86_400_000

/// An event with sensible defaults; only what a test is about needs to be named.
func analyticsEvent(
    _ id: String = UUID().uuidString.lowercased(),
    _ kind: AnalyticsEvent.Kind = .displayed,
    template: String = "connectionRefused",
    action: String? = nil,
    locale: String = "en",
    platform: String = "ios",
    appVersion: String = "1.0.0",
    at occurredAt: Int64 = march1,
    request: String = "req"
) -> AnalyticsEvent {
    AnalyticsEvent(
        id: id,
        kind: kind,
        templateID: template,
        revision: 1,
        etag: nil,
        locale: locale,
        platform: platform,
        appVersion: appVersion,
        actionID: action,
        sessionID: "session-1",
        occurredAt: occurredAt,
        receivedAt: occurredAt + 1000,
        clockSkewMilliseconds: 0,
        requestID: request
    )
}

func quarantinedEvent(_ reason: String, at receivedAt: Int64 = march1) -> QuarantinedEvent {
    QuarantinedEvent(payload: #"{"id":"x"}"#, reason: reason, receivedAt: receivedAt, requestID: "req")
}

/// Runs `body` on `count` threads at once and waits for all of them.
func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let group = DispatchGroup()
    for index in 0..<count {
        group.enter()
        Thread {
            body(index)
            group.leave()
        }.start()
    }
    group.wait()
}

@Suite("EventStore: appending")
struct EventAppendTests {
    @Test(
        "append says which events are new; duplicates within a batch and across batches are dropped",
        arguments: StoreBackend.all
    )
    func newAndDuplicate(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, _) = try makeEventStore(backend)
            store.start()
            defer { store.stop() }
            let a = analyticsEvent("aaaaaaaa-0000-4000-8000-000000000001")
            let b = analyticsEvent("aaaaaaaa-0000-4000-8000-000000000002", .actionTapped, action: "retry")
            var sameAsA = analyticsEvent("aaaaaaaa-0000-4000-8000-000000000001", .actionTapped, action: "back")
            sameAsA.locale = "fr"
            #expect(try store.append([a, b, sameAsA], quarantined: []) == [true, true, false])
            let c = analyticsEvent("aaaaaaaa-0000-4000-8000-000000000003")
            #expect(try store.append([b, c, a], quarantined: []) == [false, true, false])
            #expect(try store.counts() == (events: 3, quarantined: 0))
            // The first of the duplicates is kept, unchanged.
            let stored = try exported(store, limit: 10, count: 3).map(\.event)
            #expect(stored == [a, b, c])
        }
    }

    @Test("an empty append is a no-op that needs no writer", arguments: StoreBackend.all)
    func emptyAppend(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, _) = try makeEventStore(backend)
            #expect(try store.append([], quarantined: []) == [])
        }
    }

    @Test(
        "16 threads × 50 batches: every event committed and counted new exactly once, in shared commits",
        arguments: StoreBackend.all
    )
    func concurrentGroupCommit(_ backend: StoreBackend) async throws {
        try await offPool {
            let commits = Atomic<Int>(0)
            let (store, _) = try makeEventStore(backend, onCommit: { _ in commits.add(1, ordering: .relaxed) })
            store.start()
            defer { store.stop() }
            let threads = 16
            let batches = 50
            let newCount = Atomic<Int>(0)
            let duplicateCount = Atomic<Int>(0)
            let failures = Atomic<Int>(0)
            let wrongFlags = Atomic<Int>(0)
            onThreads(threads) { thread in
                for batch in 0..<batches {
                    // Three ids of this thread's own, and one every thread sends in its batch `batch`:
                    // exactly one of the 16 submissions of a shared id may see it as new.
                    let own = (0..<3).map { analyticsEvent("t\(thread)-b\(batch)-e\($0)") }
                    let shared = analyticsEvent("shared-b\(batch)")
                    do {
                        let flags = try store.append(own + [shared], quarantined: [quarantinedEvent("t\(thread)")])
                        if flags.count != 4 || !flags.prefix(3).allSatisfy({ $0 }) {
                            wrongFlags.add(1, ordering: .relaxed)
                        }
                        newCount.add(flags.filter { $0 }.count, ordering: .relaxed)
                        duplicateCount.add(flags.filter { !$0 }.count, ordering: .relaxed)
                    } catch {
                        failures.add(1, ordering: .relaxed)
                    }
                }
            }
            #expect(failures.load(ordering: .relaxed) == 0)
            #expect(wrongFlags.load(ordering: .relaxed) == 0)
            let submissions = threads * batches
            #expect(newCount.load(ordering: .relaxed) == submissions * 3 + batches)
            #expect(duplicateCount.load(ordering: .relaxed) == batches * (threads - 1))
            #expect(try store.counts() == (events: submissions * 3 + batches, quarantined: submissions))
            let ids = try exported(store, limit: 100_000, count: submissions * 3 + batches).map(\.event.id)
            #expect(Set(ids).count == ids.count)
            var expected = Set<String>()
            for batch in 0..<batches {
                expected.insert("shared-b\(batch)")
                for thread in 0..<threads {
                    for index in 0..<3 { expected.insert("t\(thread)-b\(batch)-e\(index)") }
                }
            }
            #expect(Set(ids) == expected)
            // Group commit: many submissions shared a transaction.
            let groups = commits.load(ordering: .relaxed)
            #expect(groups >= 1 && groups < submissions, "\(groups) commits for \(submissions) submissions")
        }
    }

    @Test("quarantined events are stored with their reason", arguments: StoreBackend.all)
    func quarantine(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, _) = try makeEventStore(backend)
            store.start()
            defer { store.stop() }
            #expect(
                try store.append([], quarantined: [quarantinedEvent("/id: bad"), quarantinedEvent("/type: bad")]) == []
            )
            #expect(try store.append([analyticsEvent()], quarantined: [quarantinedEvent("/locale: bad")]) == [true])
            #expect(try store.counts() == (events: 1, quarantined: 3))
        }
    }

    @Test("stop() commits every submission still queued; append after stop throws", arguments: StoreBackend.all)
    func stopDrains(_ backend: StoreBackend) async throws {
        try await offPool {
            // Every commit blocks in the metrics callback until released (each released one lets
            // the next go), so that the other submissions queue up behind the writers, however
            // many there are; stop() is called while they wait.
            let gate = DispatchSemaphore(value: 0)
            let released = Atomic<Bool>(false)
            let (store, _) = try makeEventStore(
                backend,
                onCommit: { _ in
                    if !released.load(ordering: .acquiring) {
                        gate.wait()
                        gate.signal()
                    }
                }
            )
            store.start()
            let queued = 8
            let submitted = Atomic<Int>(0)
            let succeeded = Atomic<Int>(0)
            let done = DispatchGroup()
            for index in 0...queued {
                done.enter()
                Thread {
                    submitted.add(1, ordering: .relaxed)
                    if (try? store.append([analyticsEvent("drain-\(index)")], quarantined: []))?.first == true {
                        succeeded.add(1, ordering: .relaxed)
                    }
                    done.leave()
                }.start()
                if index == 0 { Thread.sleep(forTimeInterval: 0.05) }  // the blocked first commit
            }
            while submitted.load(ordering: .relaxed) < queued + 1 { Thread.sleep(forTimeInterval: 0.005) }
            Thread.sleep(forTimeInterval: 0.2)
            let stopped = DispatchSemaphore(value: 0)
            Thread {
                store.stop()
                stopped.signal()
            }.start()
            Thread.sleep(forTimeInterval: 0.1)
            #expect(stopped.wait(timeout: .now()) == .timedOut, "stop() waits while submissions are queued")
            #expect(succeeded.load(ordering: .relaxed) == 0)
            released.store(true, ordering: .releasing)
            gate.signal()
            #expect(stopped.wait(timeout: .now() + 10) == .success, "stop() returned")
            #expect(done.wait(timeout: .now() + 10) == .success, "every append returned")
            #expect(succeeded.load(ordering: .relaxed) == queued + 1)
            #expect(try store.counts().events == queued + 1)
            #expect(throws: StoreError.self) { try store.append([analyticsEvent()], quarantined: []) }
            #expect(throws: StoreError.self) { try store.append([], quarantined: [quarantinedEvent("late")]) }
            #expect(try store.counts() == (events: queued + 1, quarantined: 0))
        }
    }

    @Test("append before start throws instead of waiting forever", arguments: StoreBackend.all)
    func appendBeforeStart(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, _) = try makeEventStore(backend)
            #expect(throws: StoreError.self) { try store.append([analyticsEvent()], quarantined: []) }
        }
    }

    @Test("reopening the file keeps every event, in order, and the duplicates it knows", arguments: StoreBackend.all)
    func reopen(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, handle) = try makeEventStore(backend)
            store.start()
            let events = (0..<5).map { analyticsEvent("reopen-\($0)", at: march1 + Int64($0)) }
            _ = try store.append(events, quarantined: [quarantinedEvent("kept")])
            store.stop()

            let reopened = try handle.reopenEvents(nil)
            reopened.start()
            defer { reopened.stop() }
            #expect(try reopened.counts() == (events: 5, quarantined: 1))
            #expect(try exported(reopened, limit: 10, count: 5).map(\.event) == events)
            #expect(try reopened.append([events[2], analyticsEvent("reopen-5")], quarantined: []) == [false, true])
            let cursors = try exported(reopened, limit: 10, count: 6).map(\.cursor)
            #expect(cursors == cursors.sorted() && Set(cursors).count == 6)
        }
    }
}

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
            let all = try store.summary(from: march1, to: march1 + 2 * day, templateID: nil, groupBy: nil)
            #expect(all.totals == row(nil, 4, 4, ["retry": 2, "back": 1, "clearFilters": 1]))
            #expect(all.groups.isEmpty)
            // `to` is exclusive, `from` inclusive.
            let wider = try store.summary(from: march1 - 1, to: march1 + 2 * day + 1, templateID: nil, groupBy: nil)
            #expect(wider.totals == row(nil, 5, 5, ["retry": 3, "back": 1, "clearFilters": 1]))
            let firstDay = try store.summary(from: march1, to: march1 + day, templateID: nil, groupBy: nil)
            #expect(firstDay.totals == row(nil, 3, 2, ["retry": 1, "back": 1]))
            let nothing = try store.summary(
                from: march1 + 10 * day,
                to: march1 + 11 * day,
                templateID: nil,
                groupBy: nil
            )
            #expect(nothing.totals == row(nil, 0, 0))
            let filtered = try store.summary(
                from: march1,
                to: march1 + 2 * day,
                templateID: "noSearchResults",
                groupBy: nil
            )
            #expect(filtered.totals == row(nil, 1, 1, ["clearFilters": 1]))
            let unknown = try store.summary(from: march1, to: march1 + 2 * day, templateID: "nope", groupBy: nil)
            #expect(unknown.totals == row(nil, 0, 0))
        }
    }

    @Test("each grouping, sorted by key, in the window", arguments: StoreBackend.all)
    func groupings(_ backend: StoreBackend) async throws {
        try await offPool {
            let store = try seeded(backend)
            defer { store.stop() }
            func groups(_ grouping: SummaryGrouping, template: String? = nil) throws -> [SummaryRow] {
                try store.summary(from: march1, to: march1 + 2 * day, templateID: template, groupBy: grouping).groups
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
            // A pruned id may come again (it is new to the store).
            #expect(try store.append([analyticsEvent("old", at: cutoff + 1)], quarantined: []) == [true])
        }
    }
}

@Suite("Timestamp")
struct TimestampTests {
    /// 2026-11-22T05:40:12Z.
    let base: Int64 = 1_795_326_012_000

    @Test(
        "valid RFC 3339 date-times",
        arguments: [
            ("2026-11-22T05:40:12Z", 0),
            ("2026-11-22T05:40:12.345Z", 345),
            ("2026-11-22t05:40:12.345z", 345),
            ("2026-11-22 05:40:12Z", 0),
            ("2026-11-22T05:40:12.3Z", 300),
            ("2026-11-22T05:40:12.34Z", 340),
            ("2026-11-22T05:40:12.345678Z", 345),
            ("2026-11-22T05:40:12.999999999Z", 999),
            ("2026-11-22T07:40:12.345+02:00", 345),
            ("2026-11-22T00:10:12-05:30", 0),
            ("2026-11-21T23:40:12-06:00", 0),
            ("2026-11-22T05:40:12+00:00", 0),
            ("2026-11-22T05:40:12-00:00", 0),
            ("2026-11-22T05:40:12.000+00:00", 0),
        ] as [(String, Int64)]
    )
    func valid(text: String, milliseconds: Int64) {
        #expect(Timestamp.parse(text) == base + milliseconds)
    }

    @Test("other dates: leap day, year end, before 1970, a leap second")
    func otherDates() {
        #expect(Timestamp.parse("2000-02-29T12:00:00Z") == 951_825_600_000)
        #expect(Timestamp.parse("2024-12-31T23:59:59Z") == 1_735_689_599_000)
        #expect(Timestamp.parse("2025-01-01T00:59:59+01:00") == 1_735_689_599_000)
        #expect(Timestamp.parse("1970-01-01T00:00:00Z") == 0)
        #expect(Timestamp.parse("1969-12-31T23:59:59Z") == -1000)
        #expect(Timestamp.parse("1969-12-31T23:59:59.999Z") == -1)
        #expect(Timestamp.parse("1900-01-01T00:00:00Z") == -2_208_988_800_000)
        // A leap second counts as the second before it.
        #expect(Timestamp.parse("2016-12-31T23:59:60Z") == Timestamp.parse("2016-12-31T23:59:59Z"))
    }

    /// Found by the events fuzz target: Foundation's formatter turns Julian before October 1582.
    @Test("format(milliseconds:) writes what parse reads, before the Gregorian reform too")
    func formatBefore1582() throws {
        let parsed = try #require(Timestamp.parse("1546-11-22T06:40:12+01:00"))
        #expect(Timestamp.format(milliseconds: parsed) == "1546-11-22T05:40:12.000Z")
        #expect(Timestamp.parse(Timestamp.format(milliseconds: parsed)) == parsed)
    }

    @Test(
        "invalid date-times",
        arguments: [
            "",
            "2026-11-22",
            "2026-11-22T05:40:12",  // no zone
            "2026-11-22T05:40:12.345",  // no zone
            "2026-13-22T05:40:12Z",  // month
            "2026-00-22T05:40:12Z",
            "2026-11-32T05:40:12Z",  // day
            "2026-11-00T05:40:12Z",
            "2026-11-22T24:00:00Z",  // hour
            "2026-11-22T05:60:12Z",  // minute
            "2026-11-22T05:40:62Z",  // second
            "2026-11-22T05:40:12ZZ",  // trailing junk
            "2026-11-22T05:40:12Z ",
            "2026-11-22T05:40:12+02:00x",
            "2026-11-22T05:40:12.Z",  // no fraction digits
            "2026-11-22T05:40:12,345Z",
            "2026-11-22T05:40:12+0200",  // offset without colon
            "2026-11-22T05:40:12+02",
            "2026-11-22T05:40:12+24:00",
            "2026-11-22T05:40:12+02:60",
            "2026-11-22X05:40:12Z",
            "2026/11/22T05:40:12Z",
            "26-11-22T05:40:12Z",
            "2026-1-22T05:40:12Z",
            "2026-11-22T5:40:12Z",
            "+2026-11-22T05:40:12Z",
            "2026-11-22T05:40:12.00000000000000000000Z",  // over 40 characters
            " 2026-11-22T05:40:12Z",
            "２０２６-11-22T05:40:12Z",
            "1795326012000",
        ]
    )
    func invalid(text: String) {
        #expect(Timestamp.parse(text) == nil)
    }

    @Test("days past the end of their month are refused; leap years have a February 29")
    func daysPastMonthEnd() {
        #expect(Timestamp.parse("2026-02-30T00:00:00Z") == nil)
        #expect(Timestamp.parse("2026-02-29T00:00:00Z") == nil)
        #expect(Timestamp.parse("2026-04-31T00:00:00Z") == nil)
        #expect(Timestamp.parse("2026-11-31T00:00:00Z") == nil)
        #expect(Timestamp.parse("1900-02-29T00:00:00Z") == nil)
        #expect(Timestamp.parse("2024-02-29T00:00:00Z") == 1_709_164_800_000)
        #expect(Timestamp.parse("2000-02-29T00:00:00Z") == 951_782_400_000)
        #expect(Timestamp.parse("2026-01-31T00:00:00Z") != nil)
        #expect(Timestamp.parse("2026-12-31T23:59:59Z") != nil)
    }

    @Test(
        "format(milliseconds:) and parse round-trip, before 1970 too",
        arguments: [
            0, 1, 999, 1000, -1, -999, -1000, -1001, 86_399_999, -86_400_000, 951_825_600_000, 1_795_326_012_345,
            -2_208_988_800_000, -2_208_988_799_001, 253_402_300_799_999,
        ] as [Int64]
    )
    func roundTrip(milliseconds: Int64) throws {
        let text = Timestamp.format(milliseconds: milliseconds)
        #expect(text.count == 24, "\(text)")
        #expect(Timestamp.parse(text) == milliseconds, "\(text)")
    }

    @Test("format(milliseconds:) writes UTC with three fraction digits")
    func format() {
        #expect(Timestamp.format(milliseconds: 1_795_326_012_345) == "2026-11-22T05:40:12.345Z")
        #expect(Timestamp.format(milliseconds: 0) == "1970-01-01T00:00:00.000Z")
        #expect(Timestamp.format(milliseconds: -1) == "1969-12-31T23:59:59.999Z")
        #expect(Timestamp.format(milliseconds: -1000) == "1969-12-31T23:59:59.000Z")
        #expect(Timestamp.format(milliseconds: -1001) == "1969-12-31T23:59:58.999Z")
        #expect(Timestamp.format(milliseconds: 5) == "1970-01-01T00:00:00.005Z")
    }

    @Test("now() is nowMilliseconds() in whole seconds")
    func now() throws {
        let before = Timestamp.nowMilliseconds()
        let text = Timestamp.now()
        let after = Timestamp.nowMilliseconds()
        let parsed = try #require(Timestamp.parse(text))
        #expect(parsed % 1000 == 0, "\(text)")
        #expect(parsed >= before / 1000 * 1000 && parsed <= after, "\(text)")
        #expect(text.count == 20 && text.hasSuffix("Z"), "\(text)")
    }

    @Test("now() is what Swift's default ISO 8601 date decoding accepts")
    func nowDecodes() throws {
        struct Stamped: Decodable { var at: Date }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        let text = Timestamp.now()
        let decoded = try decoder.decode(Stamped.self, from: Data(#"{"at":"\#(text)"}"#.utf8))
        #expect(Int64(decoded.at.timeIntervalSince1970) * 1000 == Timestamp.parse(text))
    }
}

@Suite("EventStore: displays of the update states per app version")
struct UpdateStateDisplaysTests {
    @Test(
        "counts displayed events (not taps) per template and app version, in the window only",
        arguments: StoreBackend.all
    )
    func counts(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, _) = try makeEventStore(backend)
            store.start()
            defer { store.stop() }
            _ = try store.append(
                [
                    analyticsEvent(template: "appUpdateRequired", appVersion: "5.1.2"),
                    analyticsEvent(template: "appUpdateRequired", appVersion: "5.1.2"),
                    analyticsEvent(template: "appUpdateRequired", appVersion: "4.9"),
                    analyticsEvent(
                        UUID().uuidString.lowercased(),
                        .actionTapped,
                        template: "appUpdateRequired",
                        action: "update",
                        appVersion: "4.9"
                    ),
                    analyticsEvent(template: "optionalUpdateAvailable", appVersion: "5.2.0"),
                    analyticsEvent(template: "connectionRefused", appVersion: "5.2.0"),
                    analyticsEvent(template: "appUpdateRequired", appVersion: "4.0", at: march1 + 3 * day),
                ],
                quarantined: []
            )
            let rows = try store.displaysByAppVersion(
                from: march1,
                to: march1 + day,
                templateIDs: ["appUpdateRequired", "optionalUpdateAvailable", "osUpdateRequired"]
            )
            #expect(
                rows.map { "\($0.templateID) \($0.appVersion) \($0.displays)" } == [
                    "appUpdateRequired 4.9 1", "appUpdateRequired 5.1.2 2", "optionalUpdateAvailable 5.2.0 1",
                ]
            )
            #expect(try store.displaysByAppVersion(from: march1, to: march1 + day, templateIDs: []).isEmpty)
        }
    }
}
