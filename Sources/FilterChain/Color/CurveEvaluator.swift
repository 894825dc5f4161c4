#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A `TransferCurve` ready for pixels, eight values at a time: parametric curves through the
/// vectorised `power` (relative error below 1e-5), tables as lcms2 evaluates them in 16
/// bits, from a table of all 65536 results (so the result is lcms2's exactly).
struct CurveEvaluator: Sendable {
    private enum Form: Sendable {
        case identity
        /// lcms2's type, its parameters as Float, and the values it derives from them.
        case parametric(type: Int, g: Float, a: Float, b: Float, c: Float, d: Float, e: Float, f: Float,
                        disc: Float, degenerate: Bool, gammaIsOne: Bool)
        case table([Float])
    }

    private let form: Form
    /// For parametric curves: the curve sampled at the floats of [2^-12, 1] whose low 13
    /// mantissa bits are 0 (1024 samples an octave), interpolated linearly in between. Within
    /// a cell x changes by 2^-10 of itself, so a power curve's relative error is below
    /// g |g - 1| 2^-23 (checked against lcms2 by the kernel tests); lanes outside the range
    /// take the exact path.
    ///
    /// Stored as pairs (the sample, the next one minus it): one 8-byte load a lane, and the
    /// difference is the same Float subtraction the interpolation did at every call.
    private var samples: [SIMD2<Float>]?

    /// The bit pattern of 2^-12, where `samples` starts; cells are 2^13 patterns wide.
    static let sampleBase: Int32 = 0x3980_0000
    static let sampleCells = Int((0x3F80_0000 - 0x3980_0000) >> 13)

    init(_ curve: TransferCurve) {
        self.init(exactly: curve)
        if case .parametric = form {
            let exact = self
            var values = [Float](repeating: 0, count: CurveEvaluator.sampleCells + 8)
            var i = 0
            while i <= CurveEvaluator.sampleCells {
                var x = SIMD8<Float>()
                for k in 0..<8 {
                    let cell = min(i + k, CurveEvaluator.sampleCells)
                    x[k] = Float(bitPattern: UInt32(CurveEvaluator.sampleBase) + UInt32(cell) << 13)
                }
                let y = exact.exactly(x)
                for k in 0..<8 where i + k <= CurveEvaluator.sampleCells { values[i + k] = y[k] }
                i += 8
            }
            samples = (0..<(CurveEvaluator.sampleCells + 7)).map { SIMD2(values[$0], values[$0 + 1] - values[$0]) }
        }
    }

    /// A curve no ICC curve holds (PQ's, HLG's), as a table of its value at each 16-bit
    /// step (inputs rounded to 16 bits, as a table curve's are); values may leave [0, 1].
    init(sampling f: (Double) -> Double) {
        samples = nil
        form = .table((0...65535).map { Float(f(Double($0) / 65535)) })
    }

    private init(exactly curve: TransferCurve) {
        samples = nil
        precondition(curve.isSupported, "curve \(curve) is not supported by the kernels")
        switch curve {
        case .parametric(let type, let p):
            if curve.isIdentity { form = .identity; return }
            func param(_ i: Int) -> Double { i < p.count ? p[i] : 0 }
            let (g, a, b, c, d, e, f) = (param(0), param(1), param(2), param(3), param(4), param(5), param(6))
            let tol = TransferCurve.tolerance
            var disc = 0.0
            var degenerate = false
            switch type {
            case -1: degenerate = abs(g) < tol
            case 2: degenerate = abs(a) < tol; disc = degenerate ? 0 : -b / a
            case -2: degenerate = abs(g) < tol || abs(a) < tol
            case 3: degenerate = abs(a) < tol; disc = degenerate ? 0 : max(-b / a, 0)
            case -3: degenerate = abs(a) < tol; disc = degenerate ? 0 : -b / a
            case -4:
                degenerate = abs(g) < tol || abs(a) < tol || abs(c) < tol
                let v = a * d + b
                disc = v < 0 ? 0 : pow(v, g)
            case -5: degenerate = abs(a) < tol || abs(c) < tol; disc = c * d + f
            default: break
            }
            // Inverse types use 1/g.
            let exponent = type < 0 ? 1 / g : g
            form = .parametric(type: type, g: Float(exponent), a: Float(a), b: Float(b), c: Float(c), d: Float(d),
                               e: Float(e), f: Float(f), disc: Float(disc), degenerate: degenerate,
                               gammaIsOne: abs(g - 1) < tol)
        case .table(let t):
            form = .table((0...65535).map { w in Float(Double(TransferCurve.lcmsTable(t, word: w)) / 65535) })
        }
    }

