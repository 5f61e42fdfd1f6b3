import EmptyStateCore
import EmptyStateSQLite
import EmptyStateStore
import Foundation
import HTTPServer
import JSONCoding
import Synchronization
import Testing

@testable import EmptyStateService

private func stored(
    _ platform: Platform = .ios,
    latest: String = "5.3.0",
    rollout: Int = 100,
    revision: Int = 1
)
    -> StoredAppPolicy
{
    StoredAppPolicy(
        policy: AppPolicy(
            platform: platform,
            minimumVersion: AppVersion("5.0")!,
            latestVersion: AppVersion(latest)!,
            minimumOSVersion: AppVersion("16")!,
            blockedVersions: [AppVersion("5.1.2")!],
            storeURL: "https://apps.apple.com/app/id123456789",
            rolloutPercentage: rollout
        ),
        revision: revision,
        updatedAt: "",
        updatedBy: "test"
    )
}

private func request(
    _ query: [(name: String, value: String)],
    headers: [(name: String, value: String)] = []
) -> ClientAPI.Request {
    ClientAPI.Request(
        HTTPRequest(
            method: .get,
            path: "/v1/app-status",
            query: query,
            headers: HTTPHeaders(headers),
            id: "test-request"
        )
    )
}

/// A client API over the built-in catalogue and the iOS policy, recording what publications invalidate.
private func api(policy: StoredAppPolicy? = stored()) throws -> (ClientAPI, CatalogueState, Swaps) {
    let swaps = Swaps()
    let state = CatalogueState(try ServiceFixture.snapshot()) { swaps.append($0) }
    if let policy { state.publish(policy: policy) }
    return (ClientAPI(state: state, cacheControl: ServiceFixture.cacheControl), state, swaps)
}

/// A store for `publish`'s fallback (never used by these in-memory changes).
private func scratchStore() throws -> SQLiteTemplateStore {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("app-status-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return try SQLiteTemplateStore(
        path: directory.appendingPathComponent("store.sqlite").path,
        logger: .init(label: "test")
    )
}

@Suite("GET /v1/app-status")
struct AppStatusAPITests {
    @Test(
        "each state answers with its template in the negotiated locale and the store URL",
        arguments: [
            ("5.2.0", "17.4", "fr", "updateAvailable", "optionalUpdateAvailable", "Mise à jour disponible"),
            ("4.9", "17.4", "ja", "updateRequired", "appUpdateRequired", "アップデートが必要です"),
            ("5.1.2", "17.4", "de", "updateRequired", "appUpdateRequired", "Update erforderlich"),
            ("5.3", "15.7", "es", "osUpdateRequired", "osUpdateRequired", "Actualización de software necesaria"),
        ]
    )
    func states(app: String, os: String, locale: String, state: String, template: String, title: String) throws {
        let (client, _, _) = try api()
        let response = client.appStatus(
            request([("platform", "ios"), ("appVersion", app), ("osVersion", os), ("locale", locale)])
        )
        #expect(response.status == 200)
        let body = try response.json()
        #expect(body["state"] == .string(state))
        #expect(body["template"]?["id"] == .string(template))
        #expect(body["template"]?["locale"] == .string(locale))
        #expect(body["template"]?["title"] == .string(title))
        #expect(response.header("Content-Language") == locale)
        if state == "osUpdateRequired" {
            #expect(body["storeUrl"] == .null)
        } else {
            #expect(body["storeUrl"] == .string("https://apps.apple.com/app/id123456789"))
            let update = body["template"]?["actions"]?.arrayValue?.first
            #expect(update?["target"] == .string("https://apps.apple.com/app/id123456789"))
        }
        #expect(body["askAgainAfterSeconds"] == (state == "updateAvailable" ? .number(86_400) : .null))
    }

    @Test("current apps and platforms without a policy are ok, with no template and no language")
    func ok() throws {
        let (client, _, _) = try api()
        for query in [
            [("platform", "ios"), ("appVersion", "5.3.0")],
            [("platform", "android"), ("appVersion", "0.1")],
        ] {
            let response = client.appStatus(request(query))
            #expect(try response.json()["state"] == .string("ok"))
            #expect(try response.json()["template"] == .null)
            #expect(response.header("Content-Language") == nil)
        }
    }

