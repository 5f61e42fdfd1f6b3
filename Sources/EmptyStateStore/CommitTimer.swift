/// Times store writes for the commit-duration metrics every store reports (`onCommit`).
package enum CommitTimer {
    /// Runs `body` and tells `report` how long it took, in seconds, whatever its outcome.
    package static func timed<T, Failure: Error>(
        _ report: (@Sendable (Double) -> Void)?,
        _ body: () throws(Failure) -> T
    ) throws(Failure) -> T {
        guard let report else { return try body() }
        let started = ContinuousClock.now
        defer { report(seconds(ContinuousClock.now - started)) }
        return try body()
    }

    /// `duration` in seconds.
    package static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
