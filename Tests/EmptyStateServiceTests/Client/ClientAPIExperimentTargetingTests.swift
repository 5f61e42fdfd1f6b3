import EmptyStateCore
import EmptyStateStore
import HTTPServer
import JSONCoding
import Logging
import Testing

@testable import EmptyStateService

/// Serving a targeted experiment and QA overrides (issue 35): a caller outside the target gets
/// the base copy and no experiment member; an overridden install gets its forced variant
/// whatever the hash and the target say; a malformed attribute header is a 400 naming it.
@Suite("ClientAPI: experiment targeting and QA overrides")
struct ClientAPIExperimentTargetingTests {
    static let startedAt = "2026-11-28T10:00:00Z"

    static func experiment(
        targeting: ExperimentTargeting = .init(),
        overrides: [ExperimentOverride] = []
    ) -> Experiment {
        var experiment = ExperimentFixture.experiment()
        experiment.targeting = targeting
        experiment.overrides = overrides
        experiment.startedAt = startedAt
        return experiment
    }

    private func variant(
        _ api: ClientAPI,
        install: String,
        query: [(name: String, value: String)] = [("locale", "en")],
        headers: [(name: String, value: String)] = []
    ) throws -> String? {
        let response = api.template(
            ServiceFixture.request("connectionRefused", query: query, headers: headers + [("X-Install-ID", install)])
        )
        #expect(response.status == 200, "\(response.bodyText)")
        return try response.json()["experiment"]?["variant"]?.stringValue
    }

    private func api(_ experiment: Experiment) throws -> ClientAPI {
        ClientAPI(state: try ExperimentFixture.state(experiment), cacheControl: ServiceFixture.cacheControl)
    }

