import Foundation
import JSONCoding

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
        var problems: [CatalogueError.Problem] = []
        var templates: [Template] = []
        var sources: [String: String] = [:]
        for name in names {
            let path = (directory as NSString).appendingPathComponent(name)
            guard let data = FileManager.default.contents(atPath: path) else {
                problems.append(.init(source: path, issue: ValidationIssue("", "cannot be read")))
                continue
            }
            let document: JSONValue
            do {
                document = try JSONParser.parse(Array(data))
            } catch {
                problems.append(.init(source: path, issue: ValidationIssue("", error.description)))
                continue
            }
            switch TemplateParser.parse(document, expectedID: String(name.dropLast(".json".count))) {
            case .success(let template):
                templates.append(template)
                sources[template.id] = path
            case .failure(let failure):
                problems += failure.issues.map { CatalogueError.Problem(source: path, issue: $0) }
            }
        }
        guard problems.isEmpty else { throw CatalogueError(problems: problems) }
        return try Catalogue(templates: templates, sources: sources)
    }
}
