import JSONCoding
import Testing

@testable import EmptyStateService

@Suite("AdminTemplateEnvelope")
struct AdminTemplateEnvelopeTests {
    private let document: JSONValue = .object([
        ("id", .string("loading")), ("category", .string("loading")), ("style", .string("default")),
    ])

    @Test("the GET answer, sent back as it is, gives its template")
    func wrapper() {
        let wrapper: JSONValue = .object([
            ("id", .string("loading")), ("revision", .number(3)), ("updatedAt", .string("2026-11-23T11:56:25Z")),
            ("updatedBy", .string("alice")), ("template", document), ("stringUpdates", .array([])),
        ])
        #expect(AdminTemplateEnvelope.document(in: wrapper) == document)
        #expect(AdminTemplateEnvelope.document(in: .object([("template", document)])) == document)
    }

    @Test("a document, or a wrapper with a member of its own, is taken as the document")
    func notWrapper() {
        #expect(AdminTemplateEnvelope.document(in: document) == document)
        let extra: JSONValue = .object([("template", document), ("category", .string("loading"))])
        #expect(AdminTemplateEnvelope.document(in: extra) == extra, "validated as a document: 422 names `template`")
        let notObject: JSONValue = .object([("id", .string("loading")), ("template", .string("x"))])
        #expect(AdminTemplateEnvelope.document(in: notObject) == notObject)
        #expect(AdminTemplateEnvelope.document(in: .array([])) == .array([]))
    }
}
