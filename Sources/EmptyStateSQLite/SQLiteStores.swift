import EmptyStateStore
import Foundation
import Logging

/// The embedded backend as a process opens it: `store.sqlite` (templates, revisions, audit,
/// app policies, experiments, console sessions) and `events.sqlite` (analytics) in the data
/// directory, which is created when missing. What `empty-state-server` runs on without
/// `--database-url`, and what the service's tests build the same application on.
package final class SQLiteStores: Stores {
    /// The files' names in the data directory.
    package static let templatesFile = "store.sqlite"
    package static let eventsFile = "events.sqlite"

    /// Why the stores cannot be opened: the message names the directory or file and the reason.
    package struct OpenError: Error, CustomStringConvertible {
        package let description: String
    }

    package let templateStore: SQLiteTemplateStore
    package let eventStore: SQLiteEventStore
    package let location: String
    private let commitObserver = CommitObserver()

    /// Opens (creating and migrating when needed) the two databases in `directory`.
    /// - Parameter countsRollups: whether event commits count rollups (`false` only for the
    ///   benchmark of what they cost: `EMPTY_STATE_BENCH_WITHOUT_ROLLUPS`).
    package init(directory: String, countsRollups: Bool = true, logger: Logger) throws(OpenError) {
        do {
            try DataDirectory.prepare(directory)  // 0700, and the databases' files 0600
        } catch {
            throw OpenError(description: error.description)
        }
        let templatesPath = Self.path(of: Self.templatesFile, in: directory)
        let eventsPath = Self.path(of: Self.eventsFile, in: directory)
        let observer = commitObserver
        do {
            templateStore = try SQLiteTemplateStore(path: templatesPath, logger: logger) {
                observer.tell("templates", $0)
            }
        } catch {
            throw OpenError(description: "cannot use the store \(templatesPath): \(error)")
        }
        do {
            eventStore = try SQLiteEventStore(path: eventsPath, countsRollups: countsRollups, logger: logger) {
                observer.tell("events", $0)
            }
        } catch {
            throw OpenError(description: "cannot use the event store \(eventsPath): \(error)")
        }
        location = templatesPath
    }

    package var templates: any TemplateStoring { templateStore }
    package var events: any EventStoring { eventStore }
    package var sessions: any SessionStoring { templateStore }
    package var webhooks: any WebhookStoring { templateStore }
    package var tokens: any AdminTokenStoring { templateStore }

    package func observeCommits(_ observer: @escaping @Sendable (_ store: String, _ seconds: Double) -> Void) {
        commitObserver.set(observer)
    }

    private static func path(of file: String, in directory: String) -> String {
        directory.hasSuffix("/") ? directory + file : directory + "/" + file
    }
}
