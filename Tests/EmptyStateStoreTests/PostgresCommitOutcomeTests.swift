import Dispatch
import EmptyStateCore
import EmptyStatePostgres
import EmptyStateStore
import Foundation
import Logging
import PostgresNIO
import Synchronization
import Testing

/// The wait bound of the backend under test: short, so a stall outlasts it.
let shortWait = Duration.milliseconds(1200)
/// How long a stalled COMMIT (or a held lock) lasts: well past `shortWait`. A stalled transaction
/// holds back other tests' event exports (they return only rows older than every transaction still
/// running, and wait 5 s for them) and their catalogue writes (the write lock is global): hence
/// short stalls, one at a time (the suite is serialized).
let stallSeconds = 2.5

private let logger = Logger(label: "test")

/// A fresh, migrated schema of the test database with two backends on it: `fast`, the one under
/// test (`shortWait` unless told), and `slow`, which sets the stage and looks at what the database holds (it
/// waits long, so it sees the end of a stall).
struct PostgresStage: Sendable {
    let fast: PostgresBackend
    let slow: PostgresBackend

    init(fastConnections: Int = 2, fastWait: Duration = shortWait) throws {
        let url = try #require(StoreBackend.testDatabaseURL)
        let schema = "test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        let setup = PostgresBackend(url: url, maximumConnections: 1, logger: logger)
        setup.startPool()
        defer { setup.stopPool() }
        try setup.blocking(timeout: .seconds(20)) { client in
            try await client.all(PostgresQuery(unsafeSQL: "CREATE SCHEMA \(schema)"), logger: logger)
        }
        slow = PostgresBackend(url: url, maximumConnections: 2, wait: .seconds(30), searchPath: schema, logger: logger)
        slow.startPool()
        try slow.blocking { client in try await PostgresSchema.migrate(client, logger: logger) }
        fast = PostgresBackend(
            url: url,
            maximumConnections: fastConnections,
            wait: fastWait,
            searchPath: schema,
            logger: logger
        )
        fast.startPool()
    }

    /// Runs one statement through `slow`.
    func sql(_ text: String) throws {
        try slow.blocking { client in try await client.all(PostgresQuery(unsafeSQL: text), logger: logger) }
    }

    /// Makes every COMMIT of a transaction that inserted into `table` sleep `stallSeconds` first
    /// (a deferred constraint trigger runs at COMMIT), then succeed or fail. Only this schema's
    /// table has it.
    func stallCommits(of table: String, thenFail: Bool = false) throws {
        try sql(
            """
            CREATE OR REPLACE FUNCTION stall_commit() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                PERFORM pg_sleep(\(stallSeconds));
                IF TG_ARGV[0] = 'fail' THEN RAISE EXCEPTION 'refused at commit'; END IF;
                RETURN NULL;
            END $$
            """
        )
        try sql(
            """
            CREATE CONSTRAINT TRIGGER stall_commit AFTER INSERT ON \(table)
            DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION stall_commit('\(thenFail ? "fail" : "pass")')
            """
        )
    }

    /// Drops the trigger of `stallCommits(of:)`. DROP TRIGGER waits for every transaction that
    /// wrote to the table, so when this returns the stalled COMMIT has ended, one way or the other.
    func endStall(of table: String) throws {
        try sql("DROP TRIGGER stall_commit ON \(table)")
    }

    func stop() {
        fast.stopPool()
        slow.stopPool()
    }
}

/// Whether `error` is `StoreError.outcomeUnknown`.
private func isOutcomeUnknown(_ error: any Error) -> Bool {
    if case .outcomeUnknown = error as? StoreError { return true }
    return false
}

/// Whether `error` is `StoreError.unavailable`.
private func isUnavailable(_ error: any Error) -> Bool {
    if case .unavailable = error as? StoreError { return true }
    return false
}

