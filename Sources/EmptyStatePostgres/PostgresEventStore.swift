import EmptyStateStore
import EmptyStateStoreSQL
import Foundation
import Logging
import PostgresNIO
import Synchronization

/// Analytics events in PostgreSQL, with group commit: the same contract as the SQLite
/// `SQLiteEventStore`.
///
/// `append` returns once its events are committed. Concurrent `append` calls share one
/// transaction: a writer thread takes everything queued since its last commit and stores it with
/// one statement that claims the events' ids in `event_id` (an event sent twice, to one replica
/// or to two, is claimed once), inserts the claimed ones into their day's partition of `event`,
/// adds them to every rollup, and answers the positions of the events it inserted in one array
/// (measured faster than COPY once duplicates must be dropped; see `../shared/notes/postgres.md`).
/// While no event is a duplicate, the claim is a plain insert, and a group holding a stored id
/// fails whole and is committed again skipping stored ids (`ClaimingCommit`, `SkippingCommit`,
/// `DuplicateWatch`). `writers` threads commit in parallel (PostgreSQL's throughput grows with
/// concurrent writers); ids are claimed in `id` order, so two transactions claiming the same ids
/// wait for each other instead of deadlocking.
///
/// **Partitions.** `start()` makes today's partition and a week's ahead before the first commit,
/// a commit makes the partition of a day it has an event of and no partition for (a late event),
/// and retention (`+Retention`) keeps making them ahead and drops the expired ones whole.
///
/// **The export cursor.** With several transactions in flight (on this replica or others), a
/// serial number would not follow commit order: an export could pass a number whose transaction
/// commits later, and skip its rows. So `seq` is the inserting transaction's id shifted left by
/// 16 bits plus the row's position in it, and `events(after:)` returns only rows of
/// transactions older than every transaction still running (`pg_snapshot_xmin`): a row that
/// appears later always has a larger `seq` than every row already exported.
///
/// Ingestion's group commit is here; the analytics reads and the export are in `+Reads`, the
/// pruning of old events in `+Retention`.
package final class PostgresEventStore: EventStoring, GroupCommitting {
    package let database: PostgresBackend
    let logger: Logger
    /// The group commit: `writers` threads, each committing with `commit(_:database:logger:)`.
    private let groups: GroupCommitQueue
    /// The most events one transaction inserts: `seq` has 16 bits for the row's position.
    static let maximumEventsPerTransaction = 60_000
    /// Marks an absent optional text in the insert's arrays: a control character, which no
    /// stored event field can hold (ingestion refuses them).
    fileprivate static let absent = "\u{1}"
    /// The longest an analytics read (a summary over months of events) waits for its answer.
    static let analyticsWait = Duration.seconds(30)

    fileprivate typealias Submission = GroupCommitQueue.Submission

    /// The days whose partitions exist, as far as this process knows.
    let knownPartitions = KnownPartitions()
    /// Whether commits claim ids expecting none was stored before (`ClaimingCommit`).
    package let duplicates: DuplicateWatch

    /// - Parameters:
    ///   - writers: threads committing groups in parallel.
    ///   - duplicates: when a commit last found a stored id (tests give it a clock of their own).
    ///   - countsRollups: whether each commit counts its events into the rollups: always in
    ///     service; `false` only to measure what counting costs ingestion (`make bench`, with
    ///     `EMPTY_STATE_BENCH_WITHOUT_ROLLUPS=1`), and the summaries are then wrong.
    package init(
        database: PostgresBackend,
        writers: Int = 4,
        duplicates: DuplicateWatch = DuplicateWatch(),
        countsRollups: Bool = true,
        logger: Logger,
        onCommit: (@Sendable (Double) -> Void)? = nil
    ) {
        self.database = database
        self.duplicates = duplicates
        self.logger = logger
        let known = knownPartitions
        let duplicates = duplicates
        groups = GroupCommitQueue(writers: writers, onCommit: onCommit) { group, _ in
            Self.commitInTransactions(
                group,
                countsRollups: countsRollups,
                known: known,
                duplicates: duplicates,
                database: database,
                logger: logger
            )
        }
    }

    package var location: String { database.location }

    /// Makes the partitions events are about to go to (today's and the week ahead), then starts
    /// the writers. A failure to make them is logged: a commit makes the partition it needs, and
    /// retention makes them ahead again hourly.
    package func start() {
        do {
            try ensurePartitionsAhead()
        } catch {
            logger.error(
                "making the event partitions failed",
                metadata: ["error": "\(error)", "store.url": "\(database.location)"]
            )
        }
        groups.start()
    }

    package func stop() { groups.stop() }

    package var commitProgress: GroupCommitQueue.Progress { groups.progress }

    package func append(_ events: [AnalyticsEvent], quarantined: [QuarantinedEvent]) throws(StoreError) -> [Bool] {
        guard database.isReachable else {
            throw .unavailable("the database at \(location) is unreachable (waiting for it to come back)")
        }
        return try groups.append(events, quarantined: quarantined)
    }

    /// Commits `group` in as few transactions as `maximumEventsPerTransaction` allows (one,
    /// unless a burst queued more); a submission is never split.
    private static func commitInTransactions(
        _ group: [Submission],
        countsRollups: Bool,
        known: KnownPartitions,
        duplicates: DuplicateWatch,
        database: PostgresBackend,
        logger: Logger
    ) -> Result<[[Bool]], StoreError> {
        var outcomes: [[Bool]] = []
        var chunk: [Submission] = []
        var events = 0
        func flush() -> StoreError? {
            defer {
                chunk.removeAll()
                events = 0
            }
            switch commit(
                chunk,
                countsRollups: countsRollups,
                known: known,
                duplicates: duplicates,
                database: database,
                logger: logger
            ) {
            case .success(let done): outcomes += done
            case .failure(let error): return error
            }
            return nil
        }
        for submission in group {
            if !chunk.isEmpty, events + submission.events.count > maximumEventsPerTransaction, let error = flush() {
                return .failure(error)
            }
            chunk.append(submission)
            events += submission.events.count
        }
        if !chunk.isEmpty, let error = flush() { return .failure(error) }
        return .success(outcomes)
    }

    /// The columns of one group's events, as arrays for `unnest`.
    fileprivate struct Columns: Sendable {
        var id: [String] = []
        var type: [String] = []
        var templateID: [String] = []
        var revision: [Int64] = []
        var etag: [String] = []
        var locale: [String] = []
        var platform: [String] = []
        var appVersion: [String] = []
        var actionID: [String] = []
        var sessionID: [String] = []
        var occurredAt: [Int64] = []
        var receivedAt: [Int64] = []
        var clockSkew: [Int64] = []
        var requestID: [String] = []
        var variant: [String] = []
        var installID: [String] = []
        /// -1 for none (`$23`).
        var installedAt: [Int64] = []
        var quarantineReceivedAt: [Int64] = []
        var quarantineReason: [String] = []
        var quarantinePayload: [String] = []
        var quarantineRequestID: [String] = []
        /// Whether the statement counts the events into the rollups (`$22`).
        var countsRollups: Bool

        init(_ group: [Submission], countsRollups: Bool) {
            self.countsRollups = countsRollups
            for submission in group {
                for event in submission.events {
                    id.append(event.id)
                    type.append(event.kind.rawValue)
                    templateID.append(event.templateID)
                    revision.append(event.revision.map(Int64.init) ?? -1)
                    etag.append(event.etag ?? PostgresEventStore.absent)
                    locale.append(event.locale)
                    platform.append(event.platform)
                    appVersion.append(event.appVersion)
                    actionID.append(event.actionID ?? PostgresEventStore.absent)
                    sessionID.append(event.sessionID ?? PostgresEventStore.absent)
                    occurredAt.append(event.occurredAt)
                    receivedAt.append(event.receivedAt)
                    clockSkew.append(event.clockSkewMilliseconds)
                    requestID.append(event.requestID)
                    variant.append(event.variant ?? PostgresEventStore.absent)
                    installID.append(event.installID ?? PostgresEventStore.absent)
                    installedAt.append(event.installedAt ?? -1)
                }
                for item in submission.quarantined {
                    quarantineReceivedAt.append(item.receivedAt)
                    quarantineReason.append(item.reason)
                    // PostgreSQL text cannot hold NUL; the payload is kept for a human to read.
                    quarantinePayload.append(item.payload.replacingOccurrences(of: "\u{0}", with: "\u{FFFD}"))
                    quarantineRequestID.append(item.requestID)
                }
            }
        }
    }

    /// One transaction: the chunk's events, their rollups, and the quarantined events.
    private static func commit(
        _ group: [Submission],
        countsRollups: Bool,
        known: KnownPartitions,
        duplicates: DuplicateWatch,
        database: PostgresBackend,
        logger: Logger
    ) -> Result<[[Bool]], StoreError> {
        let columns = Columns(group, countsRollups: countsRollups)
        do {
            try Self.ensurePartitions(
                days: Set(columns.occurredAt.map { RollupGrain.day.bucket(of: $0) }),
                known: known,
                database: database,
                logger: logger
            )
            // One statement, so one round trip (see `ClaimingCommit`), and a second one only
            // when an event was stored before.
            let claiming = duplicates.expectsNone
            let positions = try database.blocking { client, commit in
                try await client.withConnection { connection in
                    try commit.reach()
                    var positions: [Int32] = []
                    if claiming {
                        do {
                            let statement = ClaimingCommit(columns: columns)
                            for try await row in try await connection.execute(statement, logger: logger) {
                                positions = row
                            }
                            return positions
                        } catch let error where ClaimingCommit.isAlreadyClaimed(error) {
                            // It rolled back whole: nothing of the group is stored yet.
                            duplicates.seen()
                            logger.debug(
                                "a group commit held an event stored before; committing it again, skipping stored ids",
                                metadata: ["store.url": "\(database.location)", "events": "\(columns.id.count)"]
                            )
                        }
                    }
                    let statement = SkippingCommit(columns: columns)
                    for try await row in try await connection.execute(statement, logger: logger) { positions = row }
                    return positions
                }
            }
            var inserted = [Bool](repeating: false, count: columns.id.count)
            for position in positions where position >= 1 && Int(position) <= inserted.count {
                inserted[Int(position) - 1] = true
            }
            var next = 0
            return .success(
                group.map { submission in
                    defer { next += submission.events.count }
                    return Array(inserted[next..<next + submission.events.count])
                }
            )
        } catch {
            switch error {
            case .database(let message), .outcomeUnknown(let message):
                logger.error(
                    "event commit failed",
                    metadata: ["error": "\(message)", "store.url": "\(database.location)"]
                )
            default:
                break
            }
            return .failure(error)
        }
    }
}