    /// The samples as pairs (for the AVX2 kernel, fc_matrix_trc), nil unless the curve is
    /// parametric.
    var samplePairs: [SIMD2<Float>]? { samples }

    /// For lcms2's types 4 and -4, not degenerate (the sRGB-like curves, whose exact path
    /// fc_matrix_trc has too): the type and the values `exactly` uses.
    var exactParameters: (type: Int32, g: Float, a: Float, b: Float, c: Float, d: Float, disc: Float)? {
        guard case .parametric(let type, let g, let a, let b, let c, let d, _, _, let disc, let degenerate, _) = form,
              type == 4 || type == -4, !degenerate else { return nil }
        return (Int32(type), g, a, b, c, d, disc)
    }

    var isIdentity: Bool {
        if case .identity = form { return true }
        return false
    }

    /// Whether any lane is set: the standard library's `any` is a generic reduction that is
    /// not always inlined, and costs more than the curve around it.
    @inline(__always)
    static func any(_ mask: SIMDMask<SIMD8<Int32>>) -> Bool {
        let lanes = unsafeBitCast(mask, to: SIMD8<Int32>.self)
        let half = lanes.lowHalf | lanes.highHalf
        let quarter = half.lowHalf | half.highHalf
        return quarter[0] | quarter[1] != 0
    }

    /// x^p for lanes where `use` holds (others give anything): `power` needs x >= 0.
    @inline(__always)
    private static func maskedPower(_ x: SIMD8<Float>, _ p: Float, where use: SIMDMask<SIMD8<Int32>>) -> SIMD8<Float> {
        FilterChain.power(SIMD8<Float>.zero.replacing(with: x, where: use .& (x .> 0)), p)
    }

    @inline(__always)
    func callAsFunction(_ x: SIMD8<Float>) -> SIMD8<Float> {
        guard let samples else { return exactly(x) }
        let low = SIMD8<Float>(repeating: Float(bitPattern: UInt32(CurveEvaluator.sampleBase)))
        let inside = (x .>= low) .& (x .<= 1)
        let bits = unsafeBitCast(x.replacing(with: 1, where: .!inside), to: SIMD8<Int32>.self) &- CurveEvaluator.sampleBase
        let cell = bits &>> 13
        // The position within the cell, 0 ..< 1, as a float without a lane-by-lane conversion.
        let fraction = unsafeBitCast((bits & 0x1FFF) | 0x4B00_0000, to: SIMD8<Float>.self) - 8_388_608
        var a = SIMD8<Float>(), d = SIMD8<Float>()
        samples.withUnsafeBufferPointer { t in
            for k in 0..<8 {
                let pair = t[Int(cell[k])]
                a[k] = pair.x
                d[k] = pair.y
            }
        }
        let interpolated = a + d * (fraction * (1 / 8192 as Float))
        let outside = .!inside
        if !CurveEvaluator.any(outside) { return interpolated }
        // The lanes inside computed as 0 (each lane's value depends on it alone): dark lanes
        // beside sampled ones then take the linear segment without the power.
        return interpolated.replacing(with: exactly(x.replacing(with: 0, where: inside)), where: outside)
    }

