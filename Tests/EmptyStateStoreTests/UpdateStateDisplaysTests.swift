import Dispatch
import EmptyStateSQLite
import Foundation
import Logging
import Synchronization
import Testing

@testable import EmptyStateStore

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
            let rows = try AnalyticsSummaries(store: store).displaysByAppVersion(
                from: march1,
                to: march1 + day,
                templateIDs: ["appUpdateRequired", "optionalUpdateAvailable", "osUpdateRequired"]
            )
            #expect(
                rows.map { "\($0.templateID) \($0.appVersion) \($0.displays)" } == [
                    "appUpdateRequired 4.9 1", "appUpdateRequired 5.1.2 2", "optionalUpdateAvailable 5.2.0 1",
                ]
            )
            #expect(
                try AnalyticsSummaries(store: store).displaysByAppVersion(
                    from: march1,
                    to: march1 + day,
                    templateIDs: []
                ).isEmpty
            )
        }
    }
}
