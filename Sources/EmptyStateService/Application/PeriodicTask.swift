import Dispatch

/// Runs `work` on a background queue of its own, first after `firstAfter`, then every `every`,
/// never on a request's thread: what the retention pruner and the policy watcher share.
/// Unchecked: a dispatch source is thread-safe.
final class PeriodicTask: @unchecked Sendable {
    private let timer: any DispatchSourceTimer
    private let firstAfter: DispatchTimeInterval
    private let every: DispatchTimeInterval
    private let leeway: DispatchTimeInterval

    /// - Parameter label: names the queue (seen in thread dumps).
    init(
        label: String,
        firstAfter: DispatchTimeInterval,
        every: DispatchTimeInterval,
        leeway: DispatchTimeInterval,
        work: @escaping @Sendable () -> Void
    ) {
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: label, qos: .utility))
        timer.setEventHandler(handler: work)
        self.firstAfter = firstAfter
        self.every = every
        self.leeway = leeway
    }

    func start() {
        timer.schedule(deadline: .now() + firstAfter, repeating: every, leeway: leeway)
        timer.resume()
    }

    func stop() {
        timer.cancel()
    }
}
