import CAssets

/// The admin console's files (`Console/`: hand-written HTML, CSS and ES modules, no build step),
/// compiled into the binary (`CAssets`) and served at `/admin/`.
package enum ConsoleAssets {
    /// The path the console is served under: `/admin/` is `index.html`, `/admin/<name>` a file.
    package static let pathPrefix = "/admin/"

    /// Every file, by name.
    package static let files: [String: WebAsset] = {
        var files: [String: WebAsset] = [:]
        for index in 0..<CAssets_consoleFileCount() {
            var name: UnsafePointer<CChar>?
            var count = 0
            guard let bytes = CAssets_consoleFile(index, &name, &count), let name else { continue }
            let fileName = String(cString: name)
            files[fileName] = WebAsset(
                name: fileName,
                contentType: contentType(of: fileName),
                bytes: Array(UnsafeBufferPointer(start: bytes, count: count))
            )
        }
        return files
    }()

    /// The console's page.
    package static var index: WebAsset { files["index.html"]! }

    package static func contentType(of name: String) -> String {
        if name.hasSuffix(".html") { return "text/html; charset=utf-8" }
        if name.hasSuffix(".css") { return "text/css; charset=utf-8" }
        if name.hasSuffix(".js") { return "text/javascript; charset=utf-8" }
        return "application/octet-stream"
    }
}
