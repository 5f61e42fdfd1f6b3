import Dispatch
import EmptyStateSQLite
import Foundation
import GRDB
import Logging
import Synchronization
import Testing

@testable import EmptyStateStore

/// The rollups hold what was stored: for any set of events — duplicates within a group and
/// across groups, late events, times on bucket boundaries — every summary read from the rollups
/// equals the same count made from the events themselves, on both backends; and a database of
/// the release before rollups gets them built by the backfill, resumably.
@Suite("Rollups: what is counted is what was stored")
struct RollupTests {
    /// A small deterministic generator (xorshift64*): the same events on every run.
    struct Generator {
        var state: UInt64

        mutating func next() -> UInt64 {
            state ^= state >> 12
            state ^= state << 25
            state ^= state >> 27
            return state &* 2_685_821_657_736_338_717
        }

        mutating func below(_ bound: Int) -> Int { Int(next() % UInt64(bound)) }

        mutating func pick<T>(_ values: [T]) -> T { values[below(values.count)] }
    }

    static let base = march1  // a midnight (UTC)
    static let templates = ["connectionRefused", "noSearchResults", "appUpdateRequired"]

    /// `count` events over three days from `base`: a tenth of them exactly on an hour or a day
    /// boundary or a millisecond before one, a tenth resending an earlier id (with another time,
    /// as a resend after a clock correction has), in batches of random sizes.
    static func events(count: Int, seed: UInt64) -> [[AnalyticsEvent]] {
        var random = Generator(state: seed)
        var batches: [[AnalyticsEvent]] = []
        var batch: [AnalyticsEvent] = []
        var ids: [String] = []
        for index in 0..<count {
            var at = base + Int64(random.below(3 * 86_400_000))
            switch random.below(10) {
            case 0: at = base + Int64(random.below(72)) * hour
            case 1: at = base + Int64(random.below(72)) * hour - 1
            default: break
            }
            let id = !ids.isEmpty && random.below(10) == 0 ? random.pick(ids) : "e\(seed)-\(index)"
            ids.append(id)
            let template = random.pick(templates)
            let tapped = random.below(4) == 0
            var event = analyticsEvent(
                id,
                tapped ? .actionTapped : .displayed,
                template: template,
                action: tapped ? random.pick(["retry", "back", "update"]) : nil,
                locale: random.pick(["en", "fr", "ar"]),
                platform: random.pick(["ios", "android", "web"]),
                appVersion: random.pick(["5.0.0", "5.1.2", "4.9"]),
                at: at
            )
            event.revision = random.pick([1, 2, 10, nil])  // 10: after 2 in number order, before it as text
            event.variant = random.pick([nil, "A", "B"])
            batch.append(event)
            if batch.count >= 1 + random.below(60) {
                batches.append(batch)
                batch = []
            }
        }
        if !batch.isEmpty { batches.append(batch) }
        return batches
    }

