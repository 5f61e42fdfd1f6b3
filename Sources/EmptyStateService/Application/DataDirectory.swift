import Foundation

/// The data directory (`--data-dir`): the SQLite stores and the generated admin token, made for
/// the server's user alone.
///
/// Everything in it is confidential to some degree (the templates' unpublished history, the
/// events' install ids, the console's sessions, an admin token), so the server never relies on
/// the umask it inherited: the directory is created with mode 0700 and every file the process
/// creates afterwards gets at most 0600 (`umask(077)`, process-wide: SQLite creates its `-wal`
/// and `-shm` files later, at its own pace). A directory that already exists keeps its mode;
/// docs/security.md says how to check it.
enum DataDirectory {
    /// Makes `path` (and missing parents) with mode 0700 when it does not exist, and sets the
    /// process's umask to 077.
    /// - Throws: `EmptyStateApplication.StartupError` when the directory cannot be created.
    static func prepare(_ path: String) throws {
        umask(0o077)
        do {
            try FileManager.default.createDirectory(
                atPath: path,
                withIntermediateDirectories: true,
                attributes: [.posixPermissions: 0o700]
            )
        } catch {
            throw EmptyStateApplication.StartupError(
                description: "cannot create the data directory \(path): \(error.localizedDescription)"
            )
        }
    }
}
