/// A tone curve on every colour channel, then optional curves per channel.
public struct ToneCurve: Filter {
    public var points: [CurvePoint] = [CurvePoint(0, 0), CurvePoint(0.25, 0.25), CurvePoint(0.5, 0.5),
                                       CurvePoint(0.75, 0.75), CurvePoint(1, 1)]
    public var red: [CurvePoint]?
    public var green: [CurvePoint]?
    public var blue: [CurvePoint]?
    public var interpolation = CurveInterpolation.monotone

    public init() {}

    public static let declaration = FilterDeclaration<ToneCurve>(
        type: "toneCurve",
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
            Evaluation error is at most 1e-4 (a lookup table is used only where its error
            bound is below 2e-5). Alpha is unchanged.
            """,
        parameters: [
            .points("points", \.points, count: 2...32, help: "the master curve, applied to red, green and blue"),
            .optionalPoints("red", \.red, count: 2...32, help: "a curve for red alone, after the master curve"),
            .optionalPoints("green", \.green, count: 2...32, help: "a curve for green alone, after the master curve"),
            .optionalPoints("blue", \.blue, count: 2...32, help: "a curve for blue alone, after the master curve"),
            .choice("interpolation", \.interpolation, help: "how the curves run between points"),
        ])

    public func operation() -> FilterOperation {
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

/// A curve ready for pixels: a table of samples with linear interpolation between them when
/// that is within 2e-5 of the exact curve, the exact evaluation otherwise.
final class CurveTable: Sendable {
    let curve: CurveFunction
    /// (value, difference to the next value) per cell; nil when the curve is evaluated exactly.
    let table: [SIMD2<Float>]?
    let x0: Float
    let x1: Float
    let scale: Float
    let cells: Int

    static let tolerance = 2e-5

    /// The curve is the line y = x: values are only clamped to its domain (exactly).
    let isIdentity: Bool

    init(_ curve: CurveFunction) {
        self.curve = curve
        let domain = curve.domain
        isIdentity = curve.xs == curve.ys
        var cells = 4096
        while cells < 65536, curve.linearSamplingErrorBound(step: (domain.upperBound - domain.lowerBound) / Double(cells)) > Self.tolerance {
            cells *= 4
        }
        let width = domain.upperBound - domain.lowerBound
        if curve.linearSamplingErrorBound(step: width / Double(cells)) <= Self.tolerance {
            let values = (0...cells).map { curve(domain.lowerBound + width * Double($0) / Double(cells)) }
            table = (0..<cells).map { SIMD2(Float(values[$0]), Float(values[$0 + 1] - values[$0])) }
        } else {
            table = nil
        }
        self.cells = cells
        x0 = Float(domain.lowerBound)
        x1 = Float(domain.upperBound)
        scale = Float(Double(cells) / width)
    }

    func apply(_ values: UnsafeMutablePointer<Float>, count: Int) {
        if isIdentity {
            let x0 = self.x0, x1 = self.x1
            for i in 0..<count {
                let v = values[i]
                values[i] = v > x0 ? (v < x1 ? v : x1) : x0
            }
            return
        }
        guard let table else {
            for i in 0..<count { values[i] = Float(curve(Double(values[i]))) }
            return
        }
        // Scalar on purpose: LLVM keeps this loop branch-free, while SIMD8 conversions to
        // integers fall back to generic per-lane code in Swift.
        let x0 = self.x0, x1 = self.x1, scale = self.scale
        let limit = Float(cells)
        let last = cells - 1
        table.withUnsafeBufferPointer { t in
            t.withMemoryRebound(to: Float.self) { cellsAndSteps in
                let c = cellsAndSteps.baseAddress!
                for i in 0..<count {
                    let v = values[i]
                    let clamped = v > x0 ? (v < x1 ? v : x1) : x0   // NaN goes to x0
                    let position = (clamped - x0) * scale
                    let bounded = position < limit ? position : limit
                    // floor(bounded) without a checked conversion: adding 2^23 rounds to an
                    // integer held in the low mantissa bits.
                    var cell = Int((bounded + 8_388_608).bitPattern & 0x7F_FFFF)
                    if Float(cell) > bounded { cell &-= 1 }
                    if cell > last { cell = last }
                    let fraction = bounded - Float(cell)
                    values[i] = c[cell &* 2] + fraction * c[cell &* 2 &+ 1]
                }
            }
        }
    }
}
