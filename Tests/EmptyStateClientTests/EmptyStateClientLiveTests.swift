import Foundation
import HTTPTypes
import Logging
import OpenAPIRuntime
import Testing

@testable import EmptyStateClient

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The library against the real `empty-state-server` binary.
@Suite("EmptyStateClient, live", .serialized, .timeLimit(.minutes(2)))
struct EmptyStateClientLiveTests {
    private static func scratch() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("empty-state-client-storage-\(UUID().uuidString)")
    }

    private static func configuration(
        _ baseURL: URL,
        locales: [String] = ["en"],
        storage: URL? = nil,
        maxAge: TimeInterval? = nil,
        snapshots: [URL] = []
    ) -> EmptyStateClientConfiguration {
        EmptyStateClientConfiguration(
            baseURL: baseURL,
            appVersion: "9.9.9-test",
            preferredLocales: locales,
            platform: "ios",
            storageDirectory: storage,
            bundledSnapshots: snapshots,
            maxAge: maxAge,
            eventBatchSize: 2,
            eventFlushInterval: .milliseconds(200),
            initialRetryDelay: .milliseconds(50),
            maxRetryDelay: .milliseconds(400),
            requestTimeout: 5
        )
    }

    @Test("fetches and decodes every built-in template in every locale it has")
    func everyTemplateEveryLocale() async throws {
        let service = try LiveService()
        defer { service.stop() }
        var fetched = 0
        for (id, locales) in try LiveService.builtInLocales() {
            for locale in locales {
                let client = EmptyStateClient(
                    configuration: Self.configuration(service.baseURL, locales: [locale]),
                    transport: RecordingTransport()
                )
                let template = try await client.template(id)
                #expect(template.id == id)
                #expect(template.locale.lowercased() == locale.lowercased(), "\(id) in \(locale)")
                #expect(!template.title.isEmpty && template.platform == "ios")
                #expect((template.revision ?? 0) >= 1, "the body carries the revision")
                #expect(template.etag?.hasPrefix("\"") == true)
                fetched += 1
            }
        }
        #expect(fetched > 15)
    }

    @Test("a stale copy is revalidated with If-None-Match (sent unencoded) and the service answers 304")
    func revalidation() async throws {
        let service = try LiveService()
        defer { service.stop() }
        let transport = RecordingTransport()
        let client = EmptyStateClient(
            configuration: Self.configuration(service.baseURL, locales: ["fr"], maxAge: 0),
            transport: transport
        )
        let running = Task { await client.run() }
        defer { running.cancel() }
        let first = try await client.template("connectionRefused")
        let second = try await client.template("connectionRefused")
        #expect(second == first, "the stale copy answers at once")
        await client.waitForRevalidations()
        let exchanges = transport.recorded.filter { $0.operationID == "getTemplate" }
        #expect(exchanges.map(\.status) == [200, 304])
        let validator = exchanges.last?.request.headerFields[.ifNoneMatch]
        #expect(validator == first.etag, "If-None-Match is the ETag itself, not %22…%22")
    }

    @Test("with the service killed, the cached copy is served (stale-if-error), then nothing past it")
    func serviceKilled() async throws {
        let service = try LiveService()
        defer { service.stop() }
        let storage = Self.scratch()
        defer { try? FileManager.default.removeItem(at: storage) }
        let configuration = Self.configuration(service.baseURL, locales: ["de"], storage: storage)
        let fetched = try await EmptyStateClient(configuration: configuration, transport: RecordingTransport())
            .template("somethingWentWrong")
        service.kill()

        // The app restarts two days later: past max-age and stale-while-revalidate (1 day), within
        // stale-if-error (7 days). The copy comes from disk, after the service failed to answer.
        let later = Date().addingTimeInterval(2 * 86_400)
        let transport = RecordingTransport()
        let restarted = EmptyStateClient(
            configuration: configuration,
            transport: transport,
            logger: Logger(label: "test"),
            now: { later }
        )
        let served = try await restarted.template("somethingWentWrong")
        #expect(served == fetched)
        #expect(transport.recorded.count == 1 && transport.recorded[0].status == nil, "the service was asked")

        let muchLater = Date().addingTimeInterval(8 * 86_400)
        let tooLate = EmptyStateClient(
            configuration: configuration,
            transport: RecordingTransport(),
            logger: Logger(label: "test"),
            now: { muchLater }
        )
        await #expect(throws: EmptyStateClientError.self) { try await tooLate.template("somethingWentWrong") }
    }

    @Test("a fresh install without network answers from the bundled snapshot")
    func bundledSnapshot() async throws {
        let service = try LiveService()
        let snapshotFile = Self.scratch().appendingPathExtension("json")
        defer { try? FileManager.default.removeItem(at: snapshotFile) }
        // The documented way to make the snapshot: GET /v1/templates?locale=…&platform=….
        try await service.get("/v1/templates?locale=fr&platform=ios").write(to: snapshotFile)
        let dead = service.baseURL
        service.stop()

        let client = EmptyStateClient(
            configuration: Self.configuration(
                dead,
                locales: ["fr-CA", "en"],
                storage: Self.scratch(),
                snapshots: [snapshotFile]
            ),
            transport: RecordingTransport()
        )
        let template = try await client.template("noNetwork")  // an alias
        #expect(template.id == "connectionRefused")
        #expect(template.locale == "fr")
        #expect(template.etag == nil)
        let filled = try await client.template("verifyIdentity", parameters: ["provider": "BankID"])
        #expect(filled.title.contains("BankID") || filled.message?.contains("BankID") == true)
        #expect(filled.placeholders.isEmpty)
    }

    @Test("events meet 503 with Retry-After and a lost response: retried until accepted, exported once")
    func eventsRetried() async throws {
        let service = try LiveService()
        defer { service.stop() }
        let transport = RecordingTransport()
        transport.inject([.unavailable(retryAfter: 1), .unavailable(retryAfter: 1), .lostResponse], into: "postEvents")
        let client = EmptyStateClient(
            configuration: Self.configuration(service.baseURL, locales: ["fr"]),
            transport: transport
        )
        let template = try await client.template("connectionRefused")
        let started = ContinuousClock.now
        let running = Task { await client.run() }
        defer { running.cancel() }
        client.displayed(template)
        client.tapped(template, action: "retry")
        let deadline = ContinuousClock.now + .seconds(30)
        while client.queuedEventCount > 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(client.queuedEventCount == 0)
        #expect(ContinuousClock.now - started >= .seconds(2), "each Retry-After: 1 was waited out")
        let posts = transport.recorded.filter { $0.operationID == "postEvents" }.map(\.status)
        #expect(posts == [503, 503, 202, 202], "the batch is sent until accepted, once more after the lost response")

        let export = try await service.admin("/v1/admin/analytics/events?limit=1000")
        let lines = export.split(separator: "\n").filter { $0.contains("9.9.9-test") }
        #expect(lines.count == 2, "each event stored once:\n\(export)")
        #expect(lines.contains { $0.contains("\"actionId\":\"retry\"") })
        #expect(lines.allSatisfy { $0.contains("\"revision\":\(template.revision ?? 0)") })
    }

    /// The real server answers 503 when its event store stays locked past SQLite's busy timeout
    /// (10 s): another process holds an exclusive transaction on `events.sqlite` for 12 s.
    @Test("the real server answering 503 (its event store locked): retried until accepted, stored once")
    func eventsRetriedOnServer503() async throws {
        let service = try LiveService()
        defer { service.stop() }
        let database = service.dataDirectory.appendingPathComponent("data/events.sqlite").path
        let locker = Process()
        locker.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        locker.arguments = [
            "python3", "-c",
            "import sqlite3, sys, time; c = sqlite3.connect(sys.argv[1], isolation_level=None); "
                + "c.execute('BEGIN EXCLUSIVE'); print('locked', flush=True); time.sleep(12); c.execute('ROLLBACK')",
            database,
        ]
        let output = Pipe()
        locker.standardOutput = output
        try locker.run()
        defer { locker.waitUntilExit() }
        #expect(String(decoding: output.fileHandleForReading.availableData, as: UTF8.self).hasPrefix("locked"))

        var configuration = Self.configuration(service.baseURL, locales: ["fr"])
        configuration.requestTimeout = 20  // longer than the server's 10 s busy timeout
        let transport = RecordingTransport()
        let client = EmptyStateClient(configuration: configuration, transport: transport)
        let template = try await client.template("connectionRefused")
        let running = Task { await client.run() }
        defer { running.cancel() }
        client.displayed(template)
        let deadline = ContinuousClock.now + .seconds(40)
        while client.queuedEventCount > 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
        #expect(client.queuedEventCount == 0)
        let posts = transport.recorded.filter { $0.operationID == "postEvents" }.map(\.status)
        #expect(posts.first == 503 && posts.last == 202, "503 from the server, then accepted: \(posts)")
        let export = try await service.admin("/v1/admin/analytics/events?limit=1000")
        #expect(export.split(separator: "\n").filter { $0.contains("9.9.9-test") }.count == 1, "stored once")
    }

    @Test("events queued when the app was killed are delivered after it restarts")
    func eventsSurviveRestart() async throws {
        let service = try LiveService()
        defer { service.stop() }
        let storage = Self.scratch()
        defer { try? FileManager.default.removeItem(at: storage) }
        let configuration = Self.configuration(service.baseURL, locales: ["en"], storage: storage)
        do {
            // No run(): the app is killed before the batch goes out.
            let client = EmptyStateClient(configuration: configuration, transport: RecordingTransport())
            let template = try await client.template("noSearchResults")
            client.displayed(template)
            client.displayed(template)
            #expect(client.queuedEventCount == 2)
        }
        let restarted = EmptyStateClient(configuration: configuration, transport: RecordingTransport())
        #expect(restarted.queuedEventCount == 2, "read back from disk")
        try await restarted.flush()
        #expect(restarted.queuedEventCount == 0)
        #expect(EmptyStateClient(configuration: configuration, transport: RecordingTransport()).queuedEventCount == 0)
        let export = try await service.admin("/v1/admin/analytics/events?limit=1000")
        #expect(export.split(separator: "\n").filter { $0.contains("9.9.9-test") }.count == 2)
    }

    @Test("with an install id, a template in a running experiment comes with its variant; the header is sent")
    func experimentServed() async throws {
        let service = try LiveService()
        defer { service.stop() }
        func document(_ status: String) -> String {
            #"{"id":"retry-copy","templateId":"connectionRefused","status":""# + status
                + #"","coverage":1,"primaryMetric":{"type":"anyTap"},"variants":[{"key":"control","weight":0.5},"#
                + #"{"key":"b","weight":0.5,"strings":{"en":{"title":"No connection"}}}]}"#
        }
        let created = try await service.adminPut(
            "/v1/admin/experiments/retry-copy",
            json: document("draft"),
            precondition: ("If-None-Match", "*")
        )
        #expect(created == 201)
        let started = try await service.adminPut(
            "/v1/admin/experiments/retry-copy",
            json: document("running"),
            precondition: ("If-Match", "\"r1\"")
        )
        #expect(started == 200)

        var seen: Set<String> = []
        for index in 0..<40 {
            var configuration = Self.configuration(service.baseURL)
            configuration.installID = "install-\(index)"
            let transport = RecordingTransport()
            let client = EmptyStateClient(configuration: configuration, transport: transport)
            let template = try await client.template("connectionRefused")
            let experiment = try #require(template.experiment)
            #expect(experiment.id == "retry-copy")
            #expect(template.title == (experiment.variant == "b" ? "No connection" : "You're offline"))
            seen.insert(experiment.variant)
            #expect(
                transport.recorded.first?.request.headerFields[HTTPField.Name("X-Install-ID")!] == "install-\(index)"
            )
        }
        #expect(seen == ["control", "b"], "40 installs split over both variants")

        // Without an install id: control, and no experiment to report.
        let anonymous = EmptyStateClient(
            configuration: Self.configuration(service.baseURL),
            transport: RecordingTransport()
        )
        let template = try await anonymous.template("connectionRefused")
        #expect(template.experiment == nil)
        #expect(template.title == "You're offline")
    }

    @Test("prefetch caches the whole catalogue, aliases included")
    func prefetch() async throws {
        let service = try LiveService()
        let transport = RecordingTransport()
        let client = EmptyStateClient(
            configuration: Self.configuration(service.baseURL, locales: ["ja"]),
            transport: transport
        )
        let count = try await client.prefetch()
        service.stop()
        #expect(count >= 15)
        let template = try await client.template("noInternetConnection")
        #expect(template.id == "connectionRefused" && template.locale == "ja")
        #expect(transport.recorded.map(\.operationID) == ["listTemplates"])
    }
}
