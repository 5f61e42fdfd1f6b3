import EmptyStateCore
import EmptyStateSQLite
import EmptyStateStore
import Foundation
import HTTPServer
import JSONCoding
import Logging
import Testing

@testable import EmptyStateService

/// The admin API with an event store beside the templates (SQLite, a directory of its own), as
/// the results and the ship of an experiment meet them.
final class ShipFixture: Sendable {
    static let editor = ("Authorization", "Bearer editor-secret-0123456789")
    static let viewer = ("Authorization", "Bearer viewer-secret-0123456789")

    let store: SQLiteTemplateStore
    let events: SQLiteEventStore
    let state: CatalogueState
    let router: Router

    init() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "experiments-\(UUID().uuidString)"
        )
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let logger = Logger(label: "test")
        store = try SQLiteTemplateStore(path: directory.appendingPathComponent("store.sqlite").path, logger: logger)
        try store.importBuiltins(try ServiceFixture.catalogue().templates)
        events = try SQLiteEventStore(path: directory.appendingPathComponent("events.sqlite").path, logger: logger)
        events.start()
        state = CatalogueState(try ServiceFixture.snapshot())
        try state.republish(from: store)
        var quiet = logger
        quiet.logLevel = .critical
        var router = Router()
        AdminAPI(
            store: store,
            state: state,
            authorization: AdminAuthorization(tokens: [
                AdminToken(name: "alice", role: .editor, secret: "editor-secret-0123456789"),
                AdminToken(name: "victor", role: .viewer, secret: "viewer-secret-0123456789"),
            ]),
            logger: quiet,
            translations: TranslationCatalogue(state: state, store: store),
            importLimits: TranslationImportLimits(maximumBytes: ServiceConfiguration().maxImportSize),
            events: events
        ).register(on: &router)
        self.router = router
    }

    deinit { events.stop() }

    func send(
        _ method: HTTPMethod,
        _ path: String,
        headers: [(name: String, value: String)] = [],
        json: String? = nil
    ) -> HTTPResponse {
        var all = headers
        if json != nil { all.append(("Content-Type", "application/json")) }
        var request = HTTPRequest(
            method: method,
            path: path,
            query: [],
            headers: HTTPHeaders(all),
            body: Array((json ?? "").utf8),
            id: "test"
        )
        guard case .handler(let handler, let parameters) = router.match(method: method, path: path) else {
            return HTTPResponse(status: 404)
        }
        request.pathParameters = parameters
        return handler(request)
    }

    /// Creates the experiment `retry-copy` on connectionRefused (control, and `b` with another
    /// English title), as a draft or started.
    func createExperiment(running: Bool, metric: String = #"{"type":"tap","action":"retry"}"#) throws {
        let document = { (status: String) in
            """
            {"id":"retry-copy","templateId":"connectionRefused","status":"\(status)","coverage":1,
             "primaryMetric":\(metric),
             "variants":[{"key":"control","weight":0.5},
                         {"key":"b","weight":0.5,"strings":{"en":{"title":"Connection lost"}}}]}
            """
        }
        let created = send(
            .put,
            "/v1/admin/experiments/retry-copy",
            headers: [Self.editor, ("If-None-Match", "*")],
            json: document("draft")
        )
        try #require(created.status == 201, "\(created.bodyText)")
        guard running else { return }
        let started = send(
            .put,
            "/v1/admin/experiments/retry-copy",
            headers: [Self.editor, ("If-Match", #""r1""#)],
            json: document("running")
        )
        try #require(started.status == 200, "\(started.bodyText)")
    }

    /// An event of `install` in variant `key` of retry-copy, now.
    func event(_ install: String, _ key: String, tap action: String? = nil) -> AnalyticsEvent {
        let now = Timestamp.nowMilliseconds()
        return AnalyticsEvent(
            id: UUID().uuidString.lowercased(),
            kind: action == nil ? .displayed : .actionTapped,
            templateID: "connectionRefused",
            revision: 1,
            etag: nil,
            locale: "en",
            platform: "ios",
            appVersion: "1.0.0",
            actionID: action,
            sessionID: nil,
            occurredAt: now,
            receivedAt: now,
            clockSkewMilliseconds: 0,
            requestID: "test",
            variant: "retry-copy/\(key)",
            installID: install
        )
    }
}

@Suite("Experiments: results and shipping the winner")
struct ExperimentShipAndResultsTests {
    @Test("results: 404 for an unknown experiment; a draft answers zero counts and collecting")
    func unknownAndDraft() throws {
        let fixture = try ShipFixture()
        let unknown = fixture.send(.get, "/v1/admin/experiments/nope/results", headers: [ShipFixture.viewer])
        #expect(unknown.status == 404)
        #expect(try unknown.json()["type"] == "urn:empty-state:problem:unknown-experiment")

        try fixture.createExperiment(running: false)
        let draft = fixture.send(.get, "/v1/admin/experiments/retry-copy/results", headers: [ShipFixture.viewer])
        #expect(draft.status == 200)
        let body = try draft.json()
        #expect(body["verdict"] == "collecting")
        #expect(body["status"] == "draft")
        #expect(body["excludedInstalls"] == 0)
        let variants = try #require(body["variants"]?.arrayValue)
        #expect(variants.map { $0["key"] } == ["control", "b"])
        #expect(variants.map { $0["installs"] } == [0, 0])
        #expect(variants.map { $0["displayed"] } == [0, 0])
        #expect(variants[0]["control"] == .bool(true))
        #expect(variants[0]["difference"] == nil)
    }

    @Test("results: installs and conversions from the exposures, events from the rollups, crossed excluded")
    func countsOfARunningExperiment() throws {
        let fixture = try ShipFixture()
        try fixture.createExperiment(running: true)
        var batch: [AnalyticsEvent] = []
        // 150 installs a variant (above the minimum); control converts 15, b 45 on retry.
        for index in 0..<150 {
            batch.append(fixture.event("c\(index)", "control"))
            batch.append(fixture.event("c\(index)", "control"))
            if index < 15 { batch.append(fixture.event("c\(index)", "control", tap: "retry")) }
            if index == 20 { batch.append(fixture.event("c\(index)", "control", tap: "back")) }
            batch.append(fixture.event("b\(index)", "b"))
            if index < 45 { batch.append(fixture.event("b\(index)", "b", tap: "retry")) }
        }
        batch.append(fixture.event("both", "control"))
        batch.append(fixture.event("both", "b"))
        _ = try fixture.events.append(batch, quarantined: [])
        try fixture.events.foldRollups()

        let response = fixture.send(
            .get,
            "/v1/admin/experiments/retry-copy/results",
            headers: [ShipFixture.viewer]
        )
        #expect(response.status == 200)
        let body = try response.json()
        #expect(body["primaryMetric"] == .object([("action", "retry"), ("type", "tap")]))
        #expect(body["excludedInstalls"] == 1)
        #expect(body["enoughData"] == .bool(true))
        let variants = try #require(body["variants"]?.arrayValue)
        #expect(variants.map { $0["installs"] } == [150, 150])
        #expect(variants.map { $0["conversions"] } == [15, 45])
        // Events: the crossed install's displays are events all the same.
        #expect(variants.map { $0["displayed"] } == [301, 151])
        #expect(variants.map { $0["tapped"] } == [15, 45])  // taps of retry, the metric
        // The fixed-horizon z-test, read once, calls b; the sequential verdict, valid however
        // often the results are read, needs more installs at this size: keep running.
        #expect(variants[1]["significant"] == .bool(true))
        #expect(body["fixedHorizonVerdict"] == "winner")
        #expect(body["fixedHorizonWinner"] == "b")
        #expect(body["verdict"] == "keep-running")
        #expect(body["winner"] == nil)
        let sequential = try #require(variants[1]["sequential"])
        #expect(abs((sequential["difference"]?.numberValue ?? 0) - 0.2) < 1e-9)
        let lower = try #require(sequential["lower"]?.numberValue)
        let fixedLower = try #require(variants[1]["difference"]?["lower"]?.numberValue)
        #expect(lower < 0 && lower < fixedLower, "the confidence sequence is wider than the one-look interval")
        #expect(sequential["significant"] == .bool(false))
        #expect(variants[0]["sequential"] == nil)
        #expect(body["verdictText"]?.stringValue?.isEmpty == false)
        // No plan was set: the results say so, and have no progress.
        #expect(body["plan"] == nil && body["progress"] == nil)
        #expect(body["verdictText"]?.stringValue?.contains("There is no plan") == true, "\(body["verdictText"] ?? nil)")
        #expect(
            body["excluded"]
                == .object([
                    ("afterStop", 0), ("beforeStart", 0), ("crossed", 1), ("notAssigned", 0), ("outsideTarget", 0),
                    ("override", 0),
                ])
        )
        // One day so far: today's cumulative counts.
        let timeline = try #require(body["timeline"]?.arrayValue)
        #expect(timeline.count == 1)
        #expect(timeline.last?["variants"]?.arrayValue?.map { $0["installs"] } == [150, 150])
    }

    @Test("ship: the variant's copy becomes the template's revision, served; the experiment is shipped")
    func shipTheWinner() throws {
        let fixture = try ShipFixture()
        try fixture.createExperiment(running: false)
        let before = try fixture.store.template(id: "connectionRefused")
        let path = "/v1/admin/experiments/retry-copy/ship"
        let draft = fixture.send(
            .post,
            path,
            headers: [ShipFixture.editor, ("If-Match", #""r1""#)],
            json: #"{"variant":"b"}"#
        )
        #expect(draft.status == 409)

        try fixture.createExperimentStarted()
        let viewer = fixture.send(
            .post,
            path,
            headers: [ShipFixture.viewer, ("If-Match", #""r2""#)],
            json: #"{"variant":"b"}"#
        )
        #expect(viewer.status == 403)
        let noPrecondition = fixture.send(.post, path, headers: [ShipFixture.editor], json: #"{"variant":"b"}"#)
        #expect(noPrecondition.status == 428)
        let stale = fixture.send(
            .post,
            path,
            headers: [ShipFixture.editor, ("If-Match", #""r1""#)],
            json: #"{"variant":"b"}"#
        )
        #expect(stale.status == 412)
        let unknownVariant = fixture.send(
            .post,
            path,
            headers: [ShipFixture.editor, ("If-Match", #""r2""#)],
            json: #"{"variant":"zz"}"#
        )
        #expect(unknownVariant.status == 422)
        #expect(try unknownVariant.json()["errors"]?.arrayValue?.first?["pointer"] == "/variant")

        let shipped = fixture.send(
            .post,
            path,
            headers: [ShipFixture.editor, ("If-Match", #""r2""#)],
            json: #"{"variant":"b"}"#
        )
        #expect(shipped.status == 200, "\(shipped.bodyText)")
        let body = try shipped.json()
        #expect(body["shippedRevision"] == .number(Double(before.revision + 1)))
        #expect(body["experiment"]?["status"] == "shipped")
        #expect(body["experiment"]?["stoppedAt"]?.stringValue != nil)
        #expect(shipped.header("ETag") == #""r3""#)
        #expect(
            shipped.header("Link")
                == "</v1/admin/templates/connectionRefused/revisions/\(before.revision + 1)>; rel=\"related\""
        )
        let after = try fixture.store.template(id: "connectionRefused")
        #expect(after.revision == before.revision + 1)
        #expect(after.template.strings.first { $0.locale == "en" }?.values["title"] == "Connection lost")
        // The other locales keep their copy.
        #expect(
            after.template.strings.first { $0.locale == "fr" }?.values
                == before.template.strings.first { $0.locale == "fr" }?.values
        )
        // Published to what clients are served, and audited under the editor.
        #expect(fixture.state.snapshot.entry(named: "connectionRefused")?.revision == after.revision)
        #expect(
            try fixture.store.revisions(id: "connectionRefused", page: 1, pageSize: 1).items.first?.createdBy == "alice"
        )

        // The client API serves the shipped copy to every install, outside any experiment.
        let client = ClientAPI(state: fixture.state, cacheControl: ServiceFixture.cacheControl)
        for install in ["install-1", "install-2", "install-3", "install-4", nil] {
            let served = client.template(
                ServiceFixture.request(
                    "connectionRefused",
                    query: [("locale", "en")],
                    headers: install.map { [("X-Install-ID", $0)] } ?? []
                )
            )
            let json = try served.json()
            #expect(json["title"] == "Connection lost")
            #expect(json["experiment"] == nil)
            #expect(json["revision"] == .number(Double(after.revision)))
        }

        let again = fixture.send(
            .post,
            path,
            headers: [ShipFixture.editor, ("If-Match", #""r3""#)],
            json: #"{"variant":"b"}"#
        )
        #expect(again.status == 409)
    }
}

extension ShipFixture {
    /// Starts the draft `retry-copy` made by `createExperiment(running: false)`.
    fileprivate func createExperimentStarted() throws {
        let started = send(
            .put,
            "/v1/admin/experiments/retry-copy",
            headers: [Self.editor, ("If-Match", #""r1""#)],
            json: """
                {"id":"retry-copy","templateId":"connectionRefused","status":"running","coverage":1,
                 "primaryMetric":{"type":"tap","action":"retry"},
                 "variants":[{"key":"control","weight":0.5},
                             {"key":"b","weight":0.5,"strings":{"en":{"title":"Connection lost"}}}]}
                """
        )
        try #require(started.status == 200, "\(started.bodyText)")
    }
}
