import Foundation

/// Returns once `condition` holds, or `false` after `timeout`: for the blocking tests (store
/// calls run on threads of their own) that wait for a state another thread reaches. It asks every
/// millisecond; what it waits for is the condition, never a length of time.
func waitUntil(timeout: Duration = .seconds(10), _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while try !condition() {
        if ContinuousClock.now >= deadline { return false }
        Thread.sleep(forTimeInterval: 0.001)
    }
    return true
}
