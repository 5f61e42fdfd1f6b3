import CAssets
import EmptyStateCore

/// The files the service reads at start when no flag names others, compiled into the binary
/// (`CAssets`, C23 `#embed`): the built-in catalogue and the OpenAPI document. The binary, a
/// package or an image then needs nothing beside it, and runs from any directory.
package enum BuiltinFiles {
    /// What start-up errors name as the catalogue's place: the repository folder it was built from.
    package static let catalogueSource = "built-in:config/templates"

    /// The templates of config/templates at build time: each `<id>.json` and its bytes.
    package static var templates: [(name: String, bytes: [UInt8])] {
        (0..<CAssets_builtinTemplateCount()).map { index in
            let file = CAssets_builtinTemplate(index)
            return (String(cString: file.name), Array(UnsafeBufferPointer(start: file.bytes, count: file.count)))
        }
    }

    /// The repository's openapi.yaml at build time.
    package static var openAPI: [UInt8] {
        var count = 0
        let pointer = CAssets_openAPI(&count)
        return Array(UnsafeBufferPointer(start: pointer, count: count))
    }
}
