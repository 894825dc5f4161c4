#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// x^p for eight non-negative values at once, as exp2(p log2 x) with polynomials: relative
/// error about 1e-7 + 5e-8 |p log2 x| (the float32 rounding of p log2 x), below 1e-5 for
/// every result in float's normal range; 16-bit levels need 1.2e-4. Lanes the polynomials
/// do not cover (NaN, infinite, subnormal, or a result beyond float's normal range) go
/// through powf, so every value is right; 0 gives 0 for p > 0. Each lane's result depends on
/// that lane alone, never on its neighbours (a row's padding lanes hold anything), so the
/// value of a pixel never depends on how rows are cut into strips.
@inline(__always)
func power(_ x: SIMD8<Float>, _ p: Float) -> SIMD8<Float> {
    let zero = x .== 0
    let ordinary = (x .>= Float.leastNormalMagnitude) .& (x .<= Float.greatestFiniteMagnitude)
    let v = x.replacing(with: 1, where: .!(ordinary .| zero) .| zero)
    // v = m 2^e with m in [sqrt(1/2), sqrt(2)).
    let bits = unsafeBitCast(v, to: SIMD8<Int32>.self)
    var e = (bits &>> 23) &- 127
    var m = unsafeBitCast((bits & 0x007F_FFFF) | 0x3F80_0000, to: SIMD8<Float>.self)
    let high = m .> 1.414_213_5
    m.replace(with: m * 0.5, where: high)
    e.replace(with: e &+ 1, where: high)
    // log2 m = 2/ln 2 (t + t^3/3 + t^5/5 + t^7/7 + t^9/9), t = (m - 1)/(m + 1), |t| <= 0.172.
    let t = (m - 1) / (m + 1)
    let t2 = t * t
    var series = t2 * (1 / 9 as Float) + (1 / 7 as Float)
    series = series * t2 + (1 / 5 as Float)
    series = series * t2 + (1 / 3 as Float)
    series = series * t2 + 1
    // e as Float without Swift's lane-by-lane conversion: |e| < 2^22, so adding 1.5 x 2^23's
    // bits and subtracting it as a float is exact.
    let magic = SIMD8<Float>(repeating: 12_582_912)
    let eFloat = unsafeBitCast(e &+ 0x4B40_0000, to: SIMD8<Float>.self) - magic
    let log2x = eFloat + (2 / Float(M_LN2)) * t * series
    let y = p * log2x
    let covered = (ordinary .| zero) .& (y .>= -125) .& (y .<= 127)
    // 2^y = 2^n e^(f ln 2), n = round(y), |f| <= 1/2 (lanes outside the range are replaced).
    // Rounded to nearest even by the same constant (|y| <= 127 here), exactly as
    // .rounded(.toNearestOrEven), without a call per lane.
    let n = (y.replacing(with: 0, where: .!covered) + magic) - magic
    let z = (y - n).replacing(with: 0, where: .!covered) * Float(M_LN2)
    var poly = z * (1 / 5040 as Float) + (1 / 720 as Float)
    poly = poly * z + (1 / 120 as Float)
    poly = poly * z + (1 / 24 as Float)
    poly = poly * z + (1 / 6 as Float)
    poly = poly * z + 0.5
    poly = poly * z + 1
    poly = poly * z + 1
    let nInt = unsafeBitCast(n + magic, to: SIMD8<Int32>.self) &- 0x4B40_0000
    let scale = unsafeBitCast((nInt &+ 127) &<< 23, to: SIMD8<Float>.self)
    let result = (poly * scale).replacing(with: 0, where: zero)
    guard all(covered) else { return result.replacing(with: powerBySlices(x, p), where: .!covered) }
    return result
}

/// powf lane by lane: the rare values the polynomials do not cover.
@inline(never)
func powerBySlices(_ x: SIMD8<Float>, _ p: Float) -> SIMD8<Float> {
    var out = SIMD8<Float>()
    for k in 0..<8 { out[k] = powf(x[k], p) }
    return out
}