    @Test("platforms and locales: outside them the base copy without the member; inside, the hash's variant")
    func platformAndLocale() throws {
        let api = try api(Self.experiment(targeting: .init(platforms: [.ios, .android], locales: ["en"])))
        let b = ExperimentFixture.install(getting: "b")
        // No platform is web: outside.
        #expect(try variant(api, install: b) == nil)
        #expect(try variant(api, install: b, query: [("locale", "en"), ("platform", "web")]) == nil)
        #expect(try variant(api, install: b, query: [("locale", "en"), ("platform", "ios")]) == "b")
        #expect(try variant(api, install: b, query: [("locale", "fr"), ("platform", "ios")]) == nil)
        // Negotiated from Accept-Language, the served locale decides.
        #expect(
            try variant(api, install: b, query: [("platform", "android")], headers: [("Accept-Language", "en-GB")])
                == "b"
        )
        let control = ExperimentFixture.install(getting: "control")
        #expect(try variant(api, install: control, query: [("locale", "en"), ("platform", "ios")]) == "control")
        // Outside the target, the answer is the template's own copy.
        let outside = api.template(
            ServiceFixture.request("connectionRefused", query: [("locale", "en")], headers: [("X-Install-ID", b)])
        )
        #expect(try outside.json()["title"] == .string("You're offline"))
    }

    @Test("an app version range reads X-App-Version; without it, or malformed, the install is not in")
    func appVersionRange() throws {
        let api = try api(
            Self.experiment(
                targeting: .init(minimumAppVersion: AppVersion("5.2"), maximumAppVersion: AppVersion("6.0.0"))
            )
        )
        let b = ExperimentFixture.install(getting: "b")
        #expect(try variant(api, install: b) == nil)
        #expect(try variant(api, install: b, headers: [("X-App-Version", "5.2.0")]) == "b")
        #expect(try variant(api, install: b, headers: [("X-App-Version", "6.0.0")]) == "b")
        #expect(try variant(api, install: b, headers: [("X-App-Version", "6.0.1")]) == nil)
        #expect(try variant(api, install: b, headers: [("X-App-Version", "5.1.99")]) == nil)
        let bad = api.template(
            ServiceFixture.request(
                "connectionRefused",
                query: [("locale", "en")],
                headers: [("X-Install-ID", b), ("X-App-Version", "five"), ("X-Installed-At", "yesterday")]
            )
        )
        #expect(bad.status == 400)
        let json = try bad.json()
        #expect(json["type"] == .string("urn:empty-state:problem:invalid-install-attributes"))
        #expect(
            json["errors"]?.arrayValue?.compactMap { $0["header"]?.stringValue } == ["X-App-Version", "X-Installed-At"]
        )
    }

    @Test("new installs: X-Installed-At at or after startedAt; an older install or none is not in")
    func newInstalls() throws {
        let api = try api(Self.experiment(targeting: .init(newInstallsOnly: true)))
        let b = ExperimentFixture.install(getting: "b")
        #expect(try variant(api, install: b, headers: [("X-Installed-At", Self.startedAt)]) == "b")
        #expect(try variant(api, install: b, headers: [("X-Installed-At", "2026-11-29T08:00:00+02:00")]) == "b")
        #expect(try variant(api, install: b, headers: [("X-Installed-At", "2026-11-28T09:59:59Z")]) == nil)
        #expect(try variant(api, install: b) == nil)
    }

    @Test("a QA override serves its variant whatever the hash and the target say; nobody else moves")
    func overrides() throws {
        let control = ExperimentFixture.install(getting: "control")
        let b = ExperimentFixture.install(getting: "b")
        let plain = try api(Self.experiment())
        let api = try api(
            Self.experiment(
                targeting: .init(platforms: [.ios]),
                overrides: [ExperimentOverride(installID: control, variant: "b")]
            )
        )
        // Forced to b on the web, outside the target, though the hash gives it control.
        #expect(try variant(api, install: control) == "b")
        #expect(try variant(api, install: control, query: [("locale", "en"), ("platform", "ios")]) == "b")
        // The others keep their places.
        #expect(try variant(api, install: b, query: [("locale", "en"), ("platform", "ios")]) == "b")
        for index in 0..<200 {
            let id = "install-\(index)"
            guard id != control else { continue }
            let query = [("locale", "en"), ("platform", "ios")]
            #expect(try variant(api, install: id, query: query) == variant(plain, install: id))
        }
        // In the bundle too.
        let bundle = api.bundle(
            ServiceFixture.request(query: [("locale", "en")], headers: [("X-Install-ID", control)])
        )
        let item = try bundle.json()["templates"]?.arrayValue?.first { $0["id"] == "connectionRefused" }
        #expect(item?["experiment"]?["variant"] == .string("b"))
        #expect(item?["title"] == .string(ExperimentFixture.title))
    }

    @Test("HTML: the target and the overrides apply as to the JSON")
    func html() throws {
        let b = ExperimentFixture.install(getting: "b")
        let web = WebAPI(
            client: try api(
                Self.experiment(
                    targeting: .init(platforms: [.ios]),
                    overrides: [ExperimentOverride(installID: "qa-web", variant: "b")]
                )
            ),
            illustrationBaseURL: nil
        )
        func html(_ install: String, platform: String) -> HTTPResponse {
            var request = HTTPRequest(
                method: .get,
                path: "/v1/web/templates/connectionRefused",
                query: [("locale", "en"), ("platform", platform)],
                headers: HTTPHeaders([("X-Install-ID", install)]),
                id: "test-request"
            )
            request.pathParameters["id"] = "connectionRefused"
            return web.html(ClientAPI.Request(request), page: false)
        }
        #expect(html(b, platform: "ios").bodyText.contains("data-variant=\"b\""))
        #expect(!html(b, platform: "web").bodyText.contains("data-experiment-id"))
        #expect(html("qa-web", platform: "web").bodyText.contains("data-variant=\"b\""))
    }

    @Test("bundles: the target sees the bundle's locale and platform")
    func bundleTarget() throws {
        let api = try api(Self.experiment(targeting: .init(platforms: [.android])))
        let b = ExperimentFixture.install(getting: "b")
        func served(_ platform: String) throws -> String? {
            let response = api.bundle(
                ServiceFixture.request(
                    query: [("locale", "en"), ("platform", platform)],
                    headers: [("X-Install-ID", b)]
                )
            )
            let item = try response.json()["templates"]?.arrayValue?.first { $0["id"] == "connectionRefused" }
            return item?["experiment"]?["variant"]?.stringValue
        }
        #expect(try served("android") == "b")
        #expect(try served("ios") == nil)
    }

    @Test("events: an override's are stored as =<key>, an outsider's as !<key>, an assigned install's as sent")
    func ingestPlacement() throws {
        let control = ExperimentFixture.install(getting: "control")
        let b = ExperimentFixture.install(getting: "b")
        let harness = try IngestHarness()
        defer { harness.store.stop() }
        let state = try ExperimentFixture.state(
            Self.experiment(
                targeting: .init(platforms: [.ios], minimumAppVersion: AppVersion("5.0")),
                overrides: [ExperimentOverride(installID: "qa-device", variant: "b")]
            )
        )
        let ingest = EventIngest(
            state: state,
            store: harness.store,
            retentionMilliseconds: 90 * IngestHarness.day,
            logger: Logger(label: "test"),
            onOutcome: nil
        )
        func stored(
            _ install: String,
            _ variant: String,
            platform: String = "ios",
            appVersion: String = "5.2.0"
        )
            throws -> String?
        {
            let event = IngestJSON.event([
                "experimentId": "retry-copy", "variant": .string(variant), "installId": .string(install),
                "platform": .string(platform), "appVersion": .string(appVersion),
            ])
            switch ingest.validate(
                event,
                snapshot: state.snapshot,
                receivedAt: Timestamp.nowMilliseconds(),
                requestID: "r"
            )
            {
            case .success(let accepted): return accepted.variant
            case .failure(let rejection): throw rejection
            }
        }
        #expect(try stored(b, "b") == "retry-copy/b")
        #expect(try stored(control, "control") == "retry-copy/control")
        #expect(try stored("qa-device", "b") == "retry-copy/=b")
        #expect(try stored("qa-device", "b", platform: "web") == "retry-copy/=b")
        #expect(try stored(b, "b", platform: "android") == "retry-copy/!b")
        #expect(try stored(b, "b", appVersion: "4.9") == "retry-copy/!b")
        #expect(try stored(b, "b", appVersion: "not a version") == "retry-copy/!b")
        #expect(try stored(control, "b") == "retry-copy/~b")
    }
}
