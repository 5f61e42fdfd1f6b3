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