    /// The curve, computed (the reference for `samples`, and the path outside them). Where no
    /// lane reaches a curve's power segment (dark values below 2^-12, the common case outside
    /// the samples) the linear segment alone is computed: the same values, without the power.
    @inline(__always)
    func exactly(_ x: SIMD8<Float>) -> SIMD8<Float> {
        switch form {
        case .identity:
            return x
        case .table(let values):
            // lcms2's rounding of the input to 16 bits, in Double (exact for Float inputs).
            let d = SIMD8<Double>(x) * 65535 + 0.5
            var q = ((d - 32767) * 65536).rounded(.toNearestOrEven) / 65536
            q = q.rounded(.down) + 32767
            q.replace(with: 0, where: .!(d .> 0))
            q.replace(with: 65535, where: d .>= 65535)
            var out = SIMD8<Float>()
            values.withUnsafeBufferPointer { t in
                for k in 0..<8 { out[k] = t[Int(q[k])] }
            }
            return out
        case .parametric(let type, let g, let a, let b, let c, let d, let e, let f, let disc, let degenerate, let gammaIsOne):
            let zero = SIMD8<Float>.zero
            if degenerate {
                return type == -1 ? SIMD8(repeating: 1e22) : zero
            }
            switch type {
            case 1, -1:
                let negative = x .< 0
                let positive = CurveEvaluator.maskedPower(x, g, where: .!negative)
                return positive.replacing(with: gammaIsOne ? x : zero, where: negative)
            case 2:
                let v = a * x + b
                let above = (x .>= disc) .& (v .> 0)
                return CurveEvaluator.maskedPower(v, g, where: above).replacing(with: 0, where: .!above)
            case -2:
                let negative = x .< 0
                var v = (CurveEvaluator.maskedPower(x, g, where: .!negative) - b) / a
                v.replace(with: 0, where: negative .| (v .< 0))
                return v
            case 3:
                let v = a * x + b
                let above = x .>= disc
                if !CurveEvaluator.any(above) { return SIMD8(repeating: c) }
                var y = CurveEvaluator.maskedPower(v, g, where: above .& (v .> 0)) + c
                y.replace(with: 0, where: above .& .!(v .> 0))
                return y.replacing(with: c, where: .!above)
            case -3:
                let above = x .>= c
                if !CurveEvaluator.any(above) { return SIMD8(repeating: disc) }
                let v = x - c
                var y = (CurveEvaluator.maskedPower(v, g, where: above .& (v .> 0)) - b) / a
                y.replace(with: 0, where: above .& .!(v .> 0))
                return y.replacing(with: SIMD8(repeating: disc), where: .!above)
            case 4:
                let v = a * x + b
                let above = x .>= d
                if !CurveEvaluator.any(above) { return x * c }
                var y = CurveEvaluator.maskedPower(v, g, where: above)
                y.replace(with: 0, where: above .& .!(v .> 0))
                return y.replacing(with: x * c, where: .!above)
            case -4:
                let above = x .>= disc
                if !CurveEvaluator.any(above) { return x / c }
                let y = (CurveEvaluator.maskedPower(x, g, where: above) - b) / a
                return y.replacing(with: x / c, where: .!above)
            case 5:
                let v = a * x + b
                let above = x .>= d
                if !CurveEvaluator.any(above) { return x * c + f }
                var y = CurveEvaluator.maskedPower(v, g, where: above .& (v .> 0)) + e
                y.replace(with: e, where: above .& .!(v .> 0))
                return y.replacing(with: x * c + f, where: .!above)
            case -5:
                let above = x .>= disc
                if !CurveEvaluator.any(above) { return (x - f) / c }
                let v = x - e
                var y = (CurveEvaluator.maskedPower(v, g, where: above .& (v .>= 0)) - b) / a
                y.replace(with: 0, where: above .& (v .< 0))
                return y.replacing(with: (x - f) / c, where: .!above)
            default:
                preconditionFailure("parametric curve type \(type) is not supported")
            }
        }
    }
}
