import EmptyStateCore
import EmptyStateStore
import Foundation
import Testing

/// A store of `backend` with the built-in `noDocuments`, and a change request of `ed` retitling it.
private func requestStore(_ backend: StoreBackend) throws -> (store: any TemplateStoring, request: Int) {
    let (store, _) = try makeStore(backend)
    try store.importBuiltins([try builtin("noDocuments")])
    let live = try store.template(id: "noDocuments")
    let change = ProposedChange(
        target: .template(id: "noDocuments"),
        document: retitled(live.template, french: "Aperçu").document,
        baseRevision: live.revision
    )
    let opened = try store.write { edits in
        try edits.openChangeRequest(title: "Preview", description: "", changes: [change], actor: "ed")
    }
    return (store, opened.request.id)
}

private func makeToken(
    _ store: any TemplateStoring,
    _ request: Int,
    secret: String,
    name: String = "QA",
    expiresAt: Int64 = Timestamp.nowMilliseconds() + 3_600_000
) throws -> PreviewTokenRecord {
    try store.write { edits in
        try edits.createPreviewToken(
            for: request,
            name: name,
            secretSHA256: SecretDigest.sha256Hex(secret),
            expiresAt: expiresAt,
            actor: "ed"
        ).token
    }
}

/// Preview tokens on both backends, one contract (issue 34): made, found by their secret's
/// hash only, revoked, refused for requests that no longer change, audited.
@Suite("TemplateStore: preview tokens")
struct PreviewTokenStoreTests {
    @Test("a token is kept as its secret's SHA-256 and found by it; never by the secret", arguments: StoreBackend.all)
    func foundByHash(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, request) = try requestStore(backend)
            let revision = try store.readCatalogue { try $0.changeRequest(request)?.revision }
            let first = try makeToken(store, request, secret: "esp_first", name: "QA iPhone")
            let second = try makeToken(store, request, secret: "esp_second")
            #expect(second.id > first.id)
            #expect(first.secretSHA256 == SecretDigest.sha256Hex("esp_first"))
            #expect(first.secretSHA256.count == 64)
            let found = try store.readCatalogue {
                try $0.previewToken(secretSHA256: SecretDigest.sha256Hex("esp_first"))
            }
            #expect(found == first)
            #expect(found?.name == "QA iPhone" && found?.createdBy == "ed" && found?.revokedAt == nil)
            #expect(try store.readCatalogue { try $0.previewToken(secretSHA256: "esp_first") } == nil)
            #expect(try store.readCatalogue { try $0.previewToken(secretSHA256: SecretDigest.sha256Hex("x")) } == nil)
            let listed = try store.readCatalogue { try $0.previewTokens(of: [request]) }
            #expect(listed.map(\.id) == [first.id, second.id])
            // Each creation is a revision of the request: its audit trail.
            #expect(try store.readCatalogue { try $0.changeRequest(request)?.revision } == (revision ?? 0) + 2)
        }
    }

    @Test(
        "revoking records who and when, once; an unknown token or another request's is refused",
        arguments: StoreBackend.all
    )
    func revoke(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, request) = try requestStore(backend)
            let token = try makeToken(store, request, secret: "esp_revoke")
            let revoked = try store.write { try $0.revokePreviewToken(token.id, of: request, actor: "ed2") }
            #expect(revoked.revokedBy == "ed2" && revoked.revokedAt != nil)
            let again = try store.write { try $0.revokePreviewToken(token.id, of: request, actor: "ed3") }
            #expect(again == revoked, "revoking twice changes nothing")
            let found = try store.readCatalogue {
                try $0.previewToken(secretSHA256: SecretDigest.sha256Hex("esp_revoke"))
            }
            #expect(found?.revokedBy == "ed2")
            #expect(throws: ChangeRequestError.unknownPreviewToken(id: request, token: 99)) {
                try store.write { try $0.revokePreviewToken(99, of: request, actor: "ed") }
            }
            let other = try store.write { edits in
                try edits.openChangeRequest(title: "Other", description: "", changes: [], actor: "ed")
            }
            #expect(throws: ChangeRequestError.unknownPreviewToken(id: other.request.id, token: token.id)) {
                try store.write { try $0.revokePreviewToken(token.id, of: other.request.id, actor: "ed") }
            }
            let notes = try store.audit(AuditFilter(), page: 1, pageSize: 50).items.compactMap(\.note)
            #expect(notes.contains { $0.hasPrefix("preview token \(token.id) (QA) created, valid until ") })
            #expect(notes.filter { $0 == "preview token \(token.id) (QA) revoked" }.count == 1)
        }
    }

    @Test("a withdrawn or rejected request gets no token", arguments: StoreBackend.all)
    func closedRequests(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, request) = try requestStore(backend)
            _ = try store.write { try $0.review(request, approve: false, version: 1, text: "no", actor: "rv") }
            #expect(throws: ChangeRequestError.rejected(id: request)) {
                try makeToken(store, request, secret: "esp_rejected")
            }
            let revision = try #require(try store.readCatalogue { try $0.changeRequest(request)?.revision })
            _ = try store.write {
                try $0.withdraw(request, expectedRevision: revision, mayActForOthers: false, actor: "ed")
            }
            #expect(throws: ChangeRequestError.closed(id: request, state: .withdrawn)) {
                try makeToken(store, request, secret: "esp_withdrawn")
            }
            #expect(throws: ChangeRequestError.notFound(id: 999)) { try makeToken(store, 999, secret: "esp_none") }
        }
    }
}
