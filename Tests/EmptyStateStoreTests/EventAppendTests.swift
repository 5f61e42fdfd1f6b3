import Dispatch
import EmptyStateSQLite
import EmptyStateStore
import Foundation
import Logging
import Synchronization
import Testing

@testable import EmptyStateStore

@Suite("EventStore: appending")
struct EventAppendTests {
    @Test(
        "append says which events are new; duplicates within a batch and across batches are dropped",
        arguments: StoreBackend.all
    )
    func newAndDuplicate(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, _) = try makeEventStore(backend)
            store.start()
            defer { store.stop() }
            let a = analyticsEvent("aaaaaaaa-0000-4000-8000-000000000001")
            let b = analyticsEvent("aaaaaaaa-0000-4000-8000-000000000002", .actionTapped, action: "retry")
            var sameAsA = analyticsEvent("aaaaaaaa-0000-4000-8000-000000000001", .actionTapped, action: "back")
            sameAsA.locale = "fr"
            #expect(try store.append([a, b, sameAsA], quarantined: []) == [true, true, false])
            let c = analyticsEvent("aaaaaaaa-0000-4000-8000-000000000003")
            #expect(try store.append([b, c, a], quarantined: []) == [false, true, false])
            #expect(try store.counts() == (events: 3, quarantined: 0))
            // The first of the duplicates is kept, unchanged.
            let stored = try exported(store, limit: 10, count: 3).map(\.event)
            #expect(stored == [a, b, c])
        }
    }

    @Test("an empty append is a no-op that needs no writer", arguments: StoreBackend.all)
    func emptyAppend(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, _) = try makeEventStore(backend)
            #expect(try store.append([], quarantined: []) == [])
        }
    }

    @Test(
        "16 threads × 50 batches: every event committed and counted new exactly once, in shared commits",
        arguments: StoreBackend.all
    )
    func concurrentGroupCommit(_ backend: StoreBackend) async throws {
        try await offPool {
            let commits = Atomic<Int>(0)
            let (store, _) = try makeEventStore(backend, onCommit: { _ in commits.add(1, ordering: .relaxed) })
            store.start()
            defer { store.stop() }
            let threads = 16
            let batches = 50
            let newCount = Atomic<Int>(0)
            let duplicateCount = Atomic<Int>(0)
            let failures = Atomic<Int>(0)
            let wrongFlags = Atomic<Int>(0)
            onThreads(threads) { thread in
                for batch in 0..<batches {
                    // Three ids of this thread's own, and one every thread sends in its batch `batch`:
                    // exactly one of the 16 submissions of a shared id may see it as new.
                    let own = (0..<3).map { analyticsEvent("t\(thread)-b\(batch)-e\($0)") }
                    let shared = analyticsEvent("shared-b\(batch)")
                    do {
                        let flags = try store.append(own + [shared], quarantined: [quarantinedEvent("t\(thread)")])
                        if flags.count != 4 || !flags.prefix(3).allSatisfy({ $0 }) {
                            wrongFlags.add(1, ordering: .relaxed)
                        }
                        newCount.add(flags.filter { $0 }.count, ordering: .relaxed)
                        duplicateCount.add(flags.filter { !$0 }.count, ordering: .relaxed)
                    } catch {
                        failures.add(1, ordering: .relaxed)
                    }
                }
            }
            #expect(failures.load(ordering: .relaxed) == 0)
            #expect(wrongFlags.load(ordering: .relaxed) == 0)
            let submissions = threads * batches
            #expect(newCount.load(ordering: .relaxed) == submissions * 3 + batches)
            #expect(duplicateCount.load(ordering: .relaxed) == batches * (threads - 1))
            #expect(try store.counts() == (events: submissions * 3 + batches, quarantined: submissions))
            let ids = try exported(store, limit: 100_000, count: submissions * 3 + batches).map(\.event.id)
            #expect(Set(ids).count == ids.count)
            var expected = Set<String>()
            for batch in 0..<batches {
                expected.insert("shared-b\(batch)")
                for thread in 0..<threads {
                    for index in 0..<3 { expected.insert("t\(thread)-b\(batch)-e\(index)") }
                }
            }
            #expect(Set(ids) == expected)
            // Group commit: many submissions shared a transaction.
            let groups = commits.load(ordering: .relaxed)
            #expect(groups >= 1 && groups < submissions, "\(groups) commits for \(submissions) submissions")
        }
    }

    @Test("quarantined events are stored with their reason", arguments: StoreBackend.all)
    func quarantine(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, _) = try makeEventStore(backend)
            store.start()
            defer { store.stop() }
            #expect(
                try store.append([], quarantined: [quarantinedEvent("/id: bad"), quarantinedEvent("/type: bad")]) == []
            )
            #expect(try store.append([analyticsEvent()], quarantined: [quarantinedEvent("/locale: bad")]) == [true])
            #expect(try store.counts() == (events: 1, quarantined: 3))
        }
    }

    @Test("stop() commits every submission still queued; append after stop throws", arguments: StoreBackend.all)
    func stopDrains(_ backend: StoreBackend) async throws {
        try await offPool {
            // Every commit blocks in the metrics callback until released (each released one lets
            // the next go), so that the other submissions queue up behind the writers, however
            // many there are; stop() is called while they wait. Where they are is read from the
            // queue (`GroupCommitting`), never guessed from time.
            let gate = DispatchSemaphore(value: 0)
            let blocked = DispatchSemaphore(value: 0)
            let released = Atomic<Bool>(false)
            let (store, _) = try makeEventStore(
                backend,
                onCommit: { _ in
                    if !released.load(ordering: .acquiring) {
                        blocked.signal()
                        gate.wait()
                        gate.signal()
                    }
                }
            )
            let queue = try #require(store as? any GroupCommitting)
            store.start()
            let queued = 8
            let succeeded = Atomic<Int>(0)
            let done = DispatchGroup()
            for index in 0...queued {
                done.enter()
                Thread {
                    if (try? store.append([analyticsEvent("drain-\(index)")], quarantined: []))?.first == true {
                        succeeded.add(1, ordering: .relaxed)
                    }
                    done.leave()
                }.start()
                // The first commit holds its writer at the gate before the others are sent.
                if index == 0 { #expect(blocked.wait(timeout: .now() + 10) == .success, "the first commit blocked") }
            }
            #expect(waitUntil { queue.commitProgress.unanswered == queued + 1 }, "every submission accepted")
            // stop() runs on a thread of its own and notes, the moment it returns, whether the
            // gate had been opened and how many events were stored by then.
            let stopped = DispatchSemaphore(value: 0)
            let returned = Mutex<(afterRelease: Bool, stored: Int?)>((false, nil))
            Thread {
                store.stop()
                let afterRelease = released.load(ordering: .acquiring)
                let stored = try? store.counts().events
                returned.withLock { $0 = (afterRelease, stored) }
                stopped.signal()
            }.start()
            // stop() has begun (it refuses new submissions) while every commit is held.
            #expect(waitUntil { !queue.commitProgress.accepting }, "stop() began")
            #expect(succeeded.load(ordering: .relaxed) == 0)
            released.store(true, ordering: .releasing)
            gate.signal()
            #expect(stopped.wait(timeout: .now() + 10) == .success, "stop() returned")
            let atReturn = returned.withLock { $0 }
            #expect(atReturn.afterRelease, "stop() waits while submissions are queued")
            #expect(atReturn.stored == queued + 1, "stop() returned once every queued submission was committed")
            #expect(done.wait(timeout: .now() + 10) == .success, "every append returned")
            #expect(succeeded.load(ordering: .relaxed) == queued + 1)
            #expect(try store.counts().events == queued + 1)
            #expect(throws: StoreError.self) { try store.append([analyticsEvent()], quarantined: []) }
            #expect(throws: StoreError.self) { try store.append([], quarantined: [quarantinedEvent("late")]) }
            #expect(try store.counts() == (events: queued + 1, quarantined: 0))
        }
    }

    @Test("append before start throws instead of waiting forever", arguments: StoreBackend.all)
    func appendBeforeStart(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, _) = try makeEventStore(backend)
            #expect(throws: StoreError.self) { try store.append([analyticsEvent()], quarantined: []) }
        }
    }

    @Test("reopening the file keeps every event, in order, and the duplicates it knows", arguments: StoreBackend.all)
    func reopen(_ backend: StoreBackend) async throws {
        try await offPool {
            let (store, handle) = try makeEventStore(backend)
            store.start()
            let events = (0..<5).map { analyticsEvent("reopen-\($0)", at: march1 + Int64($0)) }
            _ = try store.append(events, quarantined: [quarantinedEvent("kept")])
            store.stop()

            let reopened = try handle.reopenEvents(nil)
            reopened.start()
            defer { reopened.stop() }
            #expect(try reopened.counts() == (events: 5, quarantined: 1))
            #expect(try exported(reopened, limit: 10, count: 5).map(\.event) == events)
            #expect(try reopened.append([events[2], analyticsEvent("reopen-5")], quarantined: []) == [false, true])
            let cursors = try exported(reopened, limit: 10, count: 6).map(\.cursor)
            #expect(cursors == cursors.sorted() && Set(cursors).count == 6)
        }
    }
}
