import EmptyStateCore
import EmptyStateStore
import JSONCoding
import Testing

@Suite("The backend-neutral pieces of the template store")
struct StoredDocumentsTests {
    @Test("a release's built-in is added, updated, left alone, or kept when ops changed it")
    func importDecision() {
        let current = BuiltinImport.Current(document: #"{"id":"a"}"#, edited: false, deleted: false)
        #expect(BuiltinImport.decide(current: nil, document: #"{"id":"a"}"#) == .add)
        #expect(BuiltinImport.decide(current: current, document: #"{"id":"a"}"#) == .unchanged)
        #expect(BuiltinImport.decide(current: current, document: #"{"id":"a","x":1}"#) == .update)
        var edited = current
        edited.edited = true
        #expect(BuiltinImport.decide(current: edited, document: #"{"id":"a","x":1}"#) == .keepOpsVersion)
        #expect(BuiltinImport.decide(current: edited, document: #"{"id":"a"}"#) == .unchanged)
        var deleted = current
        deleted.deleted = true
        #expect(BuiltinImport.decide(current: deleted, document: #"{"id":"a","x":1}"#) == .keepOpsVersion)
    }

    @Test("a template's text reads back as the same template, and is the same text every time")
    func templateText() throws {
        let template = try builtin("loading")
        let text = StoredDocuments.text(of: template.document)
        #expect(try StoredDocuments.template(fromText: text) == template)
        #expect(StoredDocuments.text(of: try StoredDocuments.template(fromText: text).document) == text)
    }

    @Test("damaged text is a database error, never a crash")
    func damagedText() {
        #expect(throws: StoreError.self) { try StoredDocuments.template(fromText: "{") }
        #expect(throws: StoreError.self) { try StoredDocuments.template(fromText: #"{"id":"x"}"#) }
        #expect(throws: StoreError.self) { try StoredDocuments.appPolicy(fromText: "[]") }
    }

    @Test("a revision decodes from its text columns")
    func revisionRecord() throws {
        let text = StoredDocuments.changedFieldsText(["/category", "/strings/fr/title"])
        #expect(text == #"["/category","/strings/fr/title"]"#)
        let record = try RevisionRecord(
            templateID: "loading",
            revision: 3,
            action: "strings",
            createdAt: "2026-11-23T10:00:00Z",
            createdBy: "alice",
            changedFieldsText: text,
            documentText: #"{"id":"loading"}"#,
            note: "imported from fr.xlf"
        )
        #expect(record.action == .strings)
        #expect(record.note == "imported from fr.xlf")
        #expect(record.changedFields == ["/category", "/strings/fr/title"])
        #expect(record.document == .object([("id", .string("loading"))]))
        let deletion = try RevisionRecord(
            templateID: "loading",
            revision: 4,
            action: "delete",
            createdAt: "2026-11-23T10:00:00Z",
            createdBy: "alice",
            changedFieldsText: #"["/"]"#,
            documentText: nil,
            note: nil
        )
        #expect(deletion.document == nil)
        #expect(deletion.action == .delete)
    }

    @Test("app policies have ids no template can have")
    func appPolicyIDs() {
        for platform in Platform.allCases {
            #expect(StoredDocuments.appPolicyPlatform(documentID: StoredDocuments.appPolicyID(platform)) == platform)
        }
        #expect(StoredDocuments.appPolicyPlatform(documentID: "loading") == nil)
        #expect(StoredDocuments.appPolicyPlatform(documentID: "app-policy:symbian") == nil)
    }
}
