/// The running state of a confidence sequence over the looks taken so far (a look a day): the
/// intersection of every look's interval and the smallest p-value, as Johari et al. define the
/// always-valid interval and p-value.
///
/// Why intersect: every look's interval holds the true difference at once with probability 1 − α,
/// so their intersection does too, and it is narrower; the smallest p-value is valid for the same
/// reason. Both move one way only, so a verdict reached is not taken back by the next day's noise
/// — which is what makes "stop as soon as it says winner" safe. The running p-value is below α
/// exactly when the running interval excludes 0, as for a single look.
///
/// When the effect is not constant over time the assumption behind all of this fails, and the
/// clearest sign of it is an empty intersection: two looks whose intervals do not overlap, which
/// happens with probability at most α when the effect is constant. Then `drifted` is set for good,
/// and the sequence restarts from the look that contradicted the earlier ones, so the figures shown
/// describe the recent effect rather than an empty set. The verdict warns about it.
package struct ConfidenceSequence: Sendable, Equatable {
    /// The latest observed difference (the raw estimate), and the running interval.
    package private(set) var difference: Double = 0
    package private(set) var lower: Double = -1
    package private(set) var upper: Double = 1
    /// The running always-valid p-value: the smallest since the sequence (re)started.
    package private(set) var pValue: Double = 1
    /// Looks recorded since the sequence (re)started.
    package private(set) var looks = 0
    /// Whether two looks ever contradicted each other (see the type's comment).
    package private(set) var drifted = false

    package init() {}

    /// Adds a look.
    /// - Returns: `true` when this look restarted the sequence (its interval did not overlap the
    ///   running one).
    @discardableResult
    package mutating func record(_ look: SequentialLook) -> Bool {
        difference = look.difference
        guard looks > 0 else {
            (lower, upper, pValue, looks) = (look.lower, look.upper, look.pValue, 1)
            return false
        }
        let newLower = max(lower, look.lower)
        let newUpper = min(upper, look.upper)
        guard newLower <= newUpper else {
            drifted = true
            (lower, upper, pValue, looks) = (look.lower, look.upper, look.pValue, 1)
            return true
        }
        (lower, upper, pValue) = (newLower, newUpper, min(pValue, look.pValue))
        looks += 1
        return false
    }
}