extension PostgresEventStore {
    /// A group commit's one statement, in either form, prepared once per connection: its text is
    /// the same for every group, and parsing and planning it took about a sixth of PostgreSQL's
    /// time at full ingestion when it was sent as an unnamed statement each time.
    ///
    /// Its quarantine insert, id claims, event insert, rollup deltas and experiment exposures
    /// (data-modifying WITHs, which run whether or not anything refers to them) commit together
    /// as the statement's own transaction; BEGIN and COMMIT would cost two more round trips per
    /// group. It answers one row: the positions (1-based, in `columns` order) of the events it
    /// inserted, which `seq` holds in its low 16 bits. Of an id sent twice in one group, the
    /// first is the one inserted. An id already in `event_legacy` (stored by an earlier release)
    /// is a duplicate too. Ids are claimed in id order, so two transactions claiming the same ids
    /// wait for each other instead of deadlocking.
    /// The statement commits itself: its commit point is where it is sent, once a connection is
    /// leased (a group abandoned while waiting for one is never sent).
    fileprivate protocol GroupCommitStatement: PostgresPreparedStatement where Row == [Int32] {
        var columns: Columns { get }
    }

    /// The group commit as it runs while no event is a duplicate: it claims every new id with a
    /// plain insert, and fails whole (`isAlreadyClaimed`, nothing stored) when one was claimed
    /// before. A duplicate is rare (a client resending a batch whose answer it lost), and
    /// claiming with `ON CONFLICT DO NOTHING`, as `SkippingCommit` does, costs PostgreSQL an
    /// index probe before each insert and a second WAL record after it: measured with pgbench
    /// on the service's schema, this form takes about a sixth less of PostgreSQL's CPU per event.
    fileprivate struct ClaimingCommit: GroupCommitStatement {
        /// Whether `error` is this statement's claim of an id claimed before (a
        /// `unique_violation` of `event_id`'s primary key).
        static func isAlreadyClaimed(_ error: any Error) -> Bool {
            guard let server = (error as? PSQLError)?.serverInfo else { return false }
            return server[.sqlState] == "23505" && server[.constraintName] == "event_id_pkey"
        }
        static let name = "empty_state_event_claim"
        static let sql = commitSQL(
            claims: """
                , fresh AS (
                    SELECT DISTINCT ON (id) * FROM input i
                    WHERE NOT EXISTS (SELECT 1 FROM event_legacy l WHERE l.id = i.id)
                    ORDER BY id, n
                ), claimed AS (
                    INSERT INTO event_id (id, day)
                    SELECT id, (occurred_at / 86400000)::int4 FROM fresh ORDER BY id
                )
                """,
            events: "FROM fresh"
        )
        let columns: Columns
    }

