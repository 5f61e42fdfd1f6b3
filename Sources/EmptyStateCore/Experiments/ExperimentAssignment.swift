/// Which variant of an experiment an install sees: GrowthBook's published hashing and bucket
/// ranges, so a team can reproduce an assignment with any GrowthBook SDK (seed = the experiment
/// id, hash version 2).
///
/// Stateless and deterministic: the same seed, install id, weights and coverage give the same
/// variant on every replica, after every restart, with nothing stored. Tested against
/// GrowthBook's own vectors (`Tests/fixtures/growthbook/cases.json`).
package enum ExperimentAssignment {
    /// A half-open interval `[lower, upper)` of the unit interval: the hashes of one variant.
    package struct Range: Sendable, Equatable {
        package var lower: Double
        package var upper: Double

        package init(_ lower: Double, _ upper: Double) {
            self.lower = lower
            self.upper = upper
        }

        package func contains(_ n: Double) -> Bool { n >= lower && n < upper }
    }

    /// FNV-1a, 32 bits, over UTF-16 code units as GrowthBook's JavaScript (`charCodeAt`) does, so
    /// non-ASCII ids hash as they do there. For ASCII this is FNV-1a over the bytes.
    package static func fnv1a32(_ text: String) -> UInt32 {
        var hash: UInt32 = 0x811c_9dc5
        for unit in text.utf16 {
            hash ^= UInt32(unit)
            hash = hash &* 0x0100_0193
        }
        return hash
    }

    /// GrowthBook's `hash(seed, value, version)`: a number in `[0, 1)`.
    /// - Version 2 (the current one, unbiased): `fnv1a32(String(fnv1a32(seed + value))) % 10000 / 10000`.
    /// - Version 1 (kept for compatibility): `fnv1a32(value + seed) % 1000 / 1000`.
    /// - Returns: `nil` for any other version, as GrowthBook does.
    package static func hash(seed: String, value: String, version: Int = 2) -> Double? {
        switch version {
        case 2: return Double(fnv1a32(String(fnv1a32(seed + value))) % 10_000) / 10_000
        case 1: return Double(fnv1a32(value + seed) % 1_000) / 1_000
        default: return nil
        }
    }

    /// GrowthBook's `getBucketRanges`: variant `i` covers `[start_i, start_i + coverage · w_i)`,
    /// `start_i` being the sum of the earlier weights. Coverage is clamped to `[0, 1]`; weights
    /// that are missing, of another count, or not summing to 1 ± 0.01 become equal weights.
    ///
    /// Ranges start where the full-coverage ranges start, so raising the coverage while running
    /// only adds installs to each variant and never moves one from a variant to another.
    package static func bucketRanges(count: Int, coverage: Double, weights: [Double]?) -> [Range] {
        guard count > 0 else { return [] }
        let coverage = min(max(coverage, 0), 1)
        let equal = [Double](repeating: 1 / Double(count), count: count)
        var weights = weights ?? equal
        if weights.count != count { weights = equal }
        let total = weights.reduce(0, +)
        if total < 0.99 || total > 1.01 { weights = equal }
        var cumulative = 0.0
        return weights.map { weight in
            let start = cumulative
            cumulative += weight
            return Range(start, start + coverage * weight)
        }
    }

    /// GrowthBook's `chooseVariation`: the index of the first range holding `n`, or `nil` when
    /// none does (the install is outside the experiment's coverage).
    package static func chooseVariation(_ n: Double, ranges: [Range]) -> Int? {
        ranges.firstIndex { $0.contains(n) }
    }

    /// The variant index an install gets in an experiment, or `nil` when it is not covered.
    /// - Parameters:
    ///   - seed: the experiment's hash seed (its id unless set otherwise).
    ///   - installID: the install id the client sent.
    package static func variant(
        seed: String,
        installID: String,
        weights: [Double],
        coverage: Double
    ) -> Int? {
        guard let n = hash(seed: seed, value: installID) else { return nil }
        return chooseVariation(n, ranges: bucketRanges(count: weights.count, coverage: coverage, weights: weights))
    }
}
