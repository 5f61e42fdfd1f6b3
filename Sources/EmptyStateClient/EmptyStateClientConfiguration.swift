import Foundation

/// What an ``EmptyStateClient`` asks for and how it caches and reports; every field but the
/// service's address and the app's version has a default.
public struct EmptyStateClientConfiguration: Sendable {
    /// The service, for example `https://empty-states.example.com`.
    public var baseURL: URL
    /// The app's preferred locales, best first (sent as `Accept-Language`).
    public var preferredLocales: [String]
    /// `ios`, `android` or `web`: which icon names the service returns.
    public var platform: String
    /// The app's version, reported with every event.
    public var appVersion: String
    /// An opaque id of the app session, reported with every event.
    public var sessionId: String?
    /// The install's id for copy experiments, sent as `X-Install-ID` with every template request
    /// and reported with the events of a template in an experiment: the service assigns each
    /// install a variant from it, the same on every request. Make it once per install (a
    /// `UUID().uuidString` kept in the app's storage, `UserDefaults` for example) and pass the
    /// same value on every launch; a new id is a new install for the experiment's results. 1–128
    /// printable ASCII characters. `nil`: the app is served control and counts in no experiment.
    public var installID: String?
    /// When this install was first launched (kept in the app's storage beside ``installID``), sent
    /// as `X-Installed-At` with ``installID``: an experiment that targets new installs admits an
    /// install first launched at or after its start. `nil`: the install counts as not new. Also
    /// sent with the events of a template in an experiment, for the results' new-install segment.
    public var installedAt: Date?
    /// A change request's preview token (an editor makes one in the console or with
    /// `POST /v1/admin/change-requests/{id}/preview-tokens`), for a QA build: every template is
    /// then fetched with it (`X-Preview-Token`) and shows the request's proposed copy. Previews
    /// are never cached, in memory or on disk, never fall back to a cached or bundled copy (a
    /// QA device must not show live copy as if it were the change), and record no events.
    /// `nil`: live copy, the usual way. ``EmptyStateClient/template(_:parameters:previewToken:)``
    /// passes one per call instead.
    public var previewToken: String?
    /// Where last-known-good templates and the event queue are kept; `nil` keeps nothing on disk
    /// (events are then lost when the app is killed).
    public var storageDirectory: URL?
    /// The catalogue shipped in the app: `GET /v1/templates?locale=…&platform=…` bodies, one a
    /// locale (see docs/ios-client.md).
    public var bundledSnapshots: [URL]
    /// Overrides the `max-age` the service sends (300 s): how long a copy is used without asking.
    public var maxAge: TimeInterval?
    /// Events sent per request, at most 500.
    public var eventBatchSize: Int
    /// The longest an event waits before its batch is sent, even when the batch is not full.
    public var eventFlushInterval: Duration
    /// Events kept while the service cannot be reached; past it the oldest are dropped.
    public var maxQueuedEvents: Int
    /// The first retry's delay after a failed delivery; it doubles up to ``maxRetryDelay``, with
    /// jitter, unless the service says `Retry-After`.
    public var initialRetryDelay: Duration
    /// The longest delay between two delivery attempts.
    public var maxRetryDelay: Duration
    /// How long one request may take before it counts as failed.
    public var requestTimeout: TimeInterval

