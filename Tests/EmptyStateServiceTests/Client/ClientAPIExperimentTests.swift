import EmptyStateCore
import EmptyStateStore
import HTTPServer
import JSONCoding
import Testing

@testable import EmptyStateService

/// A running experiment on `connectionRefused` over the built-in catalogue: control and `b`,
/// whose English title differs.
enum ExperimentFixture {
    static let title = "No connection"

    static func experiment(
        status: Experiment.Status = .running,
        coverage: Double = 1,
        id: String = "retry-copy"
    ) -> Experiment {
        Experiment(
            id: id,
            templateID: "connectionRefused",
            status: status,
            coverage: coverage,
            metric: .tap(action: "retry"),
            variants: [
                .init(key: "control", weight: 0.5),
                .init(key: "b", weight: 0.5, strings: [(locale: "en", values: ["title": title])]),
            ]
        )
    }

    static func stored(_ experiment: Experiment, revision: Int = 1) -> StoredExperiment {
        StoredExperiment(experiment: experiment, revision: revision, updatedAt: "", updatedBy: "test")
    }

    /// The built-in catalogue with `experiment` published; `swaps` records each swap's names.
    static func state(_ experiment: Experiment = experiment(), swaps: Swaps? = nil) throws -> CatalogueState {
        let state = CatalogueState(try ServiceFixture.snapshot()) { swaps?.append($0) }
        #expect(state.publish(experiment: stored(experiment)))
        return state
    }

    /// The first install id of the form `install-N` that `experiment` assigns `key` (`nil`:
    /// outside the coverage).
    static func install(getting key: String?, in experiment: Experiment = experiment()) -> String {
        for index in 0..<10_000 {
            let id = "install-\(index)"
            if experiment.variant(for: id)?.key == key { return id }
        }
        preconditionFailure("no install id gets \(key ?? "nothing")")
    }
}

@Suite("ClientAPI serving copy experiments")
struct ClientAPIExperimentTests {
    private func api(_ experiment: Experiment = ExperimentFixture.experiment()) throws -> ClientAPI {
        ClientAPI(state: try ExperimentFixture.state(experiment), cacheControl: ServiceFixture.cacheControl)
    }

    private static let privateCacheControl =
        "private, max-age=60, stale-while-revalidate=60, stale-if-error=604800"

    private func template(
        _ api: ClientAPI,
        _ id: String = "connectionRefused",
        install: String? = nil,
        headers: [(name: String, value: String)] = [],
        query: [(name: String, value: String)] = [("locale", "en")]
    ) -> HTTPResponse {
        var headers = headers
        if let install { headers.append(("X-Install-ID", install)) }
        return api.template(ServiceFixture.request(id, query: query, headers: headers))
    }

    @Test("an install gets its variant's copy and the experiment member, privately, varying on X-Install-ID")
    func variantServed() throws {
        let api = try api()
        let install = ExperimentFixture.install(getting: "b")
        let response = template(api, install: install)
        #expect(response.status == 200)
        let json = try response.json()
        #expect(json["title"] == .string(ExperimentFixture.title))
        #expect(json["experiment"] == .object([("id", "retry-copy"), ("variant", "b")]))
        #expect(response.header("Vary") == "Accept-Encoding, X-Install-ID")
        #expect(response.header("Cache-Control") == Self.privateCacheControl)
        #expect(response.memoTag == nil)
        // The member sits beside `revision` (after `id`, as `revision` does when served from a store).
        #expect(response.bodyText.hasPrefix("{\"id\":\"connectionRefused\",\"experiment\":{"))

        let control = template(api, install: ExperimentFixture.install(getting: "control"))
        let controlJSON = try control.json()
        #expect(controlJSON["title"] == .string("You're offline"))
        #expect(controlJSON["experiment"] == .object([("id", "retry-copy"), ("variant", "control")]))
        #expect(control.header("Cache-Control") == Self.privateCacheControl)
        #expect(control.header("ETag") != response.header("ETag"), "one ETag per variant")
    }

    @Test("the same install always gets the same variant and ETag, and its 304; another variant's ETag is no match")
    func sameInstallSameVariant() throws {
        let api = try api()
        let b = ExperimentFixture.install(getting: "b")
        let first = template(api, install: b)
        let second = template(api, install: b)
        let etag = try #require(first.header("ETag"))
        #expect(second.header("ETag") == etag)
        #expect(first.bodyBytes == second.bodyBytes)

        let revalidated = template(api, install: b, headers: [("If-None-Match", etag)])
        #expect(revalidated.status == 304)
        #expect(revalidated.header("Vary") == "Accept-Encoding, X-Install-ID")
        #expect(revalidated.header("Cache-Control") == Self.privateCacheControl)

        let other = template(
            api,
            install: ExperimentFixture.install(getting: "control"),
            headers: [("If-None-Match", etag)]
        )
        #expect(other.status == 200)
    }

