import Dispatch
import Foundation
import JSONCoding
import Synchronization

/// Reads the built-in templates: one `<id>.json` per template in a directory.
package enum CatalogueLoader {
    /// Loads and validates every `*.json` file in `directory`.
    /// - Throws: `CatalogueError` listing every broken rule in every file (file, JSON pointer, rule),
    ///   so one start shows all there is to fix.
    package static func load(directory: String) throws(CatalogueError) -> Catalogue {
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.hasSuffix(".json") }
                .sorted()
        } catch {
            throw CatalogueError(problems: [
                .init(
                    source: directory,
                    issue: ValidationIssue("", "cannot list the directory: \(error.localizedDescription)")
                )
            ])
        }
        guard !names.isEmpty else {
            throw CatalogueError(problems: [
                .init(source: directory, issue: ValidationIssue("", "holds no *.json template"))
            ])
        }
        // Files are read and parsed on every core (10,000 templates take seconds on one), in
        // chunks; the results are put together in file order, so problems read the same way.
        let outcomes = Mutex<[Int: Result<Template, CatalogueError>]>([:])
        let chunk = 64
        DispatchQueue.concurrentPerform(iterations: (names.count + chunk - 1) / chunk) { part in
            var parsed: [Int: Result<Template, CatalogueError>] = [:]
            for index in (part * chunk)..<min(names.count, (part + 1) * chunk) {
                let path = (directory as NSString).appendingPathComponent(names[index])
                parsed[index] = parse(file: path, name: names[index])
            }
            outcomes.withLock { $0.merge(parsed) { first, _ in first } }
        }
        var problems: [CatalogueError.Problem] = []
        var templates: [Template] = []
        var sources: [String: String] = [:]
        let results = outcomes.withLock { $0 }
        for index in names.indices {
            switch results[index]! {
            case .success(let template):
                templates.append(template)
                sources[template.id] = (directory as NSString).appendingPathComponent(names[index])
            case .failure(let found):
                problems += found.problems
            }
        }
        guard problems.isEmpty else { throw CatalogueError(problems: problems) }
        return try Catalogue(templates: templates, sources: sources)
    }

    /// One file: its template, or every problem in it.
    private static func parse(file path: String, name: String) -> Result<Template, CatalogueError> {
        guard let data = FileManager.default.contents(atPath: path) else {
            return .failure(
                CatalogueError(problems: [.init(source: path, issue: ValidationIssue("", "cannot be read"))])
            )
        }
        let document: JSONValue
        do {
            document = try JSONParser.parse(Array(data))
        } catch {
            return .failure(
                CatalogueError(problems: [.init(source: path, issue: ValidationIssue("", error.description))])
            )
        }
        switch TemplateParser.parse(document, expectedID: String(name.dropLast(".json".count))) {
        case .success(let template): return .success(template)
        case .failure(let failure):
            return .failure(CatalogueError(problems: failure.issues.map { .init(source: path, issue: $0) }))
        }
    }
}
