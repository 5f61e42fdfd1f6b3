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
        let paths = names.map { (directory as NSString).appendingPathComponent($0) }
        return try assemble(sources: paths) { index in
            let path = paths[index]
            guard let data = FileManager.default.contents(atPath: path) else {
                return .failure(
                    CatalogueError(problems: [.init(source: path, issue: ValidationIssue("", "cannot be read"))])
                )
            }
            return parse(Array(data), source: path, name: names[index])
        }
    }

    /// Validates templates given as bytes, such as the catalogue compiled into the binary, with
    /// the rules and messages of `load(directory:)`.
    /// - Parameters:
    ///   - files: each file's name (`<id>.json`) and bytes.
    ///   - source: what problems name in place of a directory (`built-in:config/templates`).
    package static func load(
        files: [(name: String, bytes: [UInt8])],
        source: String
    ) throws(CatalogueError) -> Catalogue {
        guard !files.isEmpty else {
            throw CatalogueError(problems: [
                .init(source: source, issue: ValidationIssue("", "holds no *.json template"))
            ])
        }
        let files = files.sorted { $0.name < $1.name }
        let paths = files.map { source + "/" + $0.name }
        return try assemble(sources: paths) { index in
            parse(files[index].bytes, source: paths[index], name: files[index].name)
        }
    }

    /// Parses each file with `parseOne` (its index in `sources`, the names problems use) and puts
    /// them together in file order.
    private static func assemble(
        sources paths: [String],
        _ parseOne: @Sendable (Int) -> Result<Template, CatalogueError>
    ) throws(CatalogueError) -> Catalogue {
        // Files are read and parsed on every core (10,000 templates take seconds on one), in
        // chunks; the results are put together in file order, so problems read the same way.
        let results = (0..<paths.count).concurrentMap(parseOne)
        var problems: [CatalogueError.Problem] = []
        var templates: [Template] = []
        var sources: [String: String] = [:]
        for index in results.indices {
            switch results[index] {
            case .success(let template):
                templates.append(template)
                sources[template.id] = paths[index]
            case .failure(let found):
                problems += found.problems
            }
        }
        guard problems.isEmpty else { throw CatalogueError(problems: problems) }
        return try Catalogue(templates: templates, sources: sources)
    }

    /// One file: its template, or every problem in it (`source` names the file in problems).
    private static func parse(_ bytes: [UInt8], source path: String, name: String) -> Result<Template, CatalogueError> {
        let document: JSONValue
        do {
            document = try JSONParser.parse(bytes)
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