    @Test("ETag and 304; Vary names Accept-Language without ?locale=; remembered under the platform's name")
    func caching() throws {
        let (client, _, _) = try api()
        let query = [("platform", "ios"), ("appVersion", "5.2.0")]
        let first = client.appStatus(request(query, headers: [("Accept-Language", "fr")]))
        let etag = try #require(first.header("ETag"))
        #expect(first.header("Vary") == "Accept-Language, Accept-Encoding")
        #expect(first.catalogueTag == .appStatus(.ios))
        let again = client.appStatus(request(query, headers: [("Accept-Language", "fr"), ("If-None-Match", etag)]))
        #expect(again.status == 304)
        let german = client.appStatus(request(query, headers: [("Accept-Language", "de"), ("If-None-Match", etag)]))
        #expect(german.status == 200)
        // With an instance id the answer is the same kind, but not remembered (one entry per device).
        let device = client.appStatus(request(query + [("instanceId", "c0ffee")]))
        #expect(device.memoTag == nil)
    }

    @Test("the rollout bucket of the instance id decides updateAvailable; without one only 100 % offers it")
    func rollout() throws {
        let (client, _, _) = try api(policy: stored(rollout: 50))
        var offered = 0
        for index in 0..<200 {
            let id = "device-\(index)"
            let body = try client.appStatus(
                request([("platform", "ios"), ("appVersion", "5.2.0"), ("instanceId", id)])
            ).json()
            let bucket = RolloutBucket.of(instanceID: id, latestVersion: AppVersion("5.3.0")!)
            #expect(body["state"] == .string(bucket < 50 ? "updateAvailable" : "ok"))
            if bucket < 50 { offered += 1 }
        }
        #expect((60...140).contains(offered))
        let anonymous = client.appStatus(request([("platform", "ios"), ("appVersion", "5.2.0")]))
        #expect(try anonymous.json()["state"] == .string("ok"))
    }

    @Test("a malformed or missing version or platform is 400 naming each parameter")
    func badRequests() throws {
        let (client, _, _) = try api()
        let cases: [([(name: String, value: String)], [String])] = [
            ([("platform", "ios"), ("appVersion", "5.x")], ["appVersion"]),
            ([("platform", "ios"), ("appVersion", "1.2.3.4"), ("osVersion", "17..4")], ["appVersion", "osVersion"]),
            ([("appVersion", "5")], ["platform"]),
            ([("platform", "tvos"), ("appVersion", "5")], ["platform"]),
            ([("platform", "ios")], ["appVersion"]),
            (
                [("platform", "ios"), ("appVersion", "5"), ("instanceId", String(repeating: "x", count: 129))],
                ["instanceId"]
            ),
        ]
        for (query, parameters) in cases {
            let response = client.appStatus(request(query))
            #expect(response.status == 400)
            #expect(response.header("Content-Type") == "application/problem+json")
            let named = try response.json()["errors"]?.arrayValue?.compactMap { $0["parameter"]?.stringValue }
            #expect(named == parameters)
        }
    }

    @Test("param.* fills the template for this request only")
    func placeholders() throws {
        let (client, _, _) = try api()
        let response = client.appStatus(
            request([("platform", "ios"), ("appVersion", "4"), ("locale", "en"), ("param.name", "x")])
        )
        #expect(response.status == 200)
        #expect(response.memoTag == nil)
    }

    @Test("a policy change is served on the next request and forgets only that platform's answers")
    func policyPublish() throws {
        let (client, state, swaps) = try api()
        let bundle = state.snapshot.bundle(locale: "fr", platform: .ios)
        let query = [("platform", "ios"), ("appVersion", "5.2.0")]
        #expect(try client.appStatus(request(query)).json()["state"] == .string("updateAvailable"))
        swaps.reset()
        var stricter = stored(revision: 2)
        stricter.policy.minimumVersion = AppVersion("5.2.1")!
        state.publish(policy: stricter)
        #expect(try client.appStatus(request(query)).json()["state"] == .string("updateRequired"))
        #expect(swaps.all == [.tags([.appStatus(.ios)])])
        // The templates and bundles are shared, not rebuilt.
        #expect(state.snapshot.bundle(locale: "fr", platform: .ios) === bundle)
        // An older revision is not served again.
        state.publish(policy: stored(revision: 1))
        #expect(try client.appStatus(request(query)).json()["state"] == .string("updateRequired"))
    }

