import CMicroHTTPD
import Dispatch
import Foundation
import Synchronization

/// A fixed set of threads at the lowest scheduling priority (nice 19) that run submitted work in
/// order. Started on first use; the threads live as long as the process.
package final class LowPriorityWorkers: Sendable {
    private let threads: Int
    private let label: String
    private let queue = Mutex<(work: [@Sendable () -> Void], started: Bool)>(([], false))
    private let available = DispatchSemaphore(value: 0)

    package init(threads: Int, label: String) {
        self.threads = threads
        self.label = label
    }

    package func submit(_ work: @escaping @Sendable () -> Void) {
        let start = queue.withLock { state -> Bool in
            state.work.append(work)
            defer { state.started = true }
            return !state.started
        }
        if start {
            for index in 0..<threads {
                let thread = Thread { [self] in run() }
                thread.name = "\(label)-\(index)"
                thread.start()
            }
        }
        available.signal()
    }

    /// Lowers this thread's priority to nice 19 (raising nice needs no privilege; lowering it back
    /// would), so it only takes CPU that serving requests leaves idle,
    /// then runs work as it arrives.
    private func run() {
        _ = CMicroHTTPD_lowerThreadPriority(19)
        while true {
            available.wait()
            let next = queue.withLock { state -> (@Sendable () -> Void)? in
                state.work.isEmpty ? nil : state.work.removeFirst()
            }
            next?()
        }
    }
}
