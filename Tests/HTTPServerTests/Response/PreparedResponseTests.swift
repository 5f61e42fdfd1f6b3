import Dispatch
import Synchronization
import Testing

@testable import HTTPServer

@Suite("PreparedResponse")
struct PreparedResponseTests {
    /// The X-Request-ID value a lent object carries, as libmicrohttpd reports it; `nil` unless
    /// it carries exactly one.
    private static func carriedID(_ lease: ResponseLease) -> String? {
        let values = lease.requestIDValues
        return values.count == 1 ? values[0] : nil
    }

    @Test("a lent object carries the request's id and no other, whatever the ids before it")
    func requestIDs() throws {
        let prepared = PreparedResponse(status: 200, headers: [("Content-Type", "text/plain")], body: SharedBytes([1]))
        for id in ["aaaa", "bbbb", "a-much-longer-id", "c", "c", "dddd"] {
            let lease = try #require(id.withCString { prepared.lend(requestID: $0) })
            #expect(Self.carriedID(lease) == id)
            #expect(lease.owner === prepared)
            lease.giveBack()
            #expect(lease.owner == nil)
        }
        let tooLong = String(repeating: "x", count: RequestID.maximumLength + 1)
        #expect(tooLong.withCString { prepared.lend(requestID: $0) } == nil)
        #expect("".withCString { prepared.lend(requestID: $0) } == nil)
    }

    /// Four threads lend and give back the objects of one prepared response as fast as they can.
    /// While a thread holds an object, no other may change it: its owner stays set and its id
    /// stays the holder's. (Clearing the owner after the object was idle again let another
    /// thread's lend be overwritten, and the race over-released the prepared response.)
    @Test("objects lent from many threads at once keep their holder's owner and id")
    func concurrentLending() {
        let prepared = PreparedResponse(status: 200, headers: [("Content-Type", "text/plain")], body: SharedBytes([1]))
        let problems = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            for round in 0..<250_000 {
                // Ids vary between rounds, some repeating the one the object carries.
                let id = "w\(worker)-\(round % 3 == 0 ? "x" : "")\(round % 100)"
                guard let lease = id.withCString({ prepared.lend(requestID: $0) }) else {
                    problems.add(1, ordering: .relaxed)
                    continue
                }
                if lease.owner !== prepared || Self.carriedID(lease) != id {
                    problems.add(1, ordering: .relaxed)
                }
                lease.giveBack()
            }
        }
        #expect(problems.load(ordering: .relaxed) == 0)
    }
}