    @Test("the template is what GET /v1/templates/{id} answers, its revision included, but for the store URL")
    func templateAsServed() throws {
        let (client, state, _) = try api()
        let required = try #require(try ServiceFixture.catalogue().template(named: "appUpdateRequired"))
        try state.publish(
            .upsert(StoredTemplate(template: required, revision: 7, updatedAt: "", updatedBy: "t")),
            store: try scratchStore()
        )
        let status = try client.appStatus(request([("platform", "ios"), ("appVersion", "4"), ("locale", "fr")])).json()
        let served = try client.template(
            ServiceFixture.request("appUpdateRequired", query: [("locale", "fr"), ("platform", "ios")])
        ).json()
        guard case .object(let statusMembers)? = status["template"], case .object(let servedMembers) = served else {
            Issue.record("no template object: \(status)")
            return
        }
        #expect(status["template"]?["revision"] == .number(7))
        #expect(statusMembers.map(\.key) == servedMembers.map(\.key))
        for (key, value) in servedMembers where key != "actions" {
            #expect(status["template"]?[key] == value, "member \(key)")
        }
        // The one difference: the openStore action's target is the policy's store URL.
        let actions = try #require(status["template"]?["actions"]?.arrayValue)
        #expect(actions.first?["target"] == .string("https://apps.apple.com/app/id123456789"))
        #expect(actions.count == served["actions"]?.arrayValue?.count)
    }

    @Test("a change of an update template forgets the app-status answers; another template's does not")
    func templatePublish() throws {
        let (client, state, swaps) = try api()
        let catalogue = try ServiceFixture.catalogue()
        var required = try #require(catalogue.template(named: "appUpdateRequired"))
        let en = try #require(required.strings.firstIndex { $0.locale == "en" })
        required.strings[en].values["title"] = "Please update"
        swaps.reset()
        try state.publish(
            .upsert(StoredTemplate(template: required, revision: 2, updatedAt: "", updatedBy: "t")),
            store: try scratchStore()
        )
        let tags = try #require(swaps.tags(at: 0))
        #expect(tags.isSuperset(of: CatalogueMemoTag.everyAppStatus))
        let body = try client.appStatus(request([("platform", "ios"), ("appVersion", "4"), ("locale", "en")])).json()
        #expect(body["template"]?["title"] == .string("Please update"))

        var loading = try #require(catalogue.template(named: "loading"))
        loading.strings[0].values["title"] = "…"
        swaps.reset()
        try state.publish(
            .upsert(StoredTemplate(template: loading, revision: 2, updatedAt: "", updatedBy: "t")),
            store: try scratchStore()
        )
        #expect(swaps.tags(at: 0)?.isDisjoint(with: CatalogueMemoTag.everyAppStatus) == true)
    }
}

@Suite("Policies written by another replica")
struct PolicyReplicaTests {
    @Test("refreshPolicies publishes what another process committed, and only what is newer")
    func refresh() throws {
        let here = try scratchStore()
        // Another replica: another connection pool on the same database file.
        let there = try SQLiteTemplateStore(path: here.path, logger: .init(label: "replica"))
        let (client, state, swaps) = try api(policy: nil)
        #expect(try state.refreshPolicies(from: here).isEmpty)

        _ = try there.putPolicy(stored().policy, precondition: .absent, actor: "elsewhere")
        let query = [("platform", "ios"), ("appVersion", "4.0")]
        #expect(try client.appStatus(request(query)).json()["state"] == .string("ok"))
        swaps.reset()
        #expect(try state.refreshPolicies(from: here) == [.ios])
        #expect(try client.appStatus(request(query)).json()["state"] == .string("updateRequired"))
        #expect(swaps.all == [.tags([.appStatus(.ios)])])
        #expect(try state.refreshPolicies(from: here).isEmpty)
    }
}
