import CEngines
/// A tone curve on every colour channel, then optional curves per channel.
public struct ToneCurve: Filter {
    public var points: [CurvePoint]
    public var red: [CurvePoint]?
    public var green: [CurvePoint]?
    public var blue: [CurvePoint]?
    public var interpolation: CurveInterpolation

    /// The identity curve through five points, by default. Values are checked when a chain
    /// with this filter is rendered (see `validate()`).
    public init(points: [CurvePoint] = [CurvePoint(0, 0), CurvePoint(0.25, 0.25), CurvePoint(0.5, 0.5),
                                        CurvePoint(0.75, 0.75), CurvePoint(1, 1)],
                red: [CurvePoint]? = nil, green: [CurvePoint]? = nil, blue: [CurvePoint]? = nil,
                interpolation: CurveInterpolation = .monotone) {
        self.points = points
        self.red = red
        self.green = green
        self.blue = blue
        self.interpolation = interpolation
    }

    public init() { self.init(interpolation: .monotone) }

    public static let declaration = FilterDeclaration<ToneCurve>(
        type: "toneCurve",
        group: .tone,
        summary: "A curve through control points, on all colour channels and per channel.",
        documentation: """
            Each colour channel value v goes through the master curve `points`, then through
            that channel's own curve (`red`, `green`, `blue`) when one is given. A curve first
            clamps its input to [x_first, x_last], so it is flat outside its points, then:

            - `monotone` (default): the piecewise cubic Hermite interpolant with
              Fritsch-Butland slopes, as scipy.interpolate.PchipInterpolator. With
              h_k = x_{k+1} - x_k and d_k = (y_{k+1} - y_k) / h_k, an interior slope m_k is 0
              when d_{k-1} d_k <= 0, else (w1 + w2) / (w1 / d_{k-1} + w2 / d_k) with
              w1 = 2 h_k + h_{k-1}, w2 = h_k + 2 h_{k-1}. The end slope
              m_0 = ((2 h_0 + h_1) d_0 - h_0 d_1) / (h_0 + h_1) is set to 0 when its sign
              differs from d_0's, and to 3 d_0 when d_0 and d_1 differ in sign and
              |m_0| > |3 d_0| (likewise at the last point). With two points it is the straight
              line. It never overshoots the points.
            - `linear`: straight lines between the points.

            Points are [x, y] pairs in 0...1, x strictly increasing, 2 to 32 of them.
            Each segment is evaluated directly as its cubic in float32 (error about 1e-7,
            far inside the 1e-4 allowed). Alpha is unchanged.
            """,
        parameters: [
            .points("points", \.points, count: 2...32, help: "the master curve, applied to red, green and blue"),
            .optionalPoints("red", \.red, count: 2...32, help: "a curve for red alone, after the master curve"),
            .optionalPoints("green", \.green, count: 2...32, help: "a curve for green alone, after the master curve"),
            .optionalPoints("blue", \.blue, count: 2...32, help: "a curve for blue alone, after the master curve"),
            .choice("interpolation", \.interpolation, help: "how the curves run between points"),
        ])

    public func operation() -> FilterOperation {
        guard isValid else { return .identity }
        let master = CurveTable(CurveFunction(points, interpolation))
        let channels = [red, green, blue].map { $0.map { CurveTable(CurveFunction($0, interpolation)) } }
        return .point(Kernel(master: master, red: channels[0], green: channels[1], blue: channels[2]))
    }

    public var keepsNeutralNeutral: Bool { red == green && green == blue }

    struct Kernel: PointKernel {
        let master: CurveTable
        let red: CurveTable?
        let green: CurveTable?
        let blue: CurveTable?

        func apply(_ p: PlanarPixels, count: Int) {
            master.apply(p.red, count: count)
            master.apply(p.green, count: count)
            master.apply(p.blue, count: count)
            red?.apply(p.red, count: count)
            green?.apply(p.green, count: count)
            blue?.apply(p.blue, count: count)
        }
    }
}

/// A curve ready for pixels: each segment's cubic as four Float coefficients in t, found
/// through a small table of bins, so that every lookup stays in L1 and the result is the
/// curve itself to float precision (no sampling error).
final class CurveTable: Sendable {
    /// The curve is the line y = x on its domain: values are only clamped to the domain
    /// (exactly), so this is a clamp, not the identity, for values outside it.
    let isClampOnly: Bool
    let x0: Float
    let x1: Float
    /// Per segment: x_k, 1 / h_k, then c0...c3 with value = ((c3 t + c2) t + c1) t + c0.
    let segments: [Float]
    let lastSegment: Int
    /// For each of `binCount` equal bins of the domain, the segment its start falls in.
    let bins: [Int32]
    let binScale: Float
    static let binCount = 256
    static let stride = 6