    @Test("without an install id: control, no experiment member, shareable but varying on X-Install-ID, not remembered")
    func noInstallID() throws {
        let api = try api()
        let response = template(api)
        let json = try response.json()
        #expect(json["experiment"] == nil)
        #expect(json["title"] == .string("You're offline"))
        #expect(response.header("Vary") == "Accept-Encoding, X-Install-ID")
        #expect(response.header("Cache-Control") == ServiceFixture.cacheControl)
        #expect(response.memoTag == nil, "a remembered answer would be served to requests with an install id")
        // The same bytes as the template outside any experiment.
        let plain = try ServiceFixture.api()
        #expect(template(plain).bodyBytes == response.bodyBytes)
    }

    @Test("an install outside the coverage gets the template as it is, privately")
    func outsideCoverage() throws {
        let experiment = ExperimentFixture.experiment(coverage: 0.2)
        let api = try api(experiment)
        let outside = ExperimentFixture.install(getting: nil, in: experiment)
        let response = template(api, install: outside)
        #expect(try response.json()["experiment"] == nil)
        #expect(response.header("Cache-Control") == Self.privateCacheControl)
        #expect(response.header("Vary") == "Accept-Encoding, X-Install-ID")
        let inside = template(api, install: ExperimentFixture.install(getting: "b", in: experiment))
        #expect(try inside.json()["experiment"]?["variant"] == .string("b"))
    }

    @Test("an alias serves the same variant; placeholder values are rendered into the variant's copy")
    func aliasAndParameters() throws {
        let api = try api()
        let b = ExperimentFixture.install(getting: "b")
        let snapshot = try ServiceFixture.snapshot()
        let alias = try #require(snapshot.aliases.first { $0.value == "connectionRefused" }?.key)
        #expect(try template(api, alias, install: b).json()["experiment"]?["variant"] == .string("b"))
        let personalized = template(api, install: b, query: [("locale", "en"), ("param.provider", "Dropbox")])
        #expect(try personalized.json()["title"] == .string(ExperimentFixture.title))
        #expect(personalized.header("Cache-Control") == Self.privateCacheControl)
        #expect(personalized.memoTag == nil)
    }

    @Test(
        "a malformed X-Install-ID is a 400 naming the header",
        arguments: ["", "has space", "tab\there", String(repeating: "x", count: 129), "caf\u{E9}"]
    )
    func invalidHeader(value: String) throws {
        let response = template(try api(), install: value)
        #expect(response.status == 400)
        let json = try response.json()
        #expect(json["type"] == .string("urn:empty-state:problem:invalid-install-id"))
        #expect(json["errors"]?.arrayValue?.first?["header"] == .string("X-Install-ID"))
    }

    @Test("a template in no experiment ignores X-Install-ID: headers, bytes and memo name as without it")
    func plainTemplateUntouched() throws {
        let api = try api()
        let plain = template(api, "loginRequired")
        for install in ["install-1", "not valid at all"] {
            let response = template(api, "loginRequired", install: install)
            #expect(response.status == 200)
            #expect(response.header("Vary") == "Accept-Encoding")
            #expect(response.header("Cache-Control") == ServiceFixture.cacheControl)
            #expect(response.catalogueTag == .template("loginRequired"))
            #expect(response.header("ETag") == plain.header("ETag"))
            #expect(response.prepared != nil)
        }
        #expect(template(try ServiceFixture.api(), "loginRequired").header("ETag") == plain.header("ETag"))
    }

    @Test("bundles: an install gets its variants inside, privately; without one the bundle is as it was")
    func bundles() throws {
        let api = try api()
        func bundle(_ install: String?) throws -> (HTTPResponse, JSONValue?) {
            let headers = install.map { [("X-Install-ID", $0)] } ?? []
            let response = api.bundle(ServiceFixture.request(query: [("locale", "en")], headers: headers))
            let item = try response.json()["templates"]?.arrayValue?.first { $0["id"] == "connectionRefused" }
            return (response, item)
        }
        let (withB, itemB) = try bundle(ExperimentFixture.install(getting: "b"))
        #expect(itemB?["experiment"]?["variant"] == .string("b"))
        #expect(itemB?["title"] == .string(ExperimentFixture.title))
        #expect(withB.header("Cache-Control") == Self.privateCacheControl)
        #expect(withB.header("Vary") == "Accept-Encoding, X-Install-ID")
        #expect(withB.memoTag == nil)

        let (without, item) = try bundle(nil)
        #expect(item?["experiment"] == nil)
        #expect(without.header("Vary") == "Accept-Encoding, X-Install-ID")
        #expect(without.header("Cache-Control") == ServiceFixture.cacheControl)
        #expect(without.memoTag == nil)
        let plain = try ServiceFixture.api().bundle(ServiceFixture.request(query: [("locale", "en")]))
        #expect(plain.bodyBytes == without.bodyBytes)
        #expect(plain.header("Vary") == "Accept-Encoding")
        #expect(plain.catalogueTag == .bundles)

        let (bad, _) = try bundle("with space")
        #expect(bad.status == 400)
    }

