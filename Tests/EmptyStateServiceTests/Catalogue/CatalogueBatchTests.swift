import EmptyStateCore
import EmptyStateSQLite
import EmptyStateStore
import Foundation
import Synchronization
import Testing

@testable import EmptyStateService

/// `template` with its French title replaced.
private func retitled(_ catalogue: Catalogue, _ id: String, _ title: String) throws -> Template {
    var template = try #require(catalogue.template(named: id))
    let index = try #require(template.strings.firstIndex { $0.locale == "fr" })
    template.strings[index].values["title"] = title
    return template
}

/// A store for `publish`'s fallback (unused while the changes fit the catalogue in memory).
private func scratchStore() throws -> SQLiteTemplateStore {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("batch-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    return try SQLiteTemplateStore(
        path: directory.appendingPathComponent("store.sqlite").path,
        logger: .init(label: "test")
    )
}

/// A change request's publication on one node: every document in one snapshot swap.
@Suite("CatalogueState: a batch in one swap")
struct CatalogueBatchTests {
    @Test("readers never see part of a batch; it is one swap, and one invalidation")
    func oneSwap() throws {
        let catalogue = try ServiceFixture.catalogue()
        let swaps = Swaps()
        let state = CatalogueState(try ServiceFixture.snapshot()) { swaps.append($0) }
        let ids = ["loading", "noDocuments", "noFavorites"]
        let before = ids.map { state.snapshot.revision(of: $0) ?? 0 }
        let batch = CatalogueState.Batch(
            changes: try zip(ids, before).map { id, revision in
                .upsert(
                    StoredTemplate(
                        template: try retitled(catalogue, id, "publié"),
                        revision: revision + 1,
                        updatedAt: "2026-11-28T12:00:00Z",
                        updatedBy: "ed"
                    )
                )
            }
        )

        let done = Atomic<Bool>(false)
        let reads = Atomic<Int>(0)
        let mixed = Mutex<[[Int]]>([])
        let reader = Thread {
            while !done.load(ordering: .acquiring) {
                let snapshot = state.snapshot
                let revisions = ids.map { snapshot.revision(of: $0) ?? 0 }
                let published = zip(revisions, before).map { $0 > $1 }
                if Set(published).count > 1 { mixed.withLock { $0.append(revisions) } }
                reads.add(1, ordering: .relaxed)
            }
        }
        reader.start()
        while reads.load(ordering: .relaxed) < 10 { usleep(100) }
        let published = try state.publish(batch, store: try scratchStore())
        let after = reads.load(ordering: .relaxed)
        while reads.load(ordering: .relaxed) < after + 10 { usleep(100) }
        done.store(true, ordering: .releasing)

        #expect(published == 3)
        #expect(mixed.withLock { $0 }.isEmpty)
        #expect(swaps.all.count == 1)
        let tags = try #require(swaps.lastTags)
        for id in ids { #expect(tags.contains(.template(id))) }
        for id in ids { #expect(state.snapshot.revision(of: id) == (before[ids.firstIndex(of: id)!] + 1)) }
        // The same batch again is as new as what is served: nothing is swapped.
        #expect(try state.publish(batch, store: try scratchStore()) == 0)
        #expect(swaps.all.count == 1)
    }
}
