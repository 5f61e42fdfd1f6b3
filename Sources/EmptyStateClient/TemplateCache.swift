import Foundation
import Logging

/// A template as cached: the copy, its `ETag`, when it was received and how long it may be used.
struct CachedTemplate: Sendable, Codable {
    var template: EmptyStateTemplate
    var etag: String?
    /// When the service last sent or confirmed (304) this copy.
    var receivedAt: Date
    var policy: CachePolicy

    /// How old the copy is at `now`.
    func age(at now: Date) -> TimeInterval { now.timeIntervalSince(receivedAt) }
}

/// The templates received, in memory and as last-known-good copies on disk.
///
/// Reads take the current dictionary under a lock and never wait for the network or the disk;
/// the disk is written when a copy arrives and read once per key, on the first miss.
final class TemplateCache: Sendable {
    private let memory = Locked<[String: CachedTemplate]>([:])
    /// Keys already looked up on disk (found or not), so a miss reads the disk once.
    private let diskChecked = Locked<Set<String>>([])
    private let directory: URL?
    private let logger: Logger

    /// - Parameter directory: where last-known-good copies are kept; `nil` keeps them in memory only.
    init(directory: URL?, logger: Logger) {
        self.directory = directory
        self.logger = logger
        if let directory {
            try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        }
    }

    /// The copy in memory for `key`, if any: the hot path.
    func memoryEntry(_ key: String) -> CachedTemplate? {
        memory.withLock { $0[key] }
    }

    /// The copy for `key`, from memory, else from disk (once per key).
    func entry(_ key: String) -> CachedTemplate? {
        if let entry = memoryEntry(key) { return entry }
        guard let directory, diskChecked.withLock({ $0.insert(key).inserted }) else { return nil }
        let url = fileURL(key, in: directory)
        guard let data = try? Data(contentsOf: url) else { return nil }
        do {
            let stored = try JSONDecoder().decode(StoredEntry.self, from: data)
            guard stored.key == key else { return nil }
            memory.withLock { entries in
                if entries[key] == nil { entries[key] = stored.entry }
            }
            return memoryEntry(key)
        } catch {
            logger.warning(
                "A cached template could not be read; it is ignored",
                metadata: ["cache.file": "\(url.lastPathComponent)", "error": "\(error)"]
            )
            return nil
        }
    }

    /// Keeps `entry` for `key` in memory and on disk.
    func store(_ entry: CachedTemplate, for key: String) {
        memory.withLock { $0[key] = entry }
        guard let directory else { return }
        do {
            let data = try JSONEncoder().encode(StoredEntry(key: key, entry: entry))
            try data.write(to: fileURL(key, in: directory), options: .atomic)
        } catch {
            logger.warning(
                "A template could not be cached on disk",
                metadata: ["template.id": "\(entry.template.id)", "error": "\(error)"]
            )
        }
    }

    /// Forgets `key` (the service said the template no longer exists).
    func remove(_ key: String) {
        memory.withLock { $0[key] = nil }
        if let directory { try? FileManager.default.removeItem(at: fileURL(key, in: directory)) }
    }

    /// The file of `key`: a stable 64-bit FNV-1a hash of it (the key itself is inside the file).
    private func fileURL(_ key: String, in directory: URL) -> URL {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return directory.appendingPathComponent(String(hash, radix: 16) + ".json")
    }

    private struct StoredEntry: Codable {
        var key: String
        var entry: CachedTemplate
    }
}
