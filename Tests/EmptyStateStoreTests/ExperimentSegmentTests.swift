import EmptyStateCore
import Testing

@testable import EmptyStateStore

/// Results per segment read from the exposures (issue 35): each install counts in the segment of
/// its earliest event's platform, locale or app version, the segments add up to the whole, an
/// app update does not move an install, and installs stored before the attributes were kept are
/// the unknown segment — on both stores.
@Suite("EventStore: experiment counts per segment")
struct ExperimentSegmentTests {
    private func exposure(
        _ id: String,
        _ key: String,
        install: String,
        tap action: String? = nil,
        platform: String = "ios",
        locale: String = "en",
        version: String = "5.0.0",
        at occurredAt: Int64
    ) -> AnalyticsEvent {
        var event = analyticsEvent(
            id,
            action == nil ? .displayed : .actionTapped,
            action: action,
            locale: locale,
            platform: platform,
            appVersion: version,
            at: occurredAt
        )
        event.variant = "copy/" + key
        event.installID = install
        return event
    }

    /// "installs/conversions" per segment value ("(unknown)" for `nil`) and variant, summed over
    /// the days.
    private func totals(_ segments: [ExperimentSegmentCounts]) -> [String: [String: String]] {
        var sums: [String: [String: (Int, Int)]] = [:]
        for segment in segments {
            for day in segment.counts.days {
                let previous = sums[segment.value ?? "(unknown)", default: [:]][day.variant] ?? (0, 0)
                sums[segment.value ?? "(unknown)", default: [:]][day.variant] =
                    (previous.0 + day.installs, previous.1 + day.conversions)
            }
        }
        return sums.mapValues { $0.mapValues { "\($0.0)/\($0.1)" } }
    }

    @Test(
        "per platform, locale and app version: earliest event's attributes, sums to the whole",
        arguments: StoreBackend.all
    )
    func segments(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, _) = try makeEventStore(backend)
            store.start()
            defer { store.stop() }
            let start = march1
            _ = try store.append(
                [
                    // An iOS install on 5.0.0 that updates to 5.1.0 and taps there: it stays 5.0.0.
                    exposure("a1", "control", install: "i1", at: start + hour),
                    exposure("a2", "control", install: "i1", tap: "retry", version: "5.1.0", at: start + 3 * hour),
                    // Two Android installs in French, one on b converting.
                    exposure("a3", "b", install: "a1", platform: "android", locale: "fr", at: start + hour),
                    exposure(
                        "a4",
                        "b",
                        install: "a1",
                        tap: "retry",
                        platform: "android",
                        locale: "fr",
                        at: start + 2 * hour
                    ),
                    exposure(
                        "a5",
                        "control",
                        install: "a2",
                        platform: "android",
                        locale: "fr",
                        version: "4.9.0",
                        at: start + hour
                    ),
                    // A web install without an app version: the unknown app-version segment.
                    exposure("a6", "b", install: "w1", platform: "web", version: "", at: start + hour),
                    // Excluded, by segment: a forged iOS claim, a QA device on Android.
                    exposure("x1", "~b", install: "forged", at: start + hour),
                    exposure("x2", "=b", install: "qa", platform: "android", at: start + hour),
                ],
                quarantined: []
            )
            // A later group commit: an event from before i1's first (an offline queue sent late)
            // brings its attributes; a later one of a1 on another platform changes nothing.
            _ = try store.append(
                [
                    exposure("b1", "control", install: "i1", locale: "de", version: "4.8.0", at: start + 30 * 60_000),
                    exposure("b2", "b", install: "a1", platform: "ios", at: start + 5 * hour),
                ],
                quarantined: []
            )
            func read(
                _ segment: ExperimentSegment,
                _ metric: Experiment.Metric = .tap(action: "retry")
            ) throws
                -> [ExperimentSegmentCounts]
            {
                try store.experimentSegmentCounts(
                    experimentID: "copy",
                    metric: metric,
                    from: start,
                    to: .max,
                    segment: segment
                )
            }
            let platforms = try read(.platform)
            #expect(platforms.map(\.value) == ["android", "ios", "web"])
            let byPlatform = totals(platforms)
            #expect(byPlatform["android"]?["b"] == "1/1" && byPlatform["android"]?["control"] == "1/0")
            #expect(byPlatform["ios"]?["control"] == "1/1" && byPlatform["ios"]?["b"] == nil)
            #expect(byPlatform["web"]?["b"] == "1/0")
            #expect(platforms.first { $0.value == "ios" }?.counts.excluded == .init(notAssigned: 1))
            #expect(platforms.first { $0.value == "android" }?.counts.excluded == .init(override: 1))

