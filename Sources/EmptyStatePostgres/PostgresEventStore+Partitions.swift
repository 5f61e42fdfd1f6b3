import EmptyStateStore
import Foundation
import Logging
import PostgresNIO
import Synchronization

/// The day partitions of `event` (`event_pYYYYMMDD`, UTC): made ahead of the events that go to
/// them, and dropped whole once every event in them is past retention.
///
/// Making one attaches an empty table (`ATTACH PARTITION` takes a SHARE UPDATE EXCLUSIVE lock on
/// `event`, which inserts do not wait for); dropping one first detaches it `CONCURRENTLY` (the
/// same lock level, waiting for readers that may still see it), so neither stalls ingestion.
/// Replicas take turns through an advisory lock.
extension PostgresEventStore {
    /// The advisory lock of partition changes: "ESEP" in ASCII and the schema, so that stores in
    /// different schemas of one database (the tests') do not take turns.
    static let partitionLock = "\(0x4553_4550 as Int32), hashtext(current_schema())"
    /// How many days ahead of today partitions are made.
    static let daysAhead: Int64 = 7

    /// The partition of the UTC day `day` (days since the epoch).
    package static func partitionName(day: Int64) -> String {
        let date = Timestamp.format(milliseconds: day * RollupGrain.day.milliseconds)
        return "event_p" + date.prefix(10).replacingOccurrences(of: "-", with: "")
    }

    /// The day of a partition's name; `nil` for another table.
    static func partitionDay(_ name: String) -> Int64? {
        guard name.hasPrefix("event_p"), name.count == 15 else { return nil }
        let digits = name.dropFirst(7)
        guard digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        let text = "\(digits.prefix(4))-\(digits.dropFirst(4).prefix(2))-\(digits.suffix(2))T00:00:00Z"
        return Timestamp.parse(text).map { RollupGrain.day.bucket(of: $0) }
    }

    /// Makes the partitions of yesterday, today and the `daysAhead` days after that are missing:
    /// where events arrive. The partition of an earlier day is made by the first commit of an
    /// event that occurred on it (a late event), so a database holds no empty partitions.
    func ensurePartitionsAhead() throws(StoreError) {
        let today = RollupGrain.day.bucket(of: Timestamp.nowMilliseconds())
        try ensurePartitions(days: Set((today - 1)...(today + Self.daysAhead)))
    }

    /// Makes the partitions of `days` that do not exist yet (known ones cost a set lookup).
    func ensurePartitions(days: Set<Int64>) throws(StoreError) {
        try Self.ensurePartitions(days: days, known: knownPartitions, database: database, logger: logger)
    }

    /// `ensurePartitions(days:)` for the group commit, which runs before the store exists.
    static func ensurePartitions(
        days: Set<Int64>,
        known: KnownPartitions,
        database: PostgresBackend,
        logger: Logger
    ) throws(StoreError) {
        let missing = days.subtracting(known.days)
        guard !missing.isEmpty else { return }
        let made = try database.transaction { connection in
            try await connection.all(
                PostgresQuery(unsafeSQL: "SELECT pg_advisory_xact_lock(\(Self.partitionLock))"),
                logger: logger
            )
            let existing = try await Self.attachedPartitions(connection, logger: logger)
            var made: [Int64] = []
            for day in missing.sorted() where !existing.contains(day) {
                let name = Self.partitionName(day: day)
                let from = day * RollupGrain.day.milliseconds
                let to = from + RollupGrain.day.milliseconds
                try await connection.all(
                    PostgresQuery(
                        unsafeSQL: """
                            CREATE TABLE IF NOT EXISTS \(name) (LIKE event INCLUDING DEFAULTS INCLUDING CONSTRAINTS)
                            """
                    ),
                    logger: logger
                )
                try await connection.all(
                    PostgresQuery(
                        unsafeSQL: "ALTER TABLE event ATTACH PARTITION \(name) FOR VALUES FROM (\(from)) TO (\(to))"
                    ),
                    logger: logger
                )
                made.append(day)
            }
            return existing.union(made)
        }
        known.add(made)
    }

    /// The day partitions of `event`, a detach left pending by an interrupted run included.
    static func partitions(
        _ connection: PostgresConnection,
        logger: Logger
    ) async throws -> [(name: String, day: Int64, pending: Bool)] {
        var partitions: [(name: String, day: Int64, pending: Bool)] = []
        for try await (name, pending) in try await connection.query(
            """
            SELECT c.relname::text, i.inhdetachpending FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
            WHERE i.inhparent = 'event'::regclass
            """,
            logger: logger
        ).decode((String, Bool).self) {
            if let day = partitionDay(name) { partitions.append((name, day, pending)) }
        }
        return partitions.sorted { $0.day < $1.day }
    }

