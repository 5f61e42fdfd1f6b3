import Dispatch
import Synchronization
import Testing

@testable import HTTPServer

#if canImport(Glibc)
    import Glibc
#endif

@Suite("LowPriorityWorkers")
struct LowPriorityWorkersTests {
    @Test("runs every submitted job, on threads at nice 19")
    func runsAtLowPriority() {
        let workers = LowPriorityWorkers(threads: 3, label: "test-workers")
        let niceness = Mutex<[Int32]>([])
        let done = DispatchSemaphore(value: 0)
        for _ in 0..<20 {
            workers.submit {
                // who = 0: the calling thread (nice is per thread on Linux).
                let value = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
                niceness.withLock { $0.append(value) }
                done.signal()
            }
        }
        for _ in 0..<20 { #expect(done.wait(timeout: .now() + 5) == .success) }
        #expect(niceness.withLock { $0 }.count == 20)
        #expect(niceness.withLock { $0 }.allSatisfy { $0 == 19 })
    }
}
