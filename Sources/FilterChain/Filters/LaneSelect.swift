// Lane-wise max, min and magnitude of SIMD8<Float> as plain compares and selects.
//
// The standard library's pointwiseMax and pointwiseMin are generic functions the optimiser
// leaves as calls (each shows in profiles, a call per eight pixels, with the vectors passed
// through memory); these are inlined and become a compare and a blend, or one maxps/minps.

/// max(a, b) in each lane: b where b > a, else a (so a NaN in b gives a).
@inline(always)
func lanesMax(_ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> {
    a.replacing(with: b, where: b .> a)
}

/// min(a, b) in each lane: b where b < a, else a (so a NaN in b gives a).
@inline(always)
func lanesMin(_ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> {
    a.replacing(with: b, where: b .< a)
}

/// |x| in each lane: the sign bit cleared (NaN stays NaN).
@inline(always)
func lanesMagnitude(_ x: SIMD8<Float>) -> SIMD8<Float> {
    unsafeBitCast(unsafeBitCast(x, to: SIMD8<UInt32>.self) & SIMD8(repeating: 0x7FFF_FFFF), to: SIMD8<Float>.self)
}

/// x clamped to [0, 1] in each lane; NaN gives 0 (and -0 gives +0).
@inline(always)
func lanesUnit(_ x: SIMD8<Float>) -> SIMD8<Float> {
    lanesMin(lanesMax(SIMD8<Float>(), x), SIMD8<Float>(repeating: 1))
}
