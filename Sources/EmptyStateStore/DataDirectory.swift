import Foundation

/// The data directory (`--data-dir`): the SQLite stores and the generated admin token, made for
/// the server's user alone.
///
/// Everything in it is confidential to some degree (the templates' unpublished history, the
/// events' install ids, the console's sessions, an admin token), so the server never relies on
/// the umask it inherited: the directory is created with mode 0700 and every file the process
/// creates afterwards gets at most 0600 (`umask(077)`, process-wide: SQLite creates its `-wal`
/// and `-shm` files later, at its own pace). A directory that already exists keeps its mode;
/// docs/security.md says how to check it. `SQLiteStores` prepares it before opening a database
/// (and so before any file is made); the application once more for PostgreSQL, where it only
/// receives a generated admin token.
package enum DataDirectory {
    /// Why the directory cannot be made; the description names it.
    package struct PrepareError: Error, CustomStringConvertible {
        package let description: String
    }

    /// Makes `path` (and missing parents) with mode 0700 when it does not exist, and sets the
    /// process's umask to 077.
    package static func prepare(_ path: String) throws(PrepareError) {
        umask(0o077)
        do {
            try FileManager.default.createDirectory(
                atPath: path,
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
        } catch {
            throw PrepareError(description: "cannot create the data directory \(path): \(error.localizedDescription)")
        }
    }
}
