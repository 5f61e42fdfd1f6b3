import EmptyStateCore
import EmptyStatePostgres
import EmptyStateSQLite
import Foundation
import GRDB
import Logging
import PostgresNIO
import Testing

@testable import EmptyStateStore

@Suite("EventStore: experiment exposures")
struct ExperimentExposureTests {
    /// An experiment's exposures over all time, per variant, as the results count them.
    struct Exposures: Equatable {
        struct Variant: Equatable {
            var key: String
            var installs: Int
            var conversions: Int
        }

        var perVariant: [Variant]
        var crossed: Int

        init(perVariant: [Variant], crossed: Int) {
            self.perVariant = perVariant.sorted { $0.key < $1.key }
            self.crossed = crossed
        }

        subscript(key: String) -> Variant {
            perVariant.first { $0.key == key } ?? Variant(key: key, installs: 0, conversions: 0)
        }
    }

    /// What `experimentDailyCounts` reads over all time, summed per variant.
    private func exposures(
        in store: any EventStoring,
        experimentID: String,
        metric: Experiment.Metric
    ) throws -> Exposures {
        let counts = try store.experimentDailyCounts(experimentID: experimentID, metric: metric, from: 0, to: .max)
        var variants: [String: Exposures.Variant] = [:]
        for day in counts.days {
            variants[day.variant, default: .init(key: day.variant, installs: 0, conversions: 0)].installs +=
                day.installs
            variants[day.variant, default: .init(key: day.variant, installs: 0, conversions: 0)].conversions +=
                day.conversions
        }
        return Exposures(perVariant: Array(variants.values), crossed: counts.excluded.crossed)
    }

    /// An event of install `install` in the variant `variant` (`<experimentId>/<key>`).
    private func exposure(
        _ id: String,
        _ variant: String?,
        install: String?,
        tap action: String? = nil,
        at occurredAt: Int64 = march1
    ) -> AnalyticsEvent {
        var event = analyticsEvent(id, action == nil ? .displayed : .actionTapped, action: action, at: occurredAt)
        event.variant = variant
        event.installID = install
        return event
    }

    @Test(
        "first sight, crossing within and across groups, conversions per metric counted once",
        arguments: StoreBackend.all
    )
    func firstSightCrossingConversion(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, _) = try makeEventStore(backend)
            store.start()
            defer { store.stop() }
            _ = try store.append(
                [
                    exposure("e1", "copy/control", install: "i1"),
                    exposure("e2", "copy/control", install: "i1", at: march1 + 5),
                    exposure("e3", "copy/control", install: "i1", tap: "retry", at: march1 + 10),
                    exposure("e4", "copy/control", install: "i1", tap: "retry", at: march1 + 20),
                    exposure("e5", "copy/b", install: "i2"),
                    exposure("e6", "copy/b", install: "i2", tap: "back", at: march1 + 10),
                    exposure("e7", "copy/control", install: "i3"),
                    // Two variants in one group: crossed by the group itself.
                    exposure("e8", "copy/b", install: "i4"),
                    exposure("e9", "copy/control", install: "i4"),
                    // Not exposures: no install, not an experiment's variant, no variant.
                    exposure("e10", "copy/b", install: nil),
                    exposure("e11", "free-text", install: "i5"),
                    exposure("e12", nil, install: "i6"),
                    // Another experiment's installs are its own.
                    exposure("e13", "other/b", install: "i1"),
                    // Converts in control, crosses later: its conversion goes with it.
                    exposure("e16", "copy/control", install: "i8", tap: "retry"),
                ],
                quarantined: []
            )
            // i3 comes back in another variant: crossed, out of the comparison.
            _ = try store.append(
                [
                    exposure("e14", "copy/b", install: "i3", at: march1 + hour),
                    exposure("e17", "copy/b", install: "i8", tap: "retry", at: march1 + hour),
                ],
                quarantined: []
            )
            _ = try store.append(
                [exposure("e15", "copy/b", install: "i7", tap: "retry", at: march1 + hour)],
                quarantined: []
            )