    /// Every summary of `windows` (each grouping, all templates and one) from the rollups equals
    /// the count made from the events.
    static func expectSummariesMatch(_ store: any EventStoring, windows: [(Int64, Int64)]) throws {
        let summaries = AnalyticsSummaries(store: store)
        for (from, to) in windows {
            for template in [nil, templates[0]] {
                for grouping in [nil] + SummaryGrouping.allCases.map(Optional.some) {
                    let fromRollups = try summaries.summary(from: from, to: to, templateID: template, groupBy: grouping)
                    let window = fromRollups.window
                    #expect(window.from == from && window.to == to, "the windows here are whole hours")
                    let fromEvents = try store.countEvents(
                        from: from,
                        to: to,
                        templateID: template,
                        groupBy: grouping
                    )
                    #expect(
                        fromRollups.totals == fromEvents.totals && fromRollups.groups == fromEvents.groups,
                        "\(from)..<\(to) template \(template ?? "all") by \(grouping?.rawValue ?? "nothing")"
                    )
                }
            }
            let versions = try summaries.displaysByAppVersion(from: from, to: to, templateIDs: templates)
            let expected = try templates.sorted().flatMap { template in
                try store.countEvents(from: from, to: to, templateID: template, groupBy: .appVersion).groups
                    .filter { $0.displays > 0 }.map { "\(template) \($0.key ?? "") \($0.displays)" }
            }
            #expect(versions.map { "\($0.templateID) \($0.appVersion) \($0.displays)" } == expected)
        }
    }

    /// Whole-hour windows: everything, one hour, across a midnight, a day and a bit, empty.
    static let windows: [(Int64, Int64)] = [
        (base - day, base + 4 * day),
        (base + 5 * hour, base + 6 * hour),
        (base + 20 * hour, base + 30 * hour),
        (base + 3 * hour, base + day + 7 * hour),
        (base + day, base + 2 * day),
        (base + 10 * day, base + 11 * day),
    ]

    @Test(
        "summaries from the rollups equal counts of the stored events, duplicates and boundaries included",
        arguments: StoreBackend.all
    )
    func randomized(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, _) = try makeEventStore(backend)
            store.start()
            defer { store.stop() }
            var stored = 0
            let batches = Self.events(count: 3000, seed: 7)
            for (index, batch) in batches.enumerated() {
                stored += try store.append(batch, quarantined: []).filter { $0 }.count
                // Half the counts folded into the cubes, half still deltas: reads add both.
                if index == batches.count / 2 { #expect(try store.foldRollups(batch: 7) > 7, "in batches of 7 rows") }
            }
            #expect(stored < 3000, "some events were duplicates")
            #expect(try store.counts().events == stored)
            let all = try AnalyticsSummaries(store: store).summary(
                from: Self.base - day,
                to: Self.base + 4 * day,
                templateID: nil,
                groupBy: nil
            )
            #expect(all.totals.displays + all.totals.taps == stored, "each stored event counted once")
            try Self.expectSummariesMatch(store, windows: Self.windows)
            // Everything folded: the same answers, and nothing left to fold.
            #expect(try store.foldRollups() > 0)
            #expect(try store.foldRollups() == 0)
            try Self.expectSummariesMatch(store, windows: Self.windows)
        }
    }

    @Test(
        "concurrent group commits and folds: every stored event counted once, no commit failed",
        arguments: StoreBackend.all
    )
    func concurrentCommitsAndFolds(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, _) = try makeEventStore(backend)
            store.start()
            defer { store.stop() }
            // Four senders (PostgreSQL: four writers appending deltas of the same keys in
            // parallel; SQLite: one writer adding to a row per key) while folds run a few
            // milliseconds apart (back to back, they would keep Swift's cooperative pool, which
            // the PostgreSQL backend's calls run on, from other suites running meanwhile).
            let senders = 4
            let batches = Self.events(count: 2000, seed: 11)
            let stored = Mutex(0)
            let failures = Mutex<[String]>([])
            let sending = Atomic<Int>(senders)
            let folded = DispatchSemaphore(value: 0)
            let folder = Thread {
                defer { folded.signal() }
                while sending.load(ordering: .acquiring) > 0 {
                    do { try store.foldRollups(batch: 50) } catch {
                        failures.withLock { $0.append("fold: \(error)") }
                    }
                    Thread.sleep(forTimeInterval: 0.003)  // the folds' spacing (see above), not a wait
                }
            }
            folder.start()
            DispatchQueue.concurrentPerform(iterations: senders) { sender in
                for index in stride(from: sender, to: batches.count, by: senders) {
                    do {
                        let new = try store.append(batches[index], quarantined: []).filter { $0 }.count
                        stored.withLock { $0 += new }
                    } catch {
                        failures.withLock { $0.append("append: \(error)") }
                    }
                }
                sending.subtract(1, ordering: .releasing)
            }
            try waitOrFail(folded, "folded")
            #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 }.prefix(3))")
            let total = stored.withLock { $0 }
            #expect(try store.counts().events == total)
            try Self.expectSummariesMatch(store, windows: Self.windows)
            _ = try store.foldRollups()
            #expect(try store.foldRollups() == 0)
            try Self.expectSummariesMatch(store, windows: Self.windows)
        }
    }

    @Test("the same batch sent again, to the same store, counts nothing more", arguments: StoreBackend.all)
    func resent(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, _) = try makeEventStore(backend)
            store.start()
            defer { store.stop() }
            let batches = Self.events(count: 400, seed: 11)
            for batch in batches { _ = try store.append(batch, quarantined: []) }
            let summaries = AnalyticsSummaries(store: store)
            let before = try summaries.summary(from: Self.base, to: Self.base + 3 * day, templateID: nil, groupBy: .day)
            for batch in batches { #expect(try store.append(batch, quarantined: []).allSatisfy { !$0 }) }
            let after = try summaries.summary(from: Self.base, to: Self.base + 3 * day, templateID: nil, groupBy: .day)
            #expect(before == after)
        }
    }

    @Test(
        "a database of the release before rollups: the backfill counts its events in batches, resumably",
        arguments: StoreBackend.all
    )
    func backfill(_ backend: StoreBackend) async throws {
        try await offPool {
            let legacy = Self.events(count: 1200, seed: 3).joined().reduce(into: [AnalyticsEvent]()) { events, event in
                // The earlier release stored each id once.
                if !events.contains(where: { $0.id == event.id }) { events.append(event) }
            }
            let (open, _) = try makeLegacyEventStore(backend, events: legacy)
            var store = try open()
            store.start()
            #expect(try store.backfillProgress() == RollupBackfill(counted: 0, total: legacy.count))
            let summaries = { AnalyticsSummaries(store: store) }
            let empty = try summaries().summary(from: Self.base, to: Self.base + 3 * day, templateID: nil, groupBy: nil)
            #expect(empty.totals.displays + empty.totals.taps == 0, "nothing is in the rollups before the backfill")

            // Two batches, then a restart: it goes on where it stopped.
            #expect(try store.backfillRollups(limit: 250) == RollupBackfill(counted: 250, total: legacy.count))
            #expect(try store.backfillRollups(limit: 250).counted == 500)
            store.stop()
            store = try open()
            store.start()
            defer { store.stop() }
            #expect(try store.backfillProgress().counted == 500)
            // New events meanwhile are counted by their own commit, never by the backfill.
            let fresh = Self.events(count: 300, seed: 5).joined().map { event -> AnalyticsEvent in
                var event = event
                event.id = "new-" + event.id
                return event
            }
            _ = try store.append(Array(fresh), quarantined: [])
            // An event of the earlier release sent again is a duplicate.
            #expect(try store.append([legacy[0]], quarantined: []) == [false])
            while !(try store.backfillRollups(limit: 300).isComplete) {}
            #expect(try store.backfillProgress() == RollupBackfill(counted: legacy.count, total: legacy.count))
            try Self.expectSummariesMatch(store, windows: Self.windows)
        }
    }

    @Test("retention removes the hour rollups before the cutoff and keeps the day ones", arguments: StoreBackend.all)
    func retention(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, _) = try makeEventStore(backend)
            store.start()
            defer { store.stop() }
            let now = Timestamp.nowMilliseconds()
            let today = RollupGrain.day.bucket(of: now) * day
            let events = (0..<6).map { analyticsEvent(at: today - Int64($0) * day + 3 * hour) }
            #expect(try store.append(events, quarantined: []) == Array(repeating: true, count: 6))
            // Events before the start of two days ago go: those of days 3, 4 and 5 back.
            let cutoff = today - 2 * day
            #expect(try store.prune(before: cutoff) >= 0)
            #expect(try store.counts().events == 3)
            let hours = try store.rollupRows(
                RollupQuery(cube: .templates, grain: .hour, buckets: (today / hour - 7 * 24)..<(today / hour + 24))
            )
            #expect(hours.map(\.count).reduce(0, +) == 3, "hour rollups before the cutoff are gone")
            let days = try store.rollupRows(
                RollupQuery(cube: .templates, grain: .day, buckets: (today / day - 7)..<(today / day + 1))
            )
            #expect(days.map(\.count).reduce(0, +) == 6, "day rollups are kept longer")
            let summary = try AnalyticsSummaries(store: store).summary(
                from: today - 5 * day,
                to: today + day,
                templateID: nil,
                groupBy: nil
            )
            #expect(summary.totals.displays == 6, "whole days before the cutoff still count from the day rollups")
        }
    }

    @Test(
        "a database of the first release with rollups: its catalogue-wide counts move to the facet cubes",
        arguments: StoreBackend.all
    )
    func facetCubesFromOverall(_ backend: StoreBackend) async throws {
        try await offPool {
            let today = Self.base / day
            // Two whole days and an hour of the day after, in the old product cube.
            let rows = [
                OverallCubeRow(
                    grain: .day,
                    bucket: today,
                    locale: "fr",
                    platform: "ios",
                    appVersion: "5.0.0",
                    type: .displayed,
                    action: "",
                    n: 7
                ),
                OverallCubeRow(
                    grain: .day,
                    bucket: today,
                    locale: "en",
                    platform: "ios",
                    appVersion: "5.0.0",
                    type: .displayed,
                    action: "",
                    n: 5
                ),
                OverallCubeRow(
                    grain: .day,
                    bucket: today + 1,
                    locale: "fr",
                    platform: "web",
                    appVersion: "5.1.0",
                    type: .actionTapped,
                    action: "retry",
                    n: 3
                ),
                OverallCubeRow(
                    grain: .hour,
                    bucket: (today + 2) * 24,
                    locale: "en",
                    platform: "android",
                    appVersion: "5.1.0",
                    type: .displayed,
                    action: "",
                    n: 2
                ),
            ]
            let open = try makeFirstRollupsEventStore(backend, overall: rows)
            let store = try open()
            store.start()
            defer { store.stop() }
            let summaries = AnalyticsSummaries(store: store)
            let window = (from: Self.base, to: Self.base + 2 * day + hour)
            func groups(_ grouping: SummaryGrouping) throws -> [String: (Int, Int)] {
                let summary = try summaries.summary(
                    from: window.from,
                    to: window.to,
                    templateID: nil,
                    groupBy: grouping
                )
                #expect(summary.totals.displays == 14 && summary.totals.taps == 3, "\(grouping)")
                return Dictionary(uniqueKeysWithValues: summary.groups.map { ($0.key ?? "", ($0.displays, $0.taps)) })
            }
            let versions = try groups(.appVersion)
            #expect(versions["5.0.0"]! == (12, 0) && versions["5.1.0"]! == (2, 3) && versions.count == 2)
            let locales = try groups(.locale)
            #expect(locales["fr"]! == (7, 3) && locales["en"]! == (7, 0) && locales.count == 2)
            let platforms = try groups(.platform)
            #expect(platforms["ios"]! == (12, 0) && platforms["web"]! == (0, 3) && platforms["android"]! == (2, 0))
            let retry = try summaries.summary(from: window.from, to: window.to, templateID: nil, groupBy: .appVersion)
            #expect(retry.totals.tapsByAction == ["retry": 3])
        }
    }

    @Test("SQLite events v5: the deltas waiting for a fold are summed into a row per hour and key")
    func sqliteDeltasByKey() async throws {
        try await offPool {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("deltas-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let path = directory.appendingPathComponent("events.sqlite").path
            let hour = Self.base / RollupGrain.hour.milliseconds
            let queue = try DatabaseQueue(path: path)
            try SQLiteEventStore.migrator.migrate(queue, upTo: "v4: experiment exposures")
            // Three commits' rows of one key, one of another: what v4 appended.
            try queue.write { db in
                for (type, action, n) in [
                    ("displayed", "", 2), ("displayed", "", 3), ("actionTapped", "retry", 1), ("displayed", "", 4),
                ] {
                    try db.execute(
                        sql: """
                            INSERT INTO rollup_delta (hour, template_id, revision, variant, locale, platform, app_version,
                                type, action_id, n)
                            VALUES (?, 'connectionRefused', 0, '', 'fr', 'ios', '5.0.0', ?, ?, ?)
                            """,
                        arguments: [hour, type, action, n]
                    )
                }
            }
            try SQLiteEventStore.migrator.migrate(queue)
            let rows = try queue.read { db in
                try Row.fetchAll(db, sql: "SELECT type, action_id, n FROM rollup_delta ORDER BY type").map {
                    "\($0[0] as String)/\($0[1] as String)=\($0[2] as Int)"
                }
            }
            #expect(rows == ["actionTapped/retry=1", "displayed/=9"])
            try queue.close()
            let store = try SQLiteEventStore(path: path, logger: Logger(label: "test"))
            store.start()
            defer { store.stop() }
            // A new event of the same key adds to its row; the answer reads it before any fold.
            var event = analyticsEvent(
                "after-v5",
                template: "connectionRefused",
                locale: "fr",
                platform: "ios",
                appVersion: "5.0.0",
                at: Self.base + 60_000
            )
            event.revision = nil
            #expect(try store.append([event], quarantined: []) == [true])
            let summary = try AnalyticsSummaries(store: store).summary(
                from: Self.base,
                to: Self.base + RollupGrain.hour.milliseconds,
                templateID: nil,
                groupBy: nil
            )
            #expect(summary.totals.displays == 10 && summary.totals.taps == 1)
            #expect(try queueRowCount(path) == 2, "the new event went into its key's row")
        }
    }

    private func queueRowCount(_ path: String) throws -> Int {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM rollup_delta") ?? -1 }
    }
}
