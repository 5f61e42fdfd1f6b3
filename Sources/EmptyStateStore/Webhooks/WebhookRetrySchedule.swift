/// When a delivery that failed is tried again, and when it is given up: the Standard Webhooks
/// example schedule (https://www.standardwebhooks.com/, "Deliverability and reliability"), ten
/// attempts over about three days, each wait ±10 % so that the retries of many deliveries that
/// failed together (a receiver's outage) do not arrive together when it is back.
///
/// | attempt | after the one before | after the first (about) |
/// | --- | --- | --- |
/// | 1 | at once | 0 |
/// | 2 | 5 s | 5 s |
/// | 3 | 5 min | 5 min |
/// | 4 | 30 min | 35 min |
/// | 5 | 2 h | 2 h 35 min |
/// | 6 | 5 h | 7 h 35 min |
/// | 7 | 10 h | 17 h 35 min |
/// | 8 | 14 h | 31 h 35 min |
/// | 9 | 20 h | 51 h 35 min |
/// | 10 | 24 h | 75 h 35 min |
///
/// A receiver's `Retry-After` (seconds, on a 429 or 503) lengthens the wait up to a day, never
/// shortens it. Success is a 2xx; `410 Gone` ends the delivery at once (the receiver says it no
/// longer wants it); anything else (another status, a redirect, which is never followed, no
/// answer) is retried.
package enum WebhookRetrySchedule {
    /// The waits before attempts 2 to 10, in seconds.
    package static let waits: [Int64] = [5, 300, 1800, 7200, 18_000, 36_000, 50_400, 72_000, 86_400]
    package static var maximumAttempts: Int { waits.count + 1 }

    /// What a delivery becomes after attempt `number` (1 for the first) answered `status` (`nil`
    /// when no answer came).
    /// - Parameters:
    ///   - retryAfter: the answer's `Retry-After` in seconds, if any.
    ///   - jitter: a factor in 0.9...1.1 (random in service; fixed in tests).
    package static func next(
        afterAttempt number: Int,
        status: Int?,
        retryAfter: Int?,
        now: Int64,
        jitter: Double = Double.random(in: 0.9...1.1)
    ) -> AttemptOutcome.Next {
        if let status, (200..<300).contains(status) { return .succeeded }
        if status == 410 { return .failed }
        guard number >= 1, number < maximumAttempts else { return .failed }
        var wait = Double(waits[number - 1]) * jitter
        if let retryAfter, retryAfter > 0 { wait = max(wait, Double(min(retryAfter, 86_400))) }
        return .retry(at: now + Int64(wait * 1000))
    }
}