            let locales = totals(try read(.locale))
            #expect(locales["de"]?["control"] == "1/1", "the earliest event's locale")
            #expect(locales["fr"]?["b"] == "1/1" && locales["fr"]?["control"] == "1/0")
            #expect(locales["en"]?["b"] == "1/0")

            let versions = try read(.appVersion)
            #expect(versions.map(\.value) == ["4.8.0", "4.9.0", "5.0.0", nil])
            let byVersion = totals(versions)
            #expect(byVersion["4.8.0"]?["control"] == "1/1", "the update to 5.1.0 did not move it")
            #expect(byVersion["5.1.0"] == nil)
            #expect(byVersion["(unknown)"]?["b"] == "1/0")

            // Every segmentation adds up to the whole, excluded installs included.
            let whole = try store.experimentDailyCounts(
                experimentID: "copy",
                metric: .tap(action: "retry"),
                from: start,
                to: .max
            )
            for segment in ExperimentSegment.allCases {
                let parts = try read(segment)
                #expect(parts.flatMap(\.counts.days).map(\.installs).reduce(0, +) == 4)
                #expect(parts.flatMap(\.counts.days).map(\.conversions).reduce(0, +) == 2)
                #expect(parts.map(\.counts.excluded.total).reduce(0, +) == whole.excluded.total)
            }
            #expect(whole.excluded.total == 2)
            // Another experiment has no segments at all.
            #expect(
                try store.experimentSegmentCounts(
                    experimentID: "none",
                    metric: .anyTap,
                    from: 0,
                    to: .max,
                    segment: .platform
                ).isEmpty
            )
        }
    }

    @Test("new installs: the earliest event's install time against the start", arguments: StoreBackend.all)
    func newInstalls(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, _) = try makeEventStore(backend)
            store.start()
            defer { store.stop() }
            let start = march1 + day
            func event(
                _ id: String,
                _ install: String,
                installedAt: Int64?,
                tap: Bool = false,
                at: Int64
            ) -> AnalyticsEvent {
                var event = exposure(id, "control", install: install, tap: tap ? "retry" : nil, at: at)
                event.installedAt = installedAt
                return event
            }
            _ = try store.append(
                [
                    // Installed after the start (new), at the start (new), before it (existing) …
                    event("n1", "fresh", installedAt: start + hour, tap: true, at: start + 2 * hour),
                    event("n2", "edge", installedAt: start, at: start + 2 * hour),
                    event("n3", "old", installedAt: march1, at: start + 2 * hour),
                    // … and an app that does not say (unknown), though a later event does.
                    event("n4", "silent", installedAt: nil, at: start + 2 * hour),
                    event("n5", "silent", installedAt: start + hour, at: start + 3 * hour),
                ],
                quarantined: []
            )
            let segments = try store.experimentSegmentCounts(
                experimentID: "copy",
                metric: .tap(action: "retry"),
                from: start,
                to: .max,
                segment: .newInstall
            )
            #expect(segments.map(\.value) == ["existing", "new", nil])
            let byAge = totals(segments)
            #expect(byAge["new"]?["control"] == "2/1" && byAge["existing"]?["control"] == "1/0")
            #expect(byAge["(unknown)"]?["control"] == "1/0", "the earliest event's (none), not a later one's")
        }
    }

    @Test(
        "an events store from before segments migrates: its installs are the unknown segment",
        arguments: StoreBackend.all
    )
    func migration(_ backend: StoreBackend) async throws {
        try await offPool {
            let open = try makePreSegmentsEventStore(
                backend,
                installs: [
                    (experiment: "copy", install: "old-1", variant: "control", firstSeenAt: march1 + hour),
                    (experiment: "copy", install: "old-2", variant: "b", firstSeenAt: march1 + hour),
                ]
            )
            let store = try open()
            store.start()
            defer { store.stop() }
            // After the upgrade: a new install, and a later event of an old one (no earlier
            // event: it stays unknown, the attributes it entered with are not known).
            _ = try store.append(
                [
                    exposure("n1", "b", install: "new-1", platform: "android", at: march1 + 2 * hour),
                    exposure("n2", "control", install: "old-1", tap: "retry", at: march1 + 3 * hour),
                ],
                quarantined: []
            )
            let segments = try store.experimentSegmentCounts(
                experimentID: "copy",
                metric: .anyTap,
                from: march1,
                to: .max,
                segment: .platform
            )
            #expect(segments.map(\.value) == ["android", nil])
            let byPlatform = totals(segments)
            #expect(byPlatform["android"]?["b"] == "1/0")
            #expect(byPlatform["(unknown)"]?["control"] == "1/1" && byPlatform["(unknown)"]?["b"] == "1/0")
        }
    }
}
