import Foundation

/// Where the tests that start the real server find it.
package enum ServerBinary {
    /// `empty-state-server` built beside the test bundle: in the directory of
    /// `CommandLine.arguments[0]` (or of the bundle's executable) or one of its ancestors; `nil`
    /// when it was not built.
    package static func url() -> URL? {
        var candidates: [URL] = []
        for start in [CommandLine.arguments.first, Bundle.main.executablePath].compactMap({ $0 }) {
            var directory = URL(fileURLWithPath: start).resolvingSymlinksInPath().deletingLastPathComponent()
            while directory.path != "/" && !directory.path.isEmpty {
                candidates.append(directory)
                directory = directory.deletingLastPathComponent()
            }
        }
        return candidates.map { $0.appendingPathComponent("empty-state-server") }.first {
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: $0.path, isDirectory: &isDirectory) && !isDirectory.boolValue
                && FileManager.default.isExecutableFile(atPath: $0.path)
        }
    }
}
