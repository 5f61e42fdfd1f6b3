#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The standard normal distribution: its distribution function in both tails, its logarithm far
/// into the lower tail, and its quantile, as the planner and the sequential tests need them.
///
/// Everything goes through the C library's `erfc`, which keeps relative precision in the tails
/// where `1 − erf` would round to 0 or 1.
package enum NormalDistribution {
    /// Φ(x).
    package static func cdf(_ x: Double) -> Double {
        0.5 * erfc(-x / 2.0.squareRoot())
    }

    /// log Φ(x), finite for every finite x: `erfc` underflows below x ≈ −38, where the asymptotic
    /// series log φ(x) − log(−x) + log(1 − 1/x² + 3/x⁴ − 15/x⁶ + 105/x⁸) is exact to 1e-12 already.
    package static func logCDF(_ x: Double) -> Double {
        if x.isNaN { return .nan }
        if x > 0 { return log1p(-0.5 * erfc(x / 2.0.squareRoot())) }
        if x > -37 { return log(0.5 * erfc(-x / 2.0.squareRoot())) }
        if x == -.infinity { return -.infinity }
        let y = 1 / (x * x)
        let series = 1 - y * (1 - y * (3 - y * (15 - y * 105)))
        return -0.5 * x * x - log(-x) - 0.5 * log(2 * Double.pi) + log(series)
    }

    /// Φ⁻¹(p): Acklam's rational approximation (relative error below 1.2e-9), then one Halley step
    /// on Φ(x) − p through `erfc`, which brings it to the precision of a double (checked against
    /// SciPy's `norm.ppf` from 1e-300 to 1 − 1e-12). The upper half is the mirror of the lower so
    /// that the step works on the small tail probability, not on 1 − p.
    /// - Returns: −∞ for p ≤ 0, +∞ for p ≥ 1, NaN for NaN.
    package static func quantile(_ p: Double) -> Double {
        if p.isNaN { return .nan }
        if p <= 0 { return -.infinity }
        if p >= 1 { return .infinity }
        if p > 0.5 { return -quantile(1 - p) }
        var x = acklam(p)
        // Halley: e = Φ(x) − p, u = e / φ(x), x ← x − u / (1 + x u / 2).
        let e = cdf(x) - p
        let u = e * (2 * Double.pi).squareRoot() * exp(x * x / 2)
        if u.isFinite { x -= u / (1 + x * u / 2) }
        return x
    }

    /// Acklam's algorithm for p in (0, 0.5].
    private static func acklam(_ p: Double) -> Double {
        let a = [
            -3.969_683_028_665_376e+01, 2.209_460_984_245_205e+02, -2.759_285_104_469_687e+02,
            1.383_577_518_672_690e+02, -3.066_479_806_614_716e+01, 2.506_628_277_459_239e+00,
        ]
        let b = [
            -5.447_609_879_822_406e+01, 1.615_858_368_580_409e+02, -1.556_989_798_598_866e+02,
            6.680_131_188_771_972e+01, -1.328_068_155_288_572e+01,
        ]
        let c = [
            -7.784_894_002_430_293e-03, -3.223_964_580_411_365e-01, -2.400_758_277_161_838e+00,
            -2.549_732_539_343_734e+00, 4.374_664_141_464_968e+00, 2.938_163_982_698_783e+00,
        ]
        let d = [
            7.784_695_709_041_462e-03, 3.224_671_290_700_398e-01, 2.445_134_137_142_996e+00,
            3.754_408_661_907_416e+00,
        ]
        if p < 0.024_25 {
            let q = (-2 * log(p)).squareRoot()
            let numerator = ((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]
            return numerator / ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1)
        }
        let q = p - 0.5
        let r = q * q
        let numerator = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q
        return numerator / (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1)
    }
}