    /// The group commit after a `ClaimingCommit` failed on an id claimed before (and for a second
    /// after that, `DuplicateWatch`): ids already claimed are skipped (`ON CONFLICT DO NOTHING`),
    /// and only the events whose ids it claimed are inserted.
    fileprivate struct SkippingCommit: GroupCommitStatement {
        static let name = "empty_state_event_commit"
        static let sql = commitSQL(
            claims: """
                , claimed AS (
                    INSERT INTO event_id (id, day)
                    SELECT DISTINCT ON (id) id, (occurred_at / 86400000)::int4 FROM input i
                    WHERE NOT EXISTS (SELECT 1 FROM event_legacy l WHERE l.id = i.id)
                    ORDER BY id, n
                    ON CONFLICT (id) DO NOTHING
                    RETURNING id
                )
                """,
            events:
                "FROM (SELECT DISTINCT ON (i.id) i.* FROM input i JOIN claimed c ON c.id = i.id ORDER BY i.id, i.n) i"
        )
        let columns: Columns
    }

    /// A group commit's statement around its id claims (`claims`, which name the events to
    /// insert with `events`, a FROM clause over the columns of `input`).
    private static func commitSQL(claims: String, events: String) -> String {
        // The inserted events counted once by hour and key, appended to the deltas; `$22` false
        // (a benchmark's process, `countsRollups`) is a one-time filter that counts nothing.
        let rollups = """
            , delta AS (
                INSERT INTO \(RollupDelta.table) (\(RollupDelta.columns.joined(separator: ", ")))
                \(HourlyCounts.sql(from: "(SELECT * FROM inserted WHERE $22) AS counted"))
            )
            """
        // $21 marks an absent optional text (`PostgresEventStore.absent`).
        let input = """
            WITH quarantined AS (
                INSERT INTO quarantine (received_at, reason, payload, request_id)
                SELECT * FROM unnest($17::int8[], $18::text[], $19::text[], $20::text[])
            ), input AS (
                SELECT id COLLATE "C" AS id, type, template_id, NULLIF(revision, -1) AS revision,
                    NULLIF(etag, $21) AS etag, locale, platform, app_version,
                    NULLIF(action_id, $21) AS action_id, NULLIF(session_id, $21) AS session_id,
                    occurred_at, received_at, clock_skew_ms, request_id, NULLIF(variant, $21) AS variant,
                    NULLIF(install_id, $21) AS install_id, NULLIF(installed_at, -1) AS installed_at, n
                FROM unnest($1::text[], $2::text[], $3::text[], $4::int8[], $5::text[], $6::text[], $7::text[],
                    $8::text[], $9::text[], $10::text[], $11::int8[], $12::int8[], $13::int8[], $14::text[],
                    $15::text[], $16::text[], $23::int8[])
                    WITH ORDINALITY AS e(id, type, template_id, revision, etag, locale, platform, app_version,
                        action_id, session_id, occurred_at, received_at, clock_skew_ms, request_id, variant,
                        install_id, installed_at, n)
            )
            """
        let inserted = """
            , inserted AS (
                INSERT INTO event (seq, id, type, template_id, revision, etag, locale, platform,
                    app_version, action_id, session_id, occurred_at, received_at, clock_skew_ms, request_id,
                    variant, install_id)
                SELECT (pg_current_xact_id()::text::bigint << 16) + n, id, type,
                    template_id, revision, etag, locale, platform, app_version, action_id, session_id,
                    occurred_at, received_at, clock_skew_ms, request_id, variant, install_id
                \(events)
                RETURNING seq, type, template_id, revision, variant, locale, platform, app_version,
                    action_id, occurred_at, install_id
            )
            """
        let answer = "\nSELECT coalesce(array_agg((seq & 65535)::int4), '{}') FROM inserted"
        return input + claims + inserted + rollups + ExperimentExposureSQL.upserts + answer
    }
}