/// What a caller is told when PostgreSQL stalls a write, checked against what the database holds
/// once the stall is over. The stalls are real: a deferred constraint trigger that sleeps at
/// COMMIT, a row lock or the only pooled connection held by another session.
@Suite(
    "PostgreSQL: a write that outlasts its wait is told the truth",
    .serialized,
    .enabled(if: StoreBackend.testDatabaseURL != nil, "needs EMPTY_STATE_TEST_DATABASE_URL")
)
struct PostgresCommitOutcomeTests {
    @Test("a COMMIT that stalls past the wait is outcomeUnknown; it committed, and a blind resend is stale")
    func stalledCommitThatCommits() async throws {
        try await offPool {
            let stage = try PostgresStage()
            defer { stage.stop() }
            let reader = PostgresTemplateStore(database: stage.slow, logger: logger)
            let store = PostgresTemplateStore(database: stage.fast, logger: logger)
            let template = try builtin("loading")
            try reader.importBuiltins([template])
            try stage.stallCommits(of: "revision")

            let started = ContinuousClock.now
            let answer = #expect(throws: StoreError.self) {
                try store.put(retitled(template, french: "Un instant"), precondition: .revision(1), actor: "ops")
            }
            #expect(answer.map(isOutcomeUnknown) == true, "answered \(String(describing: answer))")
            let answered = ContinuousClock.now - started
            #expect(answered >= shortWait && answered < .milliseconds(Int(stallSeconds * 1000)))
            // When the caller was answered, the COMMIT was still running: nothing to see yet.
            #expect(try reader.template(id: "loading").revision == 1)

            try stage.endStall(of: "revision")
            // The COMMIT went through: the change was made, as the answer allowed.
            let stored = try reader.template(id: "loading")
            #expect(stored.revision == 2 && stored.template.strings(for: "fr")?["title"] == "Un instant")
            // Sent again as it was, the change meets its own first copy: why the answer says to
            // read the template again first. (Through the store with the long wait: under a
            // loaded test run the short one can run out before the catalogue lock is free.)
            #expect(throws: StoreError.stale(id: "loading", current: 2)) {
                try reader.put(retitled(template, french: "Un instant"), precondition: .revision(1), actor: "ops")
            }
        }
    }

    @Test("a COMMIT that stalls past the wait and then fails is outcomeUnknown too; nothing was written")
    func stalledCommitThatFails() async throws {
        try await offPool {
            let stage = try PostgresStage()
            defer { stage.stop() }
            let reader = PostgresTemplateStore(database: stage.slow, logger: logger)
            let store = PostgresTemplateStore(database: stage.fast, logger: logger)
            let template = try builtin("loading")
            try reader.importBuiltins([template])
            try stage.stallCommits(of: "revision", thenFail: true)

            let answer = #expect(throws: StoreError.self) {
                try store.put(retitled(template, french: "Un instant"), precondition: .revision(1), actor: "ops")
            }
            #expect(answer.map(isOutcomeUnknown) == true, "answered \(String(describing: answer))")
            try stage.endStall(of: "revision")
            #expect(try reader.template(id: "loading").revision == 1)
            #expect(try reader.revisions(id: "loading", page: 1, pageSize: 10).items.map(\.revision) == [1])
        }
    }

    @Test("a connection lost while its COMMIT runs is outcomeUnknown; the server rolled it back")
    func connectionLostAtCommit() async throws {
        try await offPool {
            // A long wait bound: what ends the wait is the lost connection, not the clock.
            let stage = try PostgresStage(fastWait: .seconds(20))
            defer { stage.stop() }
            let reader = PostgresTemplateStore(database: stage.slow, logger: logger)
            let store = PostgresTemplateStore(database: stage.fast, logger: logger)
            let template = try builtin("loading")
            try reader.importBuiltins([template])
            try stage.stallCommits(of: "revision")

            // Terminates the backend once it sleeps in the COMMIT's deferred trigger.
            let terminated = DispatchSemaphore(value: 0)
            Thread {
                defer { terminated.signal() }
                let deadline = ContinuousClock.now + .seconds(10)
                while ContinuousClock.now < deadline {
                    let killed = try? stage.slow.blocking { client in
                        try await client.all(
                            """
                            SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                            WHERE query = 'COMMIT;' AND wait_event = 'PgSleep' AND usename = current_user
                            """,
                            logger: logger
                        ).count
                    }
                    if (killed ?? 0) > 0 { return }
                    Thread.sleep(forTimeInterval: 0.05)
                }
            }.start()

            let answer = #expect(throws: StoreError.self) {
                try store.put(retitled(template, french: "Coupé"), precondition: .revision(1), actor: "ops")
            }
            try waitOrFail(terminated, "terminated")
            #expect(answer.map(isOutcomeUnknown) == true, "answered \(String(describing: answer))")
            try stage.endStall(of: "revision")
            // Terminated before its commit record: nothing was written (which the caller could
            // not know, hence the answer).
            #expect(try reader.template(id: "loading").revision == 1)
        }
    }

    @Test("a write stalled before its COMMIT is unavailable, and is rolled back once the stall ends")
    func stallBeforeCommit() async throws {
        try await offPool {
            let stage = try PostgresStage()
            defer { stage.stop() }
            let reader = PostgresTemplateStore(database: stage.slow, logger: logger)
            let store = PostgresTemplateStore(database: stage.fast, logger: logger)
            let template = try builtin("loading")
            try reader.importBuiltins([template])

            // Another session locks the template's row: the write's upsert waits for it.
            let locked = DispatchSemaphore(value: 0)
            let released = DispatchSemaphore(value: 0)
            Thread {
                _ = try? stage.slow.blocking { client in
                    try await client.withTransaction(logger: logger) { connection in
                        try await connection.all(
                            "SELECT 1 FROM template WHERE id = 'loading' FOR UPDATE",
                            logger: logger
                        )
                        locked.signal()
                        try await connection.all("SELECT pg_sleep(\(stallSeconds))", logger: logger)
                    }
                }
                released.signal()
            }.start()
            try waitOrFail(locked, "locked")

            let answer = #expect(throws: StoreError.self) {
                try store.put(retitled(template, french: "Trop tard"), precondition: .revision(1), actor: "late")
            }
            #expect(answer.map(isUnavailable) == true, "answered \(String(describing: answer))")
            try waitOrFail(released, "released")
            // The abandoned write goes on once the lock is released, up to its commit point,
            // where it rolls back. "Nothing was changed, send it again" is true: sent again
            // (after the abandoned transaction let go of the write lock), it applies once.
            let again = try reader.put(
                retitled(template, french: "Trop tard"),
                precondition: .revision(1),
                actor: "retry"
            )
            #expect(again.stored.revision == 2)
            let history = try reader.revisions(id: "loading", page: 1, pageSize: 10).items
            #expect(history.map(\.revision) == [2, 1] && history.first?.createdBy == "retry")
        }
    }

    @Test("events whose commit stalls past the wait are outcomeUnknown; they were stored, and resending is safe")
    func eventsStalledAtCommit() async throws {
        try await offPool {
            let stage = try PostgresStage()
            defer { stage.stop() }
            let events = PostgresEventStore(database: stage.fast, writers: 1, logger: logger)
            events.start()
            defer { events.stop() }
            let counter = PostgresEventStore(database: stage.slow, logger: logger)
            let batch = [analyticsEvent(), analyticsEvent(), analyticsEvent()]
            try stage.stallCommits(of: "event")

            let answer = #expect(throws: StoreError.self) { try events.append(batch, quarantined: []) }
            #expect(answer.map(isOutcomeUnknown) == true, "answered \(String(describing: answer))")
            try stage.endStall(of: "event")
            #expect(try counter.counts().events == 3)
            // The client's answer to a 503 is to resend the batch: the ids make it a no-op.
            #expect(try events.append(batch, quarantined: []) == [false, false, false])
            #expect(try counter.counts().events == 3)
        }
    }

    @Test("events that waited past the wait for a connection are unavailable, and never sent")
    func eventsAbandonedBeforeSending() async throws {
        try await offPool {
            let stage = try PostgresStage(fastConnections: 1)
            defer { stage.stop() }
            let events = PostgresEventStore(database: stage.fast, writers: 1, logger: logger)
            events.start()
            defer { events.stop() }
            let counter = PostgresEventStore(database: stage.slow, logger: logger)
            let batch = [analyticsEvent(), analyticsEvent()]

            // A long read holds the only connection of `fast`.
            let busy = DispatchSemaphore(value: 0)
            let finished = DispatchSemaphore(value: 0)
            Thread {
                _ = try? stage.fast.blocking(timeout: .seconds(30)) { client in
                    try await client.withConnection { connection in
                        busy.signal()
                        try await connection.all("SELECT pg_sleep(\(stallSeconds))", logger: logger)
                    }
                }
                busy.signal()  // also when the read never got its connection: the wait must end
                finished.signal()
            }.start()
            try waitOrFail(busy, "busy")

            let answer = #expect(throws: StoreError.self) { try events.append(batch, quarantined: []) }
            #expect(answer.map(isUnavailable) == true, "answered \(String(describing: answer))")
            try waitOrFail(finished, "finished")
            #expect(try counter.counts().events == 0)
            // Had the abandoned request survived, it would run first on the connection just given
            // back (the pool serves waiting requests in order): the same batch sent again after it
            // would find its ids stored. Both new: the first was never sent.
            #expect(try events.append(batch, quarantined: []) == [true, true])
            #expect(try counter.counts().events == 2)
        }
    }
}

