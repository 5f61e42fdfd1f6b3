import EmptyStateCore
import EmptyStateStore
import Foundation
import Logging
import Testing

/// Opens a store in a fresh temporary directory.
func makeStore() throws -> (TemplateStore, String) {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("store-\(UUID().uuidString)").path
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    let path = directory + "/store.sqlite"
    return (try TemplateStore(path: path, logger: Logger(label: "test")), path)
}

@Suite("TemplateStore basics")
struct TemplateStoreBasicsTests {
    @Test("an empty store lists nothing")
    func emptyStore() throws {
        let (store, _) = try makeStore()
        #expect(try store.liveTemplates().isEmpty)
        #expect(try store.list(page: 1, pageSize: 10).total == 0)
    }
}