            let anyTap = try exposures(in: store, experimentID: "copy", metric: .anyTap)
            #expect(
                anyTap
                    == Exposures(
                        perVariant: [
                            .init(key: "control", installs: 1, conversions: 1),
                            .init(key: "b", installs: 2, conversions: 2),
                        ],
                        crossed: 3
                    )
            )
            let retry = try exposures(in: store, experimentID: "copy", metric: .tap(action: "retry"))
            #expect(retry["control"] == .init(key: "control", installs: 1, conversions: 1))
            #expect(retry["b"] == .init(key: "b", installs: 2, conversions: 1))
            let back = try exposures(in: store, experimentID: "copy", metric: .tap(action: "back"))
            #expect(back["control"].conversions == 0)
            #expect(back["b"].conversions == 1)
            let other = try exposures(in: store, experimentID: "other", metric: .anyTap)
            #expect(
                other == Exposures(perVariant: [.init(key: "b", installs: 1, conversions: 0)], crossed: 0)
            )
            let none = try exposures(in: store, experimentID: "nobody", metric: .anyTap)
            #expect(none == Exposures(perVariant: [], crossed: 0))
        }
    }

    @Test("a resent event id is not an exposure, a crossing or a conversion again", arguments: StoreBackend.all)
    func duplicatesAreNotCounted(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, _) = try makeEventStore(backend)
            store.start()
            defer { store.stop() }
            #expect(try store.append([exposure("d1", "copy/control", install: "i1")], quarantined: []) == [true])
            // The same ids again, claiming another variant and a tap: duplicates, dropped whole.
            let resent = [
                exposure("d1", "copy/b", install: "i1"),
                exposure("d1", "copy/control", install: "i2", tap: "retry"),
            ]
            #expect(try store.append(resent, quarantined: []) == [false, false])
            #expect(
                try exposures(in: store, experimentID: "copy", metric: .anyTap)
                    == Exposures(perVariant: [.init(key: "control", installs: 1, conversions: 0)], crossed: 0)
            )
            // A duplicate within one group: the first is stored, the second is not seen.
            #expect(
                try store.append(
                    [exposure("d2", "copy/b", install: "i3"), exposure("d2", "copy/control", install: "i3")],
                    quarantined: []
                ) == [true, false]
            )
            let exposures = try exposures(in: store, experimentID: "copy", metric: .anyTap)
            #expect(exposures["b"].installs == 1)
            #expect(exposures.crossed == 0)
        }
    }

    @Test("a group commit that fails stores no exposure, like no event", arguments: StoreBackend.all)
    func rollbackWithTheEvents(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, _) = try makeEventStore(backend)
            store.start()
            defer { store.stop() }
            // The quarantined event is written after the group's events (SQLite) or in the same
            // statement (PostgreSQL); refusing it fails the whole transaction.
            try refuseQuarantine(in: store, backend)
            #expect(throws: StoreError.self) {
                try store.append(
                    [exposure("r1", "copy/control", install: "i1", tap: "retry")],
                    quarantined: [quarantinedEvent("bad")]
                )
            }
            #expect(try store.counts().events == 0)
            #expect(
                try exposures(in: store, experimentID: "copy", metric: .tap(action: "retry"))
                    == Exposures(perVariant: [], crossed: 0)
            )
            // The same events, resent once the database takes them, are counted once.
            #expect(
                try store.append([exposure("r1", "copy/control", install: "i1", tap: "retry")], quarantined: []) == [
                    true
                ]
            )
            #expect(
                try exposures(in: store, experimentID: "copy", metric: .tap(action: "retry"))
                    == Exposures(perVariant: [.init(key: "control", installs: 1, conversions: 1)], crossed: 0)
            )
        }
    }

    /// Makes every insert into `quarantine` fail, by a trigger of the store's own database.
    private func refuseQuarantine(in store: any EventStoring, _ backend: StoreBackend) throws {
        switch backend {
        case .sqlite:
            let path = try #require(store as? SQLiteEventStore).path
            let queue = try DatabaseQueue(path: path)
            try queue.write { db in
                try db.execute(
                    sql: """
                        CREATE TRIGGER refuse_quarantine BEFORE INSERT ON quarantine
                        BEGIN SELECT RAISE(ABORT, 'refused'); END
                        """
                )
            }
            try queue.close()
        case .postgres:
            let database = try #require(store as? PostgresEventStore).database
            try database.blocking { client in
                try await client.all(
                    PostgresQuery(
                        unsafeSQL: """
                            CREATE FUNCTION refuse_quarantine() RETURNS trigger LANGUAGE plpgsql AS $$
                            BEGIN RAISE EXCEPTION 'refused'; END $$
                            """
                    ),
                    logger: Logger(label: "test")
                )
                try await client.all(
                    PostgresQuery(
                        unsafeSQL: """
                            CREATE TRIGGER refuse_quarantine BEFORE INSERT ON quarantine
                            FOR EACH ROW EXECUTE FUNCTION refuse_quarantine()
                            """
                    ),
                    logger: Logger(label: "test")
                )
            }
        }
    }
}
