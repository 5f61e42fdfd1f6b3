import EmptyStateCore
import EmptyStateSQLite
import EmptyStateStore
import Foundation
import HTTPServer
import JSONCoding
import Logging
import Testing

@testable import EmptyStateService

/// A SQLite store with the built-ins, the live catalogue with the `retry-copy` experiment running
/// on `connectionRefused`, and a change request retitling `noDocuments` and, by its English
/// strings, `connectionRefused`.
private final class PreviewFixture: Sendable {
    static let nothingTitle = "Nothing here yet (preview)"
    static let offlineTitle = "Offline (preview)"

    let store: SQLiteTemplateStore
    let state: CatalogueState
    let api: ClientAPI
    let request: Int

    init() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("preview-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let logger = Logger(label: "test")
        store = try SQLiteTemplateStore(path: directory.appendingPathComponent("store.sqlite").path, logger: logger)
        try store.importBuiltins(try ServiceFixture.catalogue().templates)
        state = try ExperimentFixture.state()
        let nothing = try store.template(id: "noDocuments")
        var document = nothing.template.document
        document = Self.setting(document, ["strings", "en", "title"], to: .string(Self.nothingTitle))
        let offline = try store.template(id: "connectionRefused")
        let english = offline.template.document["strings"]?["en"] ?? .object([])
        let changes = [
            ProposedChange(target: .template(id: "noDocuments"), document: document, baseRevision: nothing.revision),
            ProposedChange(
                target: .templateStrings(id: "connectionRefused", locale: "en"),
                document: Self.setting(english, ["title"], to: .string(Self.offlineTitle)),
                baseRevision: offline.revision
            ),
        ]
        request = try store.write { edits in
            try edits.openChangeRequest(title: "Preview", description: "", changes: changes, actor: "ed").request.id
        }
        api = ClientAPI(
            state: state,
            cacheControl: ServiceFixture.cacheControl,
            previews: PreviewChannel(store: store, logger: logger)
        )
    }

    /// `value` with the member at `path` set to `new`.
    static func setting(_ value: JSONValue, _ path: [String], to new: JSONValue) -> JSONValue {
        guard let key = path.first, case .object(var members) = value else { return new }
        let index = members.firstIndex { $0.key == key }
        let inner = setting(index.map { members[$0].value } ?? .object([]), Array(path.dropFirst()), to: new)
        if let index { members[index].value = inner } else { members.append((key, inner)) }
        return .object(members)
    }

    /// A token of the request that expires at `expiresAt`; its secret.
    func token(expiresAt: Int64 = Timestamp.nowMilliseconds() + 3_600_000) throws -> String {
        let secret = PreviewChannel.newSecret()
        _ = try store.write { edits in
            try edits.createPreviewToken(
                for: request,
                name: "test",
                secretSHA256: SecretDigest.sha256Hex(secret),
                expiresAt: expiresAt,
                actor: "ed"
            )
        }
        return secret
    }

    func get(_ id: String, _ headers: [(name: String, value: String)]) -> HTTPResponse {
        let request = ServiceFixture.request(id, query: [("locale", "en")], headers: headers)
        return api.previewing(request) { api, request in api.template(request) }
    }
}

@Suite("PreviewChannel")
struct PreviewChannelTests {
    @Test("a token serves the request's templates and strings, control copy only, privately; others stay live")
    func served() throws {
        let fixture = try PreviewFixture()
        let token = try fixture.token()
        let nothing = fixture.get("noDocuments", [("X-Preview-Token", token)])
        #expect(nothing.status == 200)
        #expect(try nothing.json()["title"] == .string(PreviewFixture.nothingTitle))
        #expect(nothing.headers.first { $0.name == "Cache-Control" }?.value == "private, no-store")
        #expect(
            nothing.headers.first { $0.name == "X-Preview" }?.value == "change-request=\(fixture.request); version=1"
        )
        #expect(nothing.headers.first { $0.name == "ETag" }?.value.hasPrefix("\"preview-\(fixture.request)-") == true)
        #expect(nothing.memoTag == nil)
        // An install that live assigns variant b sees the request's copy, without the experiment.
        let install = ExperimentFixture.install(getting: "b")
        let offline = fixture.get("connectionRefused", [("X-Preview-Token", token), ("X-Install-ID", install)])
        let json = try offline.json()
        #expect(json["title"] == .string(PreviewFixture.offlineTitle))
        #expect(json["experiment"] == nil)
        #expect(offline.headers.first { $0.name == "Vary" }?.value.contains("X-Install-ID") == false)
        // Without the token: live, and b's copy for that install.
        let live = fixture.get("connectionRefused", [("X-Install-ID", install)])
        #expect(try live.json()["title"] == .string(ExperimentFixture.title))
        let plain = fixture.get("noDocuments", [])
        #expect(try plain.json()["title"] != .string(PreviewFixture.nothingTitle))
        #expect(plain.headers.first { $0.name == "X-Preview" } == nil)
    }

    @Test("an expired, unknown or empty token is 401 with WWW-Authenticate, naming the header")
    func refused() throws {
        let fixture = try PreviewFixture()
        let expired = try fixture.token(expiresAt: Timestamp.nowMilliseconds() - 1)
        for (secret, reason) in [
            (expired, "expired at "), ("esp_unknown", "no such preview token"), ("", "not a preview token"),
        ] {
            let response = fixture.get("noDocuments", [("X-Preview-Token", secret)])
            #expect(response.status == 401, "\(reason)")
            #expect(response.headers.first { $0.name == "WWW-Authenticate" }?.value.hasPrefix("PreviewToken ") == true)
            let error = try response.json()["errors"]?.arrayValue?.first
            #expect(error?["header"] == .string("X-Preview-Token"))
            #expect(error?["detail"]?.stringValue?.hasPrefix(reason) == true, "\(reason)")
        }
    }

    @Test("the preview snapshot is made once per request revision and live snapshot")
    func madeOnce() throws {
        let fixture = try PreviewFixture()
        let token = try fixture.token()
        let channel = try #require(fixture.api.previews)
        let live = fixture.state.snapshot
        let first = try channel.preview(token, live: live, requestID: "a").get()
        let second = try channel.preview(token, live: live, requestID: "b").get()
        #expect(first.snapshot === second.snapshot)
        _ = try fixture.token()  // a new token is a new revision of the request
        let third = try channel.preview(token, live: live, requestID: "c").get()
        #expect(third.revision == first.revision + 1)
        #expect(third.snapshot !== first.snapshot)
        #expect(first.snapshot.experiment(onTemplate: "connectionRefused") == nil)
        #expect(live.experiment(onTemplate: "connectionRefused") != nil)
    }
}
