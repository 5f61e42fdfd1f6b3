import Foundation
import HTTPTypes
import Testing

@testable import EmptyStateClient

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Preview tokens through the library, against the real `empty-state-server` binary: a change
/// request's copy is fetched with the token, never cached, never counted.
@Suite("EmptyStateClient, previews", .serialized, .timeLimit(.minutes(2)))
struct EmptyStateClientPreviewTests {
    /// Opens a change request giving `noDocuments` a new English title, and makes a token of it.
    private static func previewToken(
        on service: LiveService,
        title: String
    ) async throws -> (request: Int, token: String) {
        let live = try JSONSerialization.jsonObject(
            with: Data(try await service.admin("/v1/admin/templates/noDocuments").utf8)
        )
        var template = try #require((live as? [String: Any])?["template"] as? [String: Any])
        var strings = try #require(template["strings"] as? [String: Any])
        var english = try #require(strings["en"] as? [String: Any])
        english["title"] = title
        strings["en"] = english
        template["strings"] = strings
        let body = try JSONSerialization.data(
            withJSONObject: [
                "title": "Preview from the client tests",
                "changes": [["kind": "template", "id": "noDocuments", "document": template]],
            ]
        )
        let opened = try await service.adminSend(
            "POST",
            "/v1/admin/change-requests",
            json: String(decoding: body, as: UTF8.self)
        )
        #expect(opened.status == 201)
        let request = try #require(
            (try JSONSerialization.jsonObject(with: opened.body) as? [String: Any])?["id"] as? Int
        )
        let made = try await service.adminSend(
            "POST",
            "/v1/admin/change-requests/\(request)/preview-tokens",
            json: #"{"label":"client tests"}"#
        )
        #expect(made.status == 201)
        let token = try #require(
            (try JSONSerialization.jsonObject(with: made.body) as? [String: Any])?["token"] as? String
        )
        return (request, token)
    }

    private static func configuration(_ baseURL: URL, previewToken: String? = nil) -> EmptyStateClientConfiguration {
        EmptyStateClientConfiguration(
            baseURL: baseURL,
            appVersion: "9.9.9-test",
            preferredLocales: ["en"],
            platform: "ios",
            storageDirectory: nil,
            requestTimeout: 5,
            previewToken: previewToken
        )
    }

    @Test("a token per call shows the request's copy, marked, uncached; the next live call is live")
    func perCall() async throws {
        let service = try LiveService()
        defer { service.stop() }
        let (request, token) = try await Self.previewToken(on: service, title: "Nothing here yet (client preview)")
        let transport = RecordingTransport()
        let client = EmptyStateClient(configuration: Self.configuration(service.baseURL), transport: transport)
        let live = try await client.template("noDocuments")
        let preview = try await client.template("noDocuments", previewToken: token)
        #expect(preview.title == "Nothing here yet (client preview)")
        #expect(preview.previewOf == request)
        #expect(preview.etag?.hasPrefix("\"preview-") == true)
        #expect(live.previewOf == nil && live.title != preview.title)
        let sent = transport.recorded.last?.request.headerFields[HTTPField.Name("X-Preview-Token")!]
        #expect(sent == token)
        // The live copy is still the cached one: answered without the network.
        let before = transport.recorded.count
        #expect(try await client.template("noDocuments") == live)
        #expect(transport.recorded.count == before)
        // Again with the token: fetched again, never from the cache.
        _ = try await client.template("noDocuments", previewToken: token)
        #expect(transport.recorded.count == before + 1)
    }

    @Test("a configured token previews every call, records no events, and a refused token throws")
    func configured() async throws {
        let service = try LiveService()
        defer { service.stop() }
        let (_, token) = try await Self.previewToken(on: service, title: "Configured preview")
        let client = EmptyStateClient(
            configuration: Self.configuration(service.baseURL, previewToken: token),
            transport: RecordingTransport()
        )
        let preview = try await client.template("noDocuments")
        #expect(preview.title == "Configured preview")
        client.displayed(preview)
        client.tapped(preview, action: preview.actions.first?.id ?? "x")
        #expect(client.queuedEventCount == 0, "a preview is never counted")
        let refused = EmptyStateClient(
            configuration: Self.configuration(service.baseURL, previewToken: "esp_nope"),
            transport: RecordingTransport()
        )
        await #expect {
            _ = try await refused.template("noDocuments")
        } throws: { error in
            (error as? EmptyStateClientError)?.isPreviewRefused == true
        }
    }

    @Test("the X-Preview header gives the change request's number")
    func previewHeader() {
        #expect(EmptyStateClient.changeRequest(previewHeader: "change-request=12; version=3") == 12)
        #expect(EmptyStateClient.changeRequest(previewHeader: "garbage") == 0)
        #expect(EmptyStateClient.changeRequest(previewHeader: nil) == 0)
    }
}