    /// A configuration for the service at `baseURL`; each parameter sets the property of the same
    /// name.
    ///
    /// - Parameters:
    ///   - baseURL: the service's address.
    ///   - appVersion: the app's version, reported with every event.
    ///   - preferredLocales: BCP 47 tags, best first; an empty list means `["en"]`.
    ///   - platform: `ios`, `android` or `web`; ``currentPlatform`` by default.
    ///   - sessionId: an opaque id of the app session, or `nil`.
    ///   - installID: the install's id for copy experiments (a UUID kept in the app's storage),
    ///     or `nil` to be served control.
    ///   - storageDirectory: where copies and the event queue are kept on disk;
    ///     ``defaultStorageDirectory`` by default, `nil` for nothing on disk.
    ///   - bundledSnapshots: `GET /v1/templates` bodies shipped in the app, one a locale.
    ///   - maxAge: overrides the service's `max-age`; `nil` follows the service.
    ///   - eventBatchSize: events sent per request, clamped to 1…500.
    ///   - eventFlushInterval: the longest an event waits before it is sent.
    ///   - maxQueuedEvents: events kept while the service is unreachable (at least 1).
    ///   - initialRetryDelay: the first delay after a failed delivery.
    ///   - maxRetryDelay: the longest delay between two delivery attempts.
    ///   - requestTimeout: seconds one request may take.
    ///   - previewToken: a change request's preview token, for a QA build; `nil` for live copy.
    ///   - installedAt: when the install was first launched, for experiments that target new
    ///     installs; `nil` counts the install as not new.
    public init(
        baseURL: URL,
        appVersion: String,
        preferredLocales: [String] = Locale.preferredLanguages,
        platform: String = EmptyStateClientConfiguration.currentPlatform,
        sessionId: String? = nil,
        installID: String? = nil,
        storageDirectory: URL? = EmptyStateClientConfiguration.defaultStorageDirectory,
        bundledSnapshots: [URL] = [],
        maxAge: TimeInterval? = nil,
        eventBatchSize: Int = 20,
        eventFlushInterval: Duration = .seconds(30),
        maxQueuedEvents: Int = 1000,
        initialRetryDelay: Duration = .seconds(1),
        maxRetryDelay: Duration = .seconds(300),
        requestTimeout: TimeInterval = 10,
        previewToken: String? = nil,
        installedAt: Date? = nil
    ) {
        self.baseURL = baseURL
        self.appVersion = appVersion
        self.preferredLocales = preferredLocales.isEmpty ? ["en"] : preferredLocales
        self.platform = platform
        self.sessionId = sessionId
        self.installID = installID
        self.installedAt = installedAt
        self.storageDirectory = storageDirectory
        self.bundledSnapshots = bundledSnapshots
        self.maxAge = maxAge
        self.eventBatchSize = min(max(eventBatchSize, 1), 500)
        self.eventFlushInterval = eventFlushInterval
        self.maxQueuedEvents = max(maxQueuedEvents, 1)
        self.initialRetryDelay = initialRetryDelay
        self.maxRetryDelay = maxRetryDelay
        self.requestTimeout = requestTimeout
        self.previewToken = previewToken
    }

    /// `ios` on Apple's systems, `android` on Android, otherwise `web`.
    public static var currentPlatform: String {
        #if canImport(Darwin)
            return "ios"
        #elseif os(Android)
            return "android"
        #else
            return "web"
        #endif
    }

    /// `<Caches>/EmptyStateClient`: the system may purge it, which costs only a refetch (and
    /// unsent events).
    public static var defaultStorageDirectory: URL? {
        FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first?
            .appendingPathComponent("EmptyStateClient", isDirectory: true)
    }

    /// The `Accept-Language` value of ``preferredLocales``: q decreasing by 0.1 from 1.
    var acceptLanguage: String {
        preferredLocales.prefix(9).enumerated().map { index, tag in
            index == 0 ? tag : "\(tag);q=0.\(9 - index)"
        }.joined(separator: ", ")
    }

    /// `X-App-Version`, sent with ``installID`` for experiments that target a version range:
    /// ``appVersion`` when it is a SemVer version the service reads (`5.2`, `5.2.0`,
    /// `5.2.0-beta.1`); `nil` for any other text (`5.2.0 (431)`), which the service would refuse
    /// with a 400, so such an install falls outside version targets instead.
    var appVersionHeader: String? {
        guard installID != nil else { return nil }
        return Self.isSemVer(appVersion) ? appVersion : nil
    }

    /// `X-Installed-At`: ``installedAt`` in RFC 3339 UTC, sent with ``installID``.
    var installedAtHeader: String? {
        guard installID != nil, let installedAt else { return nil }
        return installedAt.formatted(.iso8601)
    }

    /// Whether `text` is one to three release numbers with optional pre-release and build
    /// identifiers, as the service's version parser reads them (no leading zeros in numbers).
    static func isSemVer(_ text: String) -> Bool {
        guard !text.isEmpty, text.utf8.count <= 128 else { return false }
        func isNumber(_ part: Substring) -> Bool {
            !part.isEmpty && part.allSatisfy(\.isASCIIDigit) && (part == "0" || part.first != "0")
        }
        func isIdentifier(_ part: Substring) -> Bool {
            !part.isEmpty && part.allSatisfy { $0.isASCIIAlphanumeric || $0 == "-" }
                && (!part.allSatisfy(\.isASCIIDigit) || isNumber(part))
        }
        var rest = Substring(text)
        if let plus = rest.firstIndex(of: "+") {
            let build = rest[rest.index(after: plus)...].split(separator: ".", omittingEmptySubsequences: false)
            guard build.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCIIAlphanumeric || $0 == "-" } }) else {
                return false
            }
            rest = rest[..<plus]
        }
        if let dash = rest.firstIndex(of: "-") {
            let identifiers = rest[rest.index(after: dash)...].split(separator: ".", omittingEmptySubsequences: false)
            guard identifiers.allSatisfy(isIdentifier) else { return false }
            rest = rest[..<dash]
        }
        let numbers = rest.split(separator: ".", omittingEmptySubsequences: false)
        return (1...3).contains(numbers.count) && numbers.allSatisfy(isNumber)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
    fileprivate var isASCIIAlphanumeric: Bool { isASCII && (isLetter || isNumber) }
}
