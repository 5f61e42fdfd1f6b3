import Foundation
import HTTPServer
import Logging
import Synchronization
import Testing

@testable import EmptyStateService

@Suite("Metrics")
struct MetricsTests {
    /// The samples of a Prometheus text exposition by series (`name{labels}`), and its `# TYPE` lines.
    private struct Exposition {
        var samples: [String: Double] = [:]
        var types: [String: String] = [:]

        init(_ text: String) {
            for line in text.split(separator: "\n") {
                let words = line.split(separator: " ")
                if line.hasPrefix("# TYPE "), words.count == 4 {
                    types[String(words[2])] = String(words[3])
                } else if !line.hasPrefix("#"), let space = line.lastIndex(of: " "),
                    let value = Double(line[line.index(after: space)...])
                {
                    samples[String(line[..<space])] = value
                }
            }
        }

        subscript(_ series: String) -> Double? { samples[series] }
    }

    private static let silent: Logger = {
        var logger = Logger(label: "metrics-test")
        logger.logLevel = .critical
        return logger
    }()

    @Test("the server tells its observer the route pattern, method, status and duration of each response")
    func observer() throws {
        let seen = Mutex<[HTTPExchange]>([])
        var router = Router()
        router.get("/v1/templates/{id}") { _ in HTTPResponse(status: 200) }
        router.add(.put, "/v1/things/{id}", blocking: true) { _ in
            usleep(5_000)
            return HTTPResponse(status: 204)
        }
        var configuration = HTTPServerConfiguration()
        configuration.port = 0
        configuration.maxBodySize = 16
        configuration.drainTimeout = 1
        let server = HTTPServer(configuration: configuration, router: router, logger: Self.silent) { exchange in
            seen.withLock { $0.append(exchange) }
        }
        let port = try server.start()
        defer { server.shutdown() }

        /// Sends one request on a new connection and returns its status.
        func send(
            _ method: String,
            _ target: String,
            headers: [(String, String)] = [],
            body: String? = nil
        ) throws
            -> Int
        {
            let connection = try RawHTTPConnection(port: port)
            defer { connection.close() }
            try connection.send(method, target, headers: headers)
            if let body { try connection.write(Array(body.utf8)) }
            return try connection.readResponse(hasBody: method != "HEAD").status
        }
        #expect(try send("GET", "/v1/templates/abc?locale=fr") == 200)
        #expect(try send("HEAD", "/v1/templates/def") == 200)
        #expect(try send("GET", "/no/such/path") == 404)
        #expect(try send("DELETE", "/v1/templates/abc") == 405)
        #expect(try send("PUT", "/v1/things/1", headers: [("Content-Length", "2")], body: "{}") == 204)
        #expect(try send("PUT", "/v1/things/2", headers: [("Content-Length", "100")]) == 413)
        #expect(try send("GET", "/v1/templates/abc?locale=%zz") == 400)
        #expect(try send("GET", "/v1/templates/%ZZ") == 400)

        let exchanges = seen.withLock { $0 }
        let observed = exchanges.map { "\($0.method) \($0.route) \($0.status)" }
        #expect(
            observed == [
                "GET /v1/templates/{id} 200",
                "HEAD /v1/templates/{id} 200",
                "GET unmatched 404",
                "DELETE /v1/templates/{id} 405",
                "PUT /v1/things/{id} 204",
                "PUT /v1/things/{id} 413",
                "GET /v1/templates/{id} 400",
                "GET unmatched 400",
            ]
        )
        for exchange in exchanges {
            #expect(exchange.nanoseconds > 0 && exchange.seconds < 5, "\(exchange.route) \(exchange.status)")
        }
        let blocking = try #require(exchanges.first { $0.status == 204 })
        #expect(blocking.nanoseconds >= 5_000_000, "the blocking handler's time is included")
    }

    @Test("the router names the pattern a path matches, whatever the method")
    func pattern() {
        var router = Router()
        router.get("/healthz") { _ in HTTPResponse(status: 200) }
        router.add(.put, "/v1/admin/templates/{id}") { _ in HTTPResponse(status: 200) }
        #expect(router.pattern(for: "/healthz") == "/healthz")
        #expect(router.pattern(for: "/v1/admin/templates/loading") == "/v1/admin/templates/{id}")
        #expect(router.pattern(for: "/v1/admin/templates/") == nil)
        #expect(router.pattern(for: "/nope") == nil)
    }

    @Test("GET /metrics counts requests by route pattern, method and status, and samples the gauges")
    func application() async throws {
        let dataDirectory = FileManager.default.temporaryDirectory
            .appendingPathComponent("empty-state-metrics-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dataDirectory) }
        var configuration = ServiceConfiguration()
        configuration.http.port = 0
        configuration.http.drainTimeout = 1
        configuration.configDirectory = ServiceFixture.root.appendingPathComponent("config").path
        configuration.openAPIPath = ServiceFixture.root.appendingPathComponent("openapi.yaml").path
        configuration.dataDirectory = dataDirectory.path
        let secret = "metrics-test-secret-0123456789"
        configuration.adminTokens = [AdminToken(name: "metrics-test", role: .editor, secret: secret)]
        let application = try EmptyStateApplication.embedded(configuration: configuration, logger: Self.silent)
        let (port, stop) = try await application.start()
        do {
            try exercise(application, port: port, secret: secret)
        } catch {
            await stop()
            throw error
        }
        await stop()

        func exercise(_ application: EmptyStateApplication, port: Int, secret: String) throws {
            let connection = try RawHTTPConnection(port: port)
            defer { connection.close() }

            func scrape() throws -> Exposition {
                try connection.send("GET", "/metrics")
                let response = try connection.readResponse()
                #expect(response.status == 200)
                #expect(response.header("Content-Type") == "text/plain; version=0.0.4; charset=utf-8")
                #expect(response.header("Cache-Control") == "no-store")
                return Exposition(response.bodyText)
            }

            // Before any request: every fixed series is there, events at 0.
            let before = try scrape()
            let snapshot = application.state.snapshot
            let live = try application.store.liveTemplates()
            #expect(before["catalogue_templates"] == Double(live.count))
            #expect(snapshot.templateCount == live.count)
            #expect(before["catalogue_revision"] == Double(live.map(\.revision).reduce(0, +)))
            #expect((before["http_open_connections"] ?? 0) >= 1, "the scrape's own connection is open")
            #expect(before["http_memo_entries"] == 0, "no client answer is remembered yet")
            for outcome in ["accepted", "duplicate", "rejected"] {
                #expect(before["events_total{outcome=\"\(outcome)\"}"] == 0)
            }
            #expect(before[#"store_commit_duration_seconds_count{store="events"}"#] == 0)
            let commitsBefore = try #require(before[#"store_commit_duration_seconds_count{store="templates"}"#])
            #expect(commitsBefore >= 1, "importing the built-in templates at start is a write transaction")
            #expect(before.types["http_request_duration_seconds"] == nil, "no request has been answered yet")

            for _ in 0..<2 {
                try connection.send("GET", "/v1/templates/connectionRefused?locale=fr&platform=ios")
                #expect(try connection.readResponse().status == 200)
            }
            #expect(try scrape()["http_memo_entries"] == 1, "the repeated request is one remembered answer")
            try connection.send("GET", "/v1/templates/noSuchTemplate")
            #expect(try connection.readResponse().status == 404)
            try connection.send("HEAD", "/healthz")
            #expect(try connection.readResponse(hasBody: false).status == 200)
            try connection.send("GET", "/v2/nothing/here")
            #expect(try connection.readResponse().status == 404)
            // A published change (a blocking admin handler): the revision moves, a template goes.
            let auth = ("Authorization", "Bearer \(secret)")
            try connection.send("GET", "/v1/admin/templates/loading", headers: [auth])
            let current = try connection.readResponse()
            let etag = try #require(current.header("ETag"))
            try connection.send("DELETE", "/v1/admin/templates/loading", headers: [auth, ("If-Match", etag)])
            #expect(try connection.readResponse().status == 204)

            let after = try scrape()
            let requests = #"http_requests_total{route="/v1/templates/{id}",method="GET","#
            #expect(after[requests + #"status="200"}"#] == 2)
            #expect(after[requests + #"status="404"}"#] == 1, "an unknown template is the route's 404")
            #expect(after[#"http_requests_total{route="unmatched",method="GET",status="404"}"#] == 1)
            #expect(after[#"http_requests_total{route="/healthz",method="HEAD",status="200"}"#] == 1)
            #expect(after[#"http_requests_total{route="/v1/admin/templates/{id}",method="GET",status="200"}"#] == 1)
            #expect(after[#"http_requests_total{route="/v1/admin/templates/{id}",method="DELETE",status="204"}"#] == 1)
            #expect(after[#"http_requests_total{route="/metrics",method="GET",status="200"}"#] == 2)
            #expect(after.types["http_requests_total"] == "counter")

            #expect(after.types["http_request_duration_seconds"] == "histogram")
            #expect(after[#"http_request_duration_seconds_count{route="/v1/templates/{id}"}"#] == 3)
            #expect(after[#"http_request_duration_seconds_bucket{route="/v1/templates/{id}",le="+Inf"}"#] == 3)
            #expect(after[#"http_request_duration_seconds_bucket{route="/v1/templates/{id}",le="0.0001"}"#] != nil)
            #expect(after[#"http_request_duration_seconds_bucket{route="/v1/templates/{id}",le="5.0"}"#] == 3)
            #expect((after[#"http_request_duration_seconds_sum{route="/v1/templates/{id}"}"#] ?? 0) > 0)

            #expect(after["http_memo_entries"] == 1, "deleting another template kept the remembered answer")
            #expect(after["catalogue_revision"] == before["catalogue_revision"].map { $0 + 1 })
            #expect(after["catalogue_templates"] == before["catalogue_templates"].map { $0 - 1 })
            #expect(after[#"store_commit_duration_seconds_count{store="templates"}"#] == commitsBefore + 1)
            #expect(after.types["store_commit_duration_seconds"] == "histogram")
            #expect(
                !after.samples.keys.contains { $0.contains("connectionRefused") || $0.contains("/v2/") },
                "raw paths are never labels"
            )

        }
    }

    @Test("events and commits recorded through the metrics type appear under their labels")
    func eventsAndCommits() throws {
        let metrics = ServiceMetrics()
        let other = ServiceMetrics()
        metrics.recordEvents(accepted: 3, duplicates: 1, rejected: 2)
        metrics.recordEvents(accepted: 4, duplicates: 0, rejected: 0)
        metrics.recordCommit(store: "events", seconds: 0.004)
        metrics.record(HTTPExchange(route: "/v1/events", method: .other("BREW"), status: 405, nanoseconds: 30_000))

        let catalogue = try ServiceFixture.snapshot()
        let text = Exposition(String(decoding: metrics.scrape(catalogue: catalogue).bodyBytes, as: UTF8.self))
        #expect(text[#"events_total{outcome="accepted"}"#] == 7)
        #expect(text[#"events_total{outcome="duplicate"}"#] == 1)
        #expect(text[#"events_total{outcome="rejected"}"#] == 2)
        #expect(text.types["events_total"] == "counter")
        #expect(text[#"store_commit_duration_seconds_count{store="events"}"#] == 1)
        #expect(text[#"store_commit_duration_seconds_bucket{store="events",le="0.0025"}"#] == 0)
        #expect(text[#"store_commit_duration_seconds_bucket{store="events",le="0.005"}"#] == 1)
        #expect(text[#"store_commit_duration_seconds_count{store="templates"}"#] == 0)
        #expect(
            text[#"http_requests_total{route="/v1/events",method="other",status="405"}"#] == 1,
            "unknown methods share one label value"
        )
        #expect(text[#"http_request_duration_seconds_bucket{route="/v1/events",le="0.0001"}"#] == 1)
        #expect(text["catalogue_templates"] == Double(catalogue.templateCount))

        // Each instance has its own registry: nothing global is shared.
        let fresh = Exposition(String(decoding: other.scrape(catalogue: catalogue).bodyBytes, as: UTF8.self))
        #expect(fresh[#"events_total{outcome="accepted"}"#] == 0)
        #expect(fresh.types["http_requests_total"] == nil)
    }
}