    @Test("HTML carries data-experiment-id and data-variant on the root element")
    func html() throws {
        let web = WebAPI(client: try api(), illustrationBaseURL: nil)
        func request(_ install: String?) -> ClientAPI.Request {
            var request = HTTPRequest(
                method: .get,
                path: "/v1/web/templates/connectionRefused",
                query: [("locale", "en")],
                headers: HTTPHeaders(install.map { [("X-Install-ID", $0)] } ?? []),
                id: "test-request"
            )
            request.pathParameters["id"] = "connectionRefused"
            return ClientAPI.Request(request)
        }
        let response = web.html(request(ExperimentFixture.install(getting: "b")), page: false)
        #expect(response.bodyText.contains("data-experiment-id=\"retry-copy\" data-variant=\"b\""))
        #expect(response.bodyText.contains(ExperimentFixture.title))
        #expect(response.header("Cache-Control") == Self.privateCacheControl)
        #expect(response.header("Vary") == "Accept-Encoding, X-Install-ID")
        let page = web.html(request(ExperimentFixture.install(getting: "control")), page: true)
        #expect(page.bodyText.contains("data-variant=\"control\""))
        let anonymous = web.html(request(nil), page: false)
        #expect(!anonymous.bodyText.contains("data-experiment-id"))
        #expect(anonymous.memoTag == nil)
    }

    @Test("stopping the experiment serves the template as before, and forgets the template's and bundles' answers")
    func stopping() throws {
        let swaps = Swaps()
        let state = try ExperimentFixture.state(swaps: swaps)
        let api = ClientAPI(state: state, cacheControl: ServiceFixture.cacheControl)
        #expect(swaps.lastTags?.contains(.template("connectionRefused")) == true)
        let aliases = try #require(state.snapshot.entry(named: "connectionRefused")?.template.aliases)
        #expect(swaps.lastTags?.isSuperset(of: aliases.map(CatalogueMemoTag.template)) == true)
        #expect(swaps.lastTags?.contains(.bundles) == true)

        // An older revision is not published again.
        #expect(!state.publish(experiment: ExperimentFixture.stored(ExperimentFixture.experiment(status: .stopped))))
        #expect(
            state.publish(
                experiment: ExperimentFixture.stored(ExperimentFixture.experiment(status: .stopped), revision: 2)
            )
        )
        let response = template(api, install: ExperimentFixture.install(getting: "b"))
        #expect(try response.json()["experiment"] == nil)
        #expect(response.header("Vary") == "Accept-Encoding")
        #expect(response.catalogueTag == .template("connectionRefused"))
        #expect(state.snapshot.experiment(onTemplate: "connectionRefused") == nil)
    }

    @Test("the variants' representations are rendered once per snapshot and survive other templates' changes")
    func variantsRenderedOnce() throws {
        let snapshot = try ExperimentFixture.state().snapshot
        let before = try #require(snapshot.experiment(onTemplate: "connectionRefused"))
        let b = ExperimentFixture.install(getting: "b")
        let first = try #require(before.entry(for: b)?.representation(locale: "en", platform: .web))
        #expect(before.entry(for: b)?.representation(locale: "en", platform: .web) === first)

        // Another template changes: the experiment's entries are shared by the next snapshot.
        var other = try #require(snapshot.entry(named: "loading")).template
        other.strings[0].values["title"] = "Hold on"
        let next = try #require(
            snapshot.applying(.upsert(StoredTemplate(template: other, revision: 5, updatedAt: "", updatedBy: "t")))
        )
        #expect(next.snapshot.experiment(onTemplate: "connectionRefused") === before)
        #expect(!next.tags.contains(.template("connectionRefused")))

        // The template itself changes: its variants are made again from the new copy.
        var edited = try #require(next.snapshot.entry(named: "connectionRefused")).template
        let en = try #require(edited.strings.firstIndex { $0.locale == "en" })
        edited.strings[en].values["message"] = "Check the cable."
        let last = try #require(
            next.snapshot.applying(
                .upsert(StoredTemplate(template: edited, revision: 6, updatedAt: "", updatedBy: "t"))
            )
        )
        let after = try #require(last.snapshot.experiment(onTemplate: "connectionRefused"))
        #expect(after !== before)
        #expect(after.entry(for: b)?.template.strings[en].values["message"] == "Check the cable.")
        #expect(after.entry(for: b)?.template.strings[en].values["title"] == ExperimentFixture.title)
        #expect(after.entry(for: b)?.revision == 6)
    }
}
