import HTTPServer
import JSONCoding
import Testing

@testable import EmptyStateService

/// Issue 35: a placeholder dropped in the source locale is reported at the field the request
/// sent (`en`), not at every translation the request never touched.
@Suite("Placeholders dropped in the source locale: pointers at the field sent")
struct SourcePlaceholderPointerTests {
    /// The pointers and rules of a 422's `errors`.
    private func errors(_ response: HTTPResponse) throws -> [(pointer: String, detail: String)] {
        let items = try #require(try response.json()["errors"]?.arrayValue)
        return items.map { ($0["pointer"]?.stringValue ?? "", $0["detail"]?.stringValue ?? "") }
    }

    @Test("experiment: a variant whose en.message drops {provider} → 422 at /variants/1/strings/en/message only")
    func experimentVariant() throws {
        let fixture = try ShipFixture()
        let response = fixture.send(
            .put,
            "/v1/admin/experiments/verify-copy",
            headers: [ShipFixture.editor, ("If-None-Match", "*")],
            json: """
                {"id":"verify-copy","templateId":"verifyIdentity","status":"draft","coverage":1,
                 "primaryMetric":{"type":"tap","action":"verify"},
                 "variants":[{"key":"control","weight":0.5},
                             {"key":"b","weight":0.5,"strings":{"en":{"message":"To continue, verify who you are."}}}]}
                """
        )
        #expect(response.status == 422, "\(response.bodyText)")
        let errors = try errors(response)
        #expect(errors.map { $0.pointer } == ["/variants/1/strings/en/message"])
        // One issue naming the locales that keep {provider}, not one per locale.
        let detail = try #require(errors.first?.detail as String?)
        #expect(detail.hasPrefix("uses placeholders {} but "), "\(detail)")
        for locale in ["ar", "de", "es", "fr", "ja", "pt-BR"] { #expect(detail.contains(locale), "\(detail)") }
        #expect(detail.contains("use {provider}"), "\(detail)")
    }

    @Test("experiment: a variant that changes a translation's placeholder is still reported at that translation")
    func experimentTranslation() throws {
        let fixture = try ShipFixture()
        let response = fixture.send(
            .put,
            "/v1/admin/experiments/verify-copy",
            headers: [ShipFixture.editor, ("If-None-Match", "*")],
            json: """
                {"id":"verify-copy","templateId":"verifyIdentity","status":"draft","coverage":1,
                 "primaryMetric":{"type":"tap","action":"verify"},
                 "variants":[{"key":"control","weight":0.5},
                             {"key":"b","weight":0.5,"strings":{"fr":{"message":"Vérifiez avec {fournisseur}."}}}]}
                """
        )
        #expect(response.status == 422)
        #expect(try errors(response).map { $0.pointer } == ["/variants/1/strings/fr/message"])
    }

    @Test("template strings: PUT …/strings/en dropping {provider} → 422 at the body's /message only")
    func templateSourceStrings() throws {
        let fixture = try ShipFixture()
        let before = try fixture.store.template(id: "verifyIdentity")
        let response = fixture.send(
            .put,
            "/v1/admin/templates/verifyIdentity/strings/en",
            headers: [ShipFixture.editor, ("If-Match", "\"r\(before.revision)\"")],
            json: #"{"title":"Verify your identity","message":"To continue, verify who you are.","#
                + #""actions.verify":"Verify with {provider}"}"#
        )
        #expect(response.status == 422, "\(response.bodyText)")
        let errors = try errors(response)
        // The body is en's strings: its pointers are relative to the body, as every rule of this endpoint.
        #expect(errors.map { $0.pointer } == ["/message"])
        #expect(errors.first?.detail.contains("es") == true)
        #expect(try fixture.store.template(id: "verifyIdentity").revision == before.revision)
    }

    @Test("template strings: PUT …/strings/fr with another placeholder is reported at fr's field")
    func templateTranslationStrings() throws {
        let fixture = try ShipFixture()
        let before = try fixture.store.template(id: "verifyIdentity")
        let response = fixture.send(
            .put,
            "/v1/admin/templates/verifyIdentity/strings/fr",
            headers: [ShipFixture.editor, ("If-Match", "\"r\(before.revision)\"")],
            json: #"{"title":"Vérifiez votre identité","message":"Vérifiez avec {fournisseur}.","#
                + #""actions.verify":"Vérifier avec {provider}"}"#
        )
        #expect(response.status == 422, "\(response.bodyText)")
        #expect(try errors(response).map { $0.pointer } == ["/message"])
        #expect(try errors(response).first?.detail == "uses placeholders {fournisseur} but en uses {provider}")
    }
}
