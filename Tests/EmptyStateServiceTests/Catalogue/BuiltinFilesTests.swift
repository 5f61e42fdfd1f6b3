import EmptyStateCore
import Foundation
import Testing

@testable import EmptyStateService

/// The files compiled into the binary are the repository's: a template added to config/templates
/// without its block in Sources/CAssets/catalogue.c, or a block whose file is gone, fails here.
@Suite("BuiltinFiles")
struct BuiltinFilesTests {
    private static let templates = ServiceFixture.root.appendingPathComponent("config/templates")

    @Test("every config/templates/*.json is compiled in, byte for byte, and nothing else")
    func templatesMatchTheRepository() throws {
        let onDisk = try FileManager.default.contentsOfDirectory(atPath: Self.templates.path)
            .filter { $0.hasSuffix(".json") }.sorted()
        let builtin = BuiltinFiles.templates
        #expect(builtin.map(\.name).sorted() == onDisk)
        for file in builtin {
            let bytes = try Data(contentsOf: Self.templates.appendingPathComponent(file.name))
            #expect(file.bytes == Array(bytes), "\(file.name) differs from config/templates")
        }
    }

    @Test("the compiled-in openapi.yaml is the repository's")
    func openAPIMatchesTheRepository() throws {
        let bytes = try Data(contentsOf: ServiceFixture.root.appendingPathComponent("openapi.yaml"))
        #expect(BuiltinFiles.openAPI == Array(bytes))
    }

    @Test("the compiled-in catalogue loads as the directory does")
    func builtinCatalogueLoads() throws {
        let builtin = try CatalogueLoader.load(files: BuiltinFiles.templates, source: BuiltinFiles.catalogueSource)
        let directory = try CatalogueLoader.load(directory: Self.templates.path)
        #expect(builtin.templates.map(\.id) == directory.templates.map(\.id))
    }

    @Test("a broken compiled-in file is reported with its built-in name")
    func problemsNameTheBuiltinSource() {
        #expect {
            _ = try CatalogueLoader.load(
                files: [(name: "loading.json", bytes: Array(#"{"id": "loading",}"#.utf8))],
                source: BuiltinFiles.catalogueSource
            )
        } throws: { error in
            (error as? CatalogueError)?.description.contains("built-in:config/templates/loading.json") == true
        }
    }
}