@Suite("CommitPoint: the waiter and the work agree on one outcome")
struct CommitPointTests {
    @Test("giving up before the commit point abandons the work: it may not commit")
    func abandoned() {
        let point = CommitPoint()
        #expect(point.giveUp() == .abandoned)
        #expect(throws: CommitPoint.Abandoned.self) { try point.reach() }
        #expect(!point.isReached)
        #expect(!point.finish())
    }

    @Test("giving up after it leaves the outcome unknown; the work reports how it ended")
    func outcomeUnknown() throws {
        let point = CommitPoint()
        try point.reach()
        #expect(point.isReached)
        #expect(point.giveUp() == .outcomeUnknown)
        #expect(point.finish())
        #expect(point.isReached)
    }

    @Test("work that finished first is read, whatever the clock says")
    func finished() throws {
        let point = CommitPoint()
        try point.reach()
        #expect(!point.finish())
        #expect(point.giveUp() == .finished)
        let read = CommitPoint()
        #expect(!read.finish())
        #expect(read.giveUp() == .finished)
    }

    @Test("racing from two threads, exactly one side decides")
    func race() {
        for _ in 0..<500 {
            let point = CommitPoint()
            let reached = Atomic<Bool>(false)
            let verdict = Mutex<CommitPoint.Verdict?>(nil)
            onThreads(2) { index in
                if index == 0 {
                    if (try? point.reach()) != nil { reached.store(true, ordering: .relaxed) }
                } else {
                    let decided = point.giveUp()
                    verdict.withLock { $0 = decided }
                }
            }
            let decided = verdict.withLock { $0 }
            #expect(decided == (reached.load(ordering: .relaxed) ? .outcomeUnknown : .abandoned))
        }
    }
}