    init(_ curve: CurveFunction) {
        let xs = curve.xs, ys = curve.ys
        isClampOnly = xs == ys
        x0 = Float(xs[0])
        x1 = Float(xs[xs.count - 1])
        var segments: [Float] = []
        for k in 0..<(xs.count - 1) {
            let h = xs[k + 1] - xs[k]
            let y0 = ys[k], y1 = ys[k + 1]
            var c = [y0, y1 - y0, 0.0, 0.0]
            if let m = curve.slopes {
                let m0 = h * m[k], m1 = h * m[k + 1]
                c = [y0, m0, -3 * y0 - 2 * m0 + 3 * y1 - m1, 2 * y0 + m0 - 2 * y1 + m1]
            }
            segments += [Float(xs[k]), Float(1 / h)] + c.map(Float.init)
        }
        self.segments = segments
        lastSegment = xs.count - 2
        let width = xs[xs.count - 1] - xs[0]
        binScale = Float(Double(CurveTable.binCount) / width)
        bins = (0..<CurveTable.binCount).map { b in
            let start = xs[0] + width * Double(b) / Double(CurveTable.binCount)
            var k = 0
            while k < xs.count - 2 && xs[k + 1] <= start { k += 1 }
            return Int32(k)
        }
    }

    func apply(_ values: UnsafeMutablePointer<Float>, count: Int) {
        let x0 = self.x0, x1 = self.x1
        if isClampOnly {
            for i in 0..<count {
                let v = values[i]
                values[i] = v > x0 ? (v < x1 ? v : x1) : x0
            }
            return
        }
        if lastSegment < CurveTable.selectLimit && count % 8 == 0 {
            // AVX2 where the processor has it (fc_curve_select, the same operations: W1's
            // curve took 27% of its samples in the Swift loop on the SSE2 baseline).
            let done = segments.withUnsafeBufferPointer {
                fc_curve_select($0.baseAddress!, Int32(self.lastSegment + 1), x0, x1, values, count)
            }
            if done == 0 { applySelecting(values, count: count) }
            return
        }
        let binScale = self.binScale
        let lastBin = CurveTable.binCount - 1
        let lastSegment = self.lastSegment
        segments.withUnsafeBufferPointer { seg in
            bins.withUnsafeBufferPointer { bin in
                let s = seg.baseAddress!, b = bin.baseAddress!
                for i in 0..<count {
                    let v = values[i]
                    let x = v > x0 ? (v < x1 ? v : x1) : x0   // NaN goes to x0
                    let position = (x - x0) * binScale
                    // floor without a checked conversion: adding 2^23 leaves the rounded
                    // integer in the low mantissa bits.
                    var index = Int((position + 8_388_608).bitPattern & 0x7F_FFFF)
                    if Float(index) > position { index &-= 1 }
                    if index > lastBin { index = lastBin }
                    var k = Int(b[index])
                    while k < lastSegment && x > s[(k &+ 1) &* CurveTable.stride] { k &+= 1 }
                    let c = s + k &* CurveTable.stride
                    let t = (x - c[0]) * c[1]
                    values[i] = ((c[5] * t + c[4]) * t + c[3]) * t + c[2]
                }
            }
        }
    }

    /// Curves of up to this many segments pick each value's coefficients with vector
    /// compares and selects (no table lookups, eight values at a time).
    static let selectLimit = 8

    /// The selecting loop in Swift: the reference fc_curve_select is tested against, and the
    /// path without AVX2.
    func applySelecting(_ values: UnsafeMutablePointer<Float>, count: Int) {
        let lo = SIMD8<Float>(repeating: x0), hi = SIMD8<Float>(repeating: x1)
        let n = lastSegment + 1
        segments.withUnsafeBufferPointer { seg in
            let s = seg.baseAddress!
            var i = 0
            while i < count {
                let v = UnsafeRawPointer(values + i).load(as: SIMD8<Float>.self)
                var x = v.replacing(with: lo, where: .!(v .> lo))   // NaN goes to x0
                x = x.replacing(with: hi, where: x .> hi)
                var xk = SIMD8<Float>(repeating: s[0]), inverse = SIMD8<Float>(repeating: s[1])
                var c0 = SIMD8<Float>(repeating: s[2]), c1 = SIMD8<Float>(repeating: s[3])
                var c2 = SIMD8<Float>(repeating: s[4]), c3 = SIMD8<Float>(repeating: s[5])
                var k = 1
                while k < n {
                    let c = s + k * CurveTable.stride
                    let inSegment = x .>= SIMD8<Float>(repeating: c[0])
                    xk.replace(with: c[0], where: inSegment)
                    inverse.replace(with: c[1], where: inSegment)
                    c0.replace(with: c[2], where: inSegment)
                    c1.replace(with: c[3], where: inSegment)
                    c2.replace(with: c[4], where: inSegment)
                    c3.replace(with: c[5], where: inSegment)
                    k += 1
                }
                let t = (x - xk) * inverse
                let y = ((c3 * t + c2) * t + c1) * t + c0
                UnsafeMutableRawPointer(values + i).storeBytes(of: y, as: SIMD8<Float>.self)
                i += 8
            }
        }
    }
}
