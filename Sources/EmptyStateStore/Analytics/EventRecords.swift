/// One event an app reported, validated, with its time corrected for the device's clock skew.
package struct AnalyticsEvent: Sendable, Equatable {
    package enum Kind: String, Sendable, CaseIterable {
        case displayed, actionTapped
    }

    /// Client-generated UUID, lowercased: the key duplicates are dropped on.
    package var id: String
    package var kind: Kind
    /// Canonical template id (an alias the app used is resolved).
    package var templateID: String
    package var revision: Int?
    package var etag: String?
    package var locale: String
    package var platform: String
    package var appVersion: String
    /// For `actionTapped`: the action of the template.
    package var actionID: String?
    package var sessionID: String?
    /// The experiment variant the app was shown (copy experiments), if any.
    package var variant: String?
    /// The app install that saw it, when the app says (copy experiments count installs).
    package var installID: String?
    /// When that install was first launched (ms since the epoch), when the app says: kept with
    /// the install's experiment exposure for the new-install segment (`ExperimentSegment`), not
    /// stored with the event.
    package var installedAt: Int64?
    /// When it happened, in milliseconds since the epoch, corrected by `clockSkewMilliseconds`.
    package var occurredAt: Int64
    package var receivedAt: Int64
    /// `receivedAt - sentAt` when the app sent `sentAt`, else 0: added to the device's times.
    package var clockSkewMilliseconds: Int64
    package var requestID: String

    package init(
        id: String,
        kind: Kind,
        templateID: String,
        revision: Int?,
        etag: String?,
        locale: String,
        platform: String,
        appVersion: String,
        actionID: String?,
        sessionID: String?,
        occurredAt: Int64,
        receivedAt: Int64,
        clockSkewMilliseconds: Int64,
        requestID: String,
        variant: String? = nil,
        installID: String? = nil,
        installedAt: Int64? = nil
    ) {
        self.id = id
        self.kind = kind
        self.templateID = templateID
        self.revision = revision
        self.etag = etag
        self.locale = locale
        self.platform = platform
        self.appVersion = appVersion
        self.actionID = actionID
        self.sessionID = sessionID
        self.occurredAt = occurredAt
        self.receivedAt = receivedAt
        self.clockSkewMilliseconds = clockSkewMilliseconds
        self.requestID = requestID
        self.variant = variant
        self.installID = installID
        self.installedAt = installedAt
    }
}

/// An event that failed validation, kept with the reason instead of being dropped.
package struct QuarantinedEvent: Sendable, Equatable {
    package var payload: String
    package var reason: String
    package var receivedAt: Int64
    package var requestID: String

    package init(payload: String, reason: String, receivedAt: Int64, requestID: String) {
        self.payload = payload
        self.reason = reason
        self.receivedAt = receivedAt
        self.requestID = requestID
    }
}

/// What an analytics summary is broken down by.
/// `revision` keys are the revision's number ("0" for events that named none).
package enum SummaryGrouping: String, Sendable, CaseIterable {
    case template, revision, action, locale, platform, appVersion, day
}

/// Displays and taps of one group (or of everything, with `key == nil`).
package struct SummaryRow: Sendable, Equatable {
    package var key: String?
    package var displays: Int
    package var taps: Int
    package var tapsByAction: [String: Int]

    package init(key: String?, displays: Int, taps: Int, tapsByAction: [String: Int]) {
        self.key = key
        self.displays = displays
        self.taps = taps
        self.tapsByAction = tapsByAction
    }
}
