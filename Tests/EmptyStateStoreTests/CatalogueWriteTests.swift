import EmptyStateCore
import EmptyStatePostgres
import EmptyStateStore
import Foundation
import JSONCoding
import Logging
import Testing

/// An iOS policy for the multi-document writes.
private let iosPolicy = AppPolicy(
    platform: .ios,
    minimumVersion: AppVersion("5.0")!,
    latestVersion: AppVersion("5.3.0")!,
    minimumOSVersion: AppVersion("16")!,
    blockedVersions: [],
    storeURL: "https://apps.apple.com/app/id123456789"
)

/// An error of the caller's own, thrown inside a transaction.
private struct Abort: Error, Equatable {}

/// `template` under another id, with these aliases.
private func renamed(_ template: Template, id: String, aliases: [String] = []) throws -> Template {
    var document = template.document
    guard case .object(var members) = document else { throw Abort() }
    for index in members.indices {
        if members[index].key == "id" { members[index].value = .string(id) }
        if members[index].key == "aliases" { members[index].value = .array(aliases.map(JSONValue.string)) }
    }
    if !members.contains(where: { $0.key == "aliases" }) {
        members.append((key: "aliases", value: .array(aliases.map(JSONValue.string))))
    }
    document = .object(members)
    guard case .success(let parsed) = TemplateParser.parse(document, origin: .new) else { throw Abort() }
    return parsed
}

/// An empty store of `backend` holding the built-in `loading` (and `extra` built-ins) at revision 1.
private func storeWithLoading(_ backend: StoreBackend, extra: [String] = []) throws -> (any TemplateStoring, Template) {
    let (store, _) = try makeStore(backend)
    let loading = try builtin("loading")
    try store.importBuiltins([loading] + (try extra.map(builtin)))
    return (store, loading)
}

/// Several edits in one `TemplateStoring.write`: what a change of several documents (a change
/// request's publication) is made of. Both backends, one contract.
@Suite("TemplateStore: several edits in one transaction")
struct CatalogueWriteTests {
    @Test(
        "templates and a policy written in one transaction commit together, each a revision",
        arguments: StoreBackend.all
    )
    func commitsTogether(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, loading) = try storeWithLoading(backend)
            let feedBefore = try (store as? PostgresTemplateStore)?.latestChange()

            let (stored, policy, created) = try store.write { edits in
                let changed = try edits.put(
                    retitled(loading, french: "Un instant"),
                    precondition: .revision(1),
                    actor: "ops"
                )
                let added = try edits.put(try renamed(loading, id: "loadingAgain"), precondition: .absent, actor: "ops")
                let policy = try edits.putPolicy(iosPolicy, precondition: .absent, actor: "ops")
                return (changed.stored, policy.stored, added.created)
            }
            #expect(stored.revision == 2 && policy.revision == 1 && created)
            #expect(try store.template(id: "loading").template.strings(for: "fr")?["title"] == "Un instant")
            #expect(try store.template(id: "loadingAgain").revision == 1)
            #expect(try store.policy(platform: .ios).revision == 1)
            #expect(
                try store.audit(page: 1, pageSize: 10, templateID: nil).items.prefix(3).map(\.createdBy) == [
                    "ops", "ops", "ops",
                ]
            )
            if let postgres = store as? PostgresTemplateStore, let feedBefore {
                // One transaction, one entry per document on the feed, in the order written.
                let changes = try postgres.changes(after: feedBefore)
                #expect(changes.map(\.documentID) == ["loading", "loadingAgain", StoredDocuments.appPolicyID(.ios)])
            }
        }
    }

    @Test("a precondition failing in a later edit rolls back the earlier ones", arguments: StoreBackend.all)
    func failsTogether(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, loading) = try storeWithLoading(backend, extra: ["connectionRefused"])
            #expect(throws: StoreError.stale(id: "connectionRefused", current: 1)) {
                try store.write { edits in
                    _ = try edits.put(retitled(loading, french: "Perdu"), precondition: .revision(1), actor: "ops")
                    _ = try edits.putPolicy(iosPolicy, precondition: .absent, actor: "ops")
                    _ = try edits.delete(id: "connectionRefused", expectedRevision: 7, actor: "ops")
                }
            }
            #expect(try store.template(id: "loading").revision == 1)
            #expect(throws: StoreError.notFound(id: "ios")) { try store.policy(platform: .ios) }
            #expect(try store.revisions(id: "loading", page: 1, pageSize: 10).items.map(\.revision) == [1])
        }
    }

    @Test(
        "the caller's own error rolls the transaction back and reaches the caller as it is",
        arguments: StoreBackend.all
    )
    func callerError(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, loading) = try storeWithLoading(backend)
            #expect(throws: Abort()) {
                try store.write { edits in
                    _ = try edits.put(retitled(loading, french: "Jamais"), precondition: .revision(1), actor: "ops")
                    throw Abort()
                }
            }
            #expect(try store.template(id: "loading").revision == 1)
        }
    }

    @Test("an edit sees the edits before it: two new templates cannot claim one alias", arguments: StoreBackend.all)
    func seesEarlierEdits(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, _) = try makeStore(backend)
            let loading = try builtin("loading")
            #expect(throws: StoreError.conflicts([("/aliases/0", "\"pleaseWait\" is already an alias of first")])) {
                try store.write { edits in
                    _ = try edits.put(
                        try renamed(loading, id: "first", aliases: ["pleaseWait"]),
                        precondition: .absent,
                        actor: "ops"
                    )
                    _ = try edits.put(
                        try renamed(loading, id: "second", aliases: ["pleaseWait"]),
                        precondition: .absent,
                        actor: "ops"
                    )
                }
            }
            #expect(try store.liveTemplates().isEmpty)
            // Each alone is fine: the conflict came from the first edit of the same transaction.
            let written = try store.write { edits in
                try edits.put(
                    try renamed(loading, id: "first", aliases: ["pleaseWait"]),
                    precondition: .absent,
                    actor: "ops"
                )
                .stored.revision
            }
            #expect(written == 1)
        }
    }
}
