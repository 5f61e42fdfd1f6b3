import Foundation
import Logging

/// An analytics event as the app recorded it, waiting to be delivered.
struct QueuedEvent: Sendable, Codable, Hashable {
    var id: UUID
    /// `displayed` or `actionTapped`.
    var type: String
    var templateId: String
    var revision: Int?
    var etag: String?
    var locale: String
    var platform: String
    var appVersion: String
    var actionId: String?
    var sessionId: String?
    var occurredAt: Date
    /// The experiment and variant shown, and the install (absent in events queued before
    /// experiments existed: decoded as `nil`).
    var experimentId: String?
    var variant: String?
    var installId: String?
    /// When the install was first launched (the configuration's `installedAt`), with
    /// `installId` (absent in events queued by earlier versions: decoded as `nil`).
    var installedAt: Date?
}

/// The events not yet acknowledged by the service, in memory and in a file, so that they survive
/// the app being killed.
///
/// The file holds one JSON event a line: a new event is appended; an acknowledged batch rewrites
/// it without those events (atomically). Past `capacity` events the oldest are dropped. Calls are
/// synchronous (a short append) so that an app can record an event from any code.
final class EventQueue: Sendable {
    private let events: Locked<[QueuedEvent]>
    private let fileURL: URL?
    private let capacity: Int
    private let logger: Logger

    /// Reads the events a previous run left in `fileURL`.
    init(fileURL: URL?, capacity: Int, logger: Logger) {
        self.fileURL = fileURL
        self.capacity = capacity
        self.logger = logger
        var loaded: [QueuedEvent] = []
        if let fileURL, let data = try? Data(contentsOf: fileURL) {
            let decoder = JSONDecoder()
            for line in data.split(separator: UInt8(ascii: "\n")) where !line.isEmpty {
                // A line cut short by a kill during an append is skipped; the others are kept.
                if let event = try? decoder.decode(QueuedEvent.self, from: Data(line)) { loaded.append(event) }
            }
        }
        events = Locked(Array(loaded.suffix(capacity)))
    }

    var count: Int { events.withLock { $0.count } }

    /// The oldest `limit` events.
    func oldest(_ limit: Int) -> [QueuedEvent] {
        events.withLock { Array($0.prefix(limit)) }
    }

    /// Adds `event` and appends it to the file.
    func append(_ event: QueuedEvent) {
        events.withLock { events in
            events.append(event)
            if events.count > capacity {
                let dropped = events.count - capacity
                events.removeFirst(dropped)
                logger.warning(
                    "The event queue is full; the oldest events were dropped",
                    metadata: ["events.dropped": "\(dropped)"]
                )
                rewrite(events)
                return
            }
            guard let fileURL else { return }
            do {
                var line = try JSONEncoder().encode(event)
                line.append(UInt8(ascii: "\n"))
                if !FileManager.default.fileExists(atPath: fileURL.path) {
                    try line.write(to: fileURL, options: .atomic)
                    return
                }
                let handle = try FileHandle(forWritingTo: fileURL)
                defer { try? handle.close() }
                try handle.seekToEnd()
                try handle.write(contentsOf: line)
            } catch {
                logger.warning("An event could not be written to the queue file", metadata: ["error": "\(error)"])
            }
        }
    }

    /// Forgets the events with these ids (delivered, or refused for good).
    func remove(_ ids: Set<UUID>) {
        events.withLock { events in
            let before = events.count
            events.removeAll { ids.contains($0.id) }
            if events.count != before { rewrite(events) }
        }
    }

    /// Writes `events` as the whole file; called with the lock held, so writes keep their order.
    private func rewrite(_ events: [QueuedEvent]) {
        guard let fileURL else { return }
        do {
            let encoder = JSONEncoder()
            var data = Data()
            for event in events {
                data.append(try encoder.encode(event))
                data.append(UInt8(ascii: "\n"))
            }
            try data.write(to: fileURL, options: .atomic)
        } catch {
            logger.warning("The event queue file could not be rewritten", metadata: ["error": "\(error)"])
        }
    }
}