    /// The days whose partitions are attached to `event` (not being detached).
    static func attachedPartitions(_ connection: PostgresConnection, logger: Logger) async throws -> Set<Int64> {
        Set(try await partitions(connection, logger: logger).filter { !$0.pending }.map(\.day))
    }

    /// Detaches and drops every partition whose whole day is before `cutoff`, and finishes any
    /// detach an interrupted run left pending.
    /// - Returns: for each partition dropped, its name, events, size in bytes and the
    ///   milliseconds it took.
    func dropExpiredPartitions(before cutoff: Int64) throws(StoreError) -> [DroppedPartition] {
        let lastExpired = RollupGrain.day.bucket(of: cutoff) - 1
        let logger = logger
        let dropped = try database.blocking(timeout: .seconds(300)) { client, commit in
            try await client.withConnection { connection in
                // A session lock: DETACH … CONCURRENTLY cannot run inside a transaction.
                let locked =
                    try await connection.query(
                        PostgresQuery(unsafeSQL: "SELECT pg_try_advisory_lock(\(Self.partitionLock))"),
                        logger: logger
                    ).collect().first?.decode(Bool.self) ?? false
                guard locked else { return [DroppedPartition]() }
                do {
                    let dropped = try await Self.detachAndDrop(
                        connection,
                        through: lastExpired,
                        commit: commit,
                        logger: logger
                    )
                    try await connection.all(
                        PostgresQuery(unsafeSQL: "SELECT pg_advisory_unlock(\(Self.partitionLock))"),
                        logger: logger
                    )
                    return dropped
                } catch {
                    _ = try? await connection.all(
                        PostgresQuery(unsafeSQL: "SELECT pg_advisory_unlock(\(Self.partitionLock))"),
                        logger: logger
                    )
                    throw error
                }
            }
        }
        let days = Set(dropped.compactMap { Self.partitionDay($0.name) })
        knownPartitions.remove(days)
        return dropped
    }

    /// The partitions of days up to `lastExpired`, detached (or their pending detach finished)
    /// and dropped, oldest first, on `connection` (which holds the partition lock).
    private static func detachAndDrop(
        _ connection: PostgresConnection,
        through lastExpired: Int64,
        commit: CommitPoint,
        logger: Logger
    ) async throws -> [DroppedPartition] {
        let expired = try await partitions(connection, logger: logger).filter { $0.day <= lastExpired }
        try commit.reach()
        var dropped: [DroppedPartition] = []
        for (name, _, pending) in expired {
            let started = ContinuousClock.now
            let (events, bytes) =
                try await connection.query(
                    PostgresQuery(
                        unsafeSQL:
                            "SELECT (SELECT COUNT(*) FROM \(name))::int8, pg_total_relation_size('\(name)')::int8"
                    ),
                    logger: logger
                ).collect().first?.decode((Int, Int).self) ?? (0, 0)
            try await connection.all(
                PostgresQuery(
                    unsafeSQL: "ALTER TABLE event DETACH PARTITION \(name) \(pending ? "FINALIZE" : "CONCURRENTLY")"
                ),
                logger: logger
            )
            try await connection.all(PostgresQuery(unsafeSQL: "DROP TABLE \(name)"), logger: logger)
            let elapsed = ContinuousClock.now - started
            dropped.append(
                DroppedPartition(
                    name: name,
                    events: events,
                    bytes: bytes,
                    milliseconds: Int(
                        elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
                    )
                )
            )
        }
        return dropped
    }
}

/// The days whose partitions are known to exist: a commit makes those it needs and is not told
/// of (late events), so a group never fails for want of a partition.
final class KnownPartitions: Sendable {
    private let known = Mutex<Set<Int64>>([])

    var days: Set<Int64> { known.withLock { $0 } }
    func add(_ days: some Sequence<Int64>) { known.withLock { $0.formUnion(days) } }
    func remove(_ days: Set<Int64>) { known.withLock { $0.subtract(days) } }
}

/// A partition retention dropped.
struct DroppedPartition: Sendable {
    var name: String
    var events: Int
    var bytes: Int
    var milliseconds: Int
}
