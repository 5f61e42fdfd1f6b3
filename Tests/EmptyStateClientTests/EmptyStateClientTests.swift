import Foundation
import HTTPTypes
import Logging
import OpenAPIRuntime
import Testing

@testable import EmptyStateClient

@Suite("EmptyStateClient")
struct EmptyStateClientTests {
    @Test("Cache-Control directives are read; a missing header means the service's defaults")
    func cachePolicy() {
        let policy = CachePolicy(
            cacheControl: "public, max-age=300, stale-while-revalidate=86400, stale-if-error=604800"
        )
        #expect(policy == CachePolicy(maxAge: 300, staleWhileRevalidate: 86_400, staleIfError: 604_800))
        #expect(
            CachePolicy(cacheControl: "no-store") == CachePolicy(maxAge: 0, staleWhileRevalidate: 0, staleIfError: 0)
        )
        #expect(CachePolicy(cacheControl: nil) == .default)
    }

    @Test("dates decode with and without milliseconds, and encode with them")
    func dates() throws {
        let transcoder = TolerantDateTranscoder()
        let whole = try transcoder.decode("2026-11-23T11:56:25Z")
        let fractional = try transcoder.decode("2026-11-23T11:56:25.179Z")
        #expect(fractional.timeIntervalSince(whole) > 0.178 && fractional.timeIntervalSince(whole) < 0.180)
        #expect(try transcoder.encode(fractional) == "2026-11-23T11:56:25.179Z")
        #expect(throws: (any Error).self) { try transcoder.decode("23/11/2026") }
    }

    @Test("If-None-Match and If-Match leave percent-decoded")
    func entityTags() async throws {
        var request = HTTPRequest(method: .get, scheme: "http", authority: "x", path: "/")
        request.headerFields[.ifNoneMatch] = "%22r3%22"
        request.headerFields[.ifMatch] = "%22ae27711f4646322d%22"
        request.headerFields[.accept] = "application/json"
        let seen = Locked<HTTPRequest?>(nil)
        _ = try await HeaderParameterMiddleware().intercept(
            request,
            body: nil,
            baseURL: URL(string: "http://x")!,
            operationID: "op"
        ) { request, _, _ in
            seen.withLock { $0 = request }
            return (HTTPResponse(status: .ok), nil)
        }
        let sent = try #require(seen.withLock { $0 })
        #expect(sent.headerFields[.ifNoneMatch] == "\"r3\"")
        #expect(sent.headerFields[.ifMatch] == "\"ae27711f4646322d\"")
    }

    @Test("retries back off exponentially with jitter, capped, and never before Retry-After")
    func backoff() {
        let client = EmptyStateClient(
            configuration: EmptyStateClientConfiguration(
                baseURL: URL(string: "http://127.0.0.1:1")!,
                appVersion: "1",
                storageDirectory: nil,
                initialRetryDelay: .seconds(1),
                maxRetryDelay: .seconds(60)
            ),
            transport: RecordingTransport()
        )
        for failures in 1...10 {
            let expected = min(Double(1 << (failures - 1)), 60)
            let delay = client.retryDelay(failures: failures, retryAfter: nil)
            #expect(delay >= .seconds(expected / 2) && delay <= .seconds(expected), "after \(failures) failures")
        }
        #expect(client.retryDelay(failures: 1, retryAfter: .seconds(30)) == .seconds(30))
    }

    @Test("displayed and tapped write the seed's exact log lines at debug")
    func logLines() throws {
        let messages = Locked<[String]>([])
        var logger = Logger(label: "EmptyState") { _ in CapturingLogHandler(messages: messages) }
        logger.logLevel = .debug
        let client = EmptyStateClient(
            configuration: EmptyStateClientConfiguration(
                baseURL: URL(string: "http://127.0.0.1:1")!,
                appVersion: "1",
                storageDirectory: nil
            ),
            transport: RecordingTransport(),
            logger: logger
        )
        let template = EmptyStateTemplate(
            id: "connectionRefused",
            revision: 2,
            category: "offline",
            style: "default",
            locale: "fr",
            direction: .leftToRight,
            platform: "ios",
            visual: .init(kind: "icon", name: "wifi.slash", width: 64, height: 64, isDecorative: true, label: nil),
            title: "Vous êtes hors ligne",
            message: nil,
            actions: [.init(id: "retry", role: "primary", type: "retry", label: "Actualiser", target: nil)],
            placeholders: [],
            etag: "\"x\""
        )
        client.displayed(template)
        client.tapped(template, action: "retry")
        #expect(
            messages.withLock { $0 } == [
                "EmptyState: displayed \"Vous êtes hors ligne\"", "EmptyState: action \"Actualiser\" tapped",
            ]
        )
        #expect(client.queuedEventCount == 2)
    }

    @Test(
        "events of a copy in an experiment carry its experiment, variant, the install id and install time; others none"
    )
    func experimentEvents() throws {
        let client = EmptyStateClient(
            configuration: EmptyStateClientConfiguration(
                baseURL: URL(string: "http://127.0.0.1:1")!,
                appVersion: "1",
                installID: "3f2c8d4e-51b7-4c1e-9a0d-6b2f7e8c9d10",
                storageDirectory: nil,
                installedAt: Date(timeIntervalSince1970: 1_795_000_000)
            ),
            transport: RecordingTransport()
        )
        var template = EmptyStateTemplate(
            id: "connectionRefused",
            revision: 2,
            experiment: .init(id: "retry-copy", variant: "b"),
            category: "offline",
            style: "default",
            locale: "en",
            direction: .leftToRight,
            platform: "ios",
            visual: .init(kind: "icon", name: "wifi.slash", width: 64, height: 64, isDecorative: true, label: nil),
            title: "No connection",
            message: nil,
            actions: [.init(id: "retry", role: "primary", type: "retry", label: "Retry", target: nil)],
            placeholders: [],
            etag: "\"x\""
        )
        client.tapped(template, action: "retry")
        template.experiment = nil
        client.displayed(template)
        let events = client.events.oldest(10).map { $0.schema(sentAt: Date()) }
        #expect(events.count == 2)
        #expect(events[0].experimentId == "retry-copy")
        #expect(events[0].variant == "b")
        #expect(events[0].installId == "3f2c8d4e-51b7-4c1e-9a0d-6b2f7e8c9d10")
        #expect(events[0].installedAt == Date(timeIntervalSince1970: 1_795_000_000))
        #expect(events[1].experimentId == nil && events[1].variant == nil && events[1].installId == nil)
        #expect(events[1].installedAt == nil)
    }
}

/// Keeps the messages logged at debug.
struct CapturingLogHandler: LogHandler {
    let messages: Locked<[String]>
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .debug

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        if event.level == .debug { messages.withLock { $0.append(event.message.description) } }
    }
}