extension PostgresEventStore.GroupCommitStatement {
    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 23)
        bindings.append(columns.id)
        bindings.append(columns.type)
        bindings.append(columns.templateID)
        bindings.append(columns.revision)
        bindings.append(columns.etag)
        bindings.append(columns.locale)
        bindings.append(columns.platform)
        bindings.append(columns.appVersion)
        bindings.append(columns.actionID)
        bindings.append(columns.sessionID)
        bindings.append(columns.occurredAt)
        bindings.append(columns.receivedAt)
        bindings.append(columns.clockSkew)
        bindings.append(columns.requestID)
        bindings.append(columns.variant)
        bindings.append(columns.installID)
        bindings.append(columns.quarantineReceivedAt)
        bindings.append(columns.quarantineReason)
        bindings.append(columns.quarantinePayload)
        bindings.append(columns.quarantineRequestID)
        bindings.append(PostgresEventStore.absent)
        bindings.append(columns.countsRollups)
        bindings.append(columns.installedAt)
        return bindings
    }

    func decodeRow(_ row: PostgresRow) throws -> [Int32] { try row.decode([Int32].self) }
}

/// Whether group commits expect their events to be new, so claim them with `ClaimingCommit`:
/// not for a second after one found an event stored before. A client resending a batch usually
/// resends more of them at once; for that second, commits skip stored ids from the start
/// instead of failing and committing again, so a burst of resends costs each writer at most one
/// failed statement a second.
package final class DuplicateWatch: Sendable {
    /// How long after a failed claim commits skip stored ids from the start, in nanoseconds.
    package static let quiet: UInt64 = 1_000_000_000
    private let last = Atomic<UInt64>(0)
    /// The clock, in nanoseconds of a monotonic time line; 0 is reserved for "never".
    private let now: @Sendable () -> UInt64

    /// - Parameter now: the time, in nanoseconds, never 0 (by default `DispatchTime`'s uptime;
    ///   tests move a clock of their own past `quiet` instead of sleeping through it).
    package init(now: @escaping @Sendable () -> UInt64 = { DispatchTime.now().uptimeNanoseconds }) {
        self.now = now
    }

    /// When a commit last found a duplicate, in the clock's nanoseconds (0: never).
    package var lastSeen: UInt64 { last.load(ordering: .relaxed) }

    /// Whether commits may claim ids as new: no duplicate was found, or none for more than `quiet`.
    package var expectsNone: Bool {
        let seen = lastSeen
        // Compared without subtracting: an unsigned difference would trap on a time read out of order.
        return seen == 0 || now() > seen + Self.quiet
    }

    func seen() { last.store(now(), ordering: .relaxed) }
}
