import EmptyStateCore
import Foundation
import JSONCoding
import Testing

@Suite("CatalogueLoader on config/templates")
struct BuiltInCatalogueTests {
    private let catalogue: Catalogue

    init() throws {
        catalogue = try CatalogueLoader.load(directory: Repository.templatesDirectory)
    }

    @Test("loads the 15 built-in templates, sorted by id")
    func count() {
        #expect(catalogue.templates.count == 15)
        #expect(catalogue.templates.map(\.id) == catalogue.templates.map(\.id).sorted())
        #expect(catalogue.template(named: "connectionRefused")?.id == "connectionRefused")
        #expect(catalogue.template(named: "verifyIdentity")?.id == "verifyIdentity")
    }

    @Test(
        "aliases resolve to their template",
        arguments: [
            ("noInternetConnection", "connectionRefused"),
            ("noNetwork", "connectionRefused"),
            ("loadingFailure", "somethingWentWrong"),
            ("failToLoad", "somethingWentWrong"),
            ("noResults", "noSearchResults"),
        ]
    )
    func alias(alias: String, id: String) {
        #expect(catalogue.aliases[alias] == id)
        #expect(catalogue.template(named: alias)?.id == id)
    }

    @Test("has exactly those five aliases, and names are case-sensitive")
    func aliasSet() {
        #expect(
            Set(catalogue.aliases.keys)
                == ["noInternetConnection", "noNetwork", "loadingFailure", "failToLoad", "noResults"]
        )
        #expect(catalogue.template(named: "ConnectionRefused") == nil)
        #expect(catalogue.template(named: "nonexistent") == nil)
    }

    @Test("every template has the seven shipped locales, en by default")
    func locales() {
        for template in catalogue.templates {
            #expect(
                Set(template.strings.map(\.locale)) == ["en", "es", "fr", "de", "pt-BR", "ja", "ar"],
                "\(template.id)"
            )
            #expect(template.defaultLocale == "en", "\(template.id)")
        }
        #expect(catalogue.locales == ["en", "es", "fr", "de", "pt-BR", "ja", "ar", "en-XA", "ar-XB"])
    }
}

@Suite("CatalogueLoader on broken directories")
struct BrokenCatalogueTests {
    /// A fresh directory under the system temporary directory, removed by `body`'s caller.
    private func withDirectory(_ files: [String: String], _ body: (String) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("catalogue-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for (name, text) in files {
            try Data(text.utf8).write(to: directory.appendingPathComponent(name))
        }
        try body(directory.path)
    }

    /// Why `directory` does not load; `nil` when it does.
    private func loadError(_ directory: String) -> CatalogueError? {
        do {
            _ = try CatalogueLoader.load(directory: directory)
            return nil
        } catch {
            return error
        }
    }

    /// The problems of loading `directory`; none when it loads.
    private func problems(_ directory: String) -> [CatalogueError.Problem] {
        loadError(directory)?.problems ?? []
    }

    private func text(_ document: JSONValue) -> String {
        var writer = JSONWriter()
        writer.value(document)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    private func template(id: String, aliases: [String] = []) -> String {
        text(
            Documents.minimal
                .setting("/id", to: .string(id))
                .setting("/aliases", to: .array(aliases.map { .string($0) }))
        )
    }

    @Test("loads a directory of valid templates and ignores other files")
    func valid() throws {
        try withDirectory(
            ["first.json": template(id: "first"), "second.json": template(id: "second"), "notes.txt": "hi"]
        ) { directory in
            let catalogue = try CatalogueLoader.load(directory: directory)
            #expect(catalogue.templates.map(\.id) == ["first", "second"])
        }
    }

    @Test("a broken file is named with its path, the pointer and the rule")
    func brokenFile() throws {
        let broken = text(
            Documents.minimal.setting("/id", to: .string("broken")).setting("/category", to: .string("oops"))
        )
        try withDirectory(["good.json": template(id: "good"), "broken.json": broken]) { directory in
            let path = (directory as NSString).appendingPathComponent("broken.json")
            let problems = problems(directory)
            #expect(problems.map(\.source) == [path])
            #expect(problems.map(\.issue.pointer) == ["/category"])
            #expect(problems.first?.issue.rule.contains("must be one of firstUse") == true)
            let description = try #require(loadError(directory)).description
            #expect(description.hasPrefix("\(path): /category: must be one of firstUse"), "\(description)")
        }
    }

    @Test("a file whose id is not its name is refused")
    func idNotFileName() throws {
        try withDirectory(["renamed.json": template(id: "original")]) { directory in
            let problems = problems(directory)
            #expect(problems.map(\.issue.pointer) == ["/id"])
            #expect(problems.first?.source.hasSuffix("/renamed.json") == true)
        }
    }

    @Test("a file that is not JSON names the byte offset")
    func notJSON() throws {
        try withDirectory(["bad.json": "{\"id\": \"bad\",}"]) { directory in
            let problems = problems(directory)
            #expect(problems.count == 1)
            #expect(problems.first?.source.hasSuffix("/bad.json") == true)
            #expect(problems.first?.issue.pointer == "")
            #expect(problems.first?.issue.rule.contains("invalid JSON at byte 13") == true)
        }
    }

    @Test("reports the problems of every broken file at once")
    func everyFile() throws {
        let first = text(Documents.minimal.setting("/id", to: .string("a")).setting("/style", to: .string("x")))
        let second = text(Documents.minimal.setting("/id", to: .string("b")).setting("/visual", to: nil))
        try withDirectory(["a.json": first, "b.json": second]) { directory in
            let problems = problems(directory)
            #expect(problems.map { ($0.source as NSString).lastPathComponent } == ["a.json", "b.json"])
            #expect(problems.map(\.issue.pointer) == ["/style", "/visual"])
        }
    }

    @Test("an alias used by two files is reported in the second file")
    func aliasClash() throws {
        try withDirectory(
            [
                "alpha.json": template(id: "alpha", aliases: ["shared"]),
                "beta.json": template(id: "beta", aliases: ["own", "shared"]),
            ]
        ) { directory in
            let problems = problems(directory)
            #expect(problems.count == 1)
            let problem = try #require(problems.first)
            #expect(problem.source == (directory as NSString).appendingPathComponent("beta.json"))
            #expect(problem.issue.pointer == "/aliases/1")
            #expect(problem.issue.rule == "\"shared\" is already an alias of alpha")
        }
    }

    @Test("an alias equal to another template's id is reported")
    func aliasIsAnID() throws {
        try withDirectory(
            ["alpha.json": template(id: "alpha"), "beta.json": template(id: "beta", aliases: ["alpha"])]
        ) { directory in
            let problems = problems(directory)
            #expect(problems.map(\.issue.pointer) == ["/aliases/0"])
            #expect(problems.first?.issue.rule == "\"alpha\" is the id of another template")
            #expect(problems.first?.source.hasSuffix("/beta.json") == true)
        }
    }

    @Test("an empty or missing directory is refused")
    func emptyOrMissing() throws {
        try withDirectory(["README.md": "# nothing"]) { directory in
            #expect(problems(directory).first?.issue.rule == "holds no *.json template")
        }
        let missing = "/nonexistent-\(UUID().uuidString)"
        let missingProblems = problems(missing)
        #expect(missingProblems.first?.source == missing)
        #expect(missingProblems.first?.issue.rule.hasPrefix("cannot list the directory") == true)
    }
}
