/// How a tone curve runs between its points.
public enum CurveInterpolation: String, Sendable, CaseIterable {
    /// Piecewise cubic Hermite with Fritsch-Butland slopes (scipy's PchipInterpolator):
    /// smooth and never overshooting.
    case monotone
    /// Straight lines between the points.
    case linear
}

/// A curve through points: the points and, for monotone curves, the Hermite slopes at them
/// (CurveTable turns them into per-segment cubics).
struct CurveFunction: Sendable {
    let xs: [Double]
    let ys: [Double]
    /// Hermite slopes at the points (monotone), nil for straight lines.
    let slopes: [Double]?

    init(_ points: [CurvePoint], _ interpolation: CurveInterpolation) {
        precondition(points.count >= 2, "a curve needs two points")
        xs = points.map(\.x)
        ys = points.map(\.y)
        slopes = interpolation == .monotone ? CurveFunction.pchipSlopes(xs, ys) : nil
    }

    /// scipy.interpolate.PchipInterpolator's slopes: h_k = x_{k+1} - x_k,
    /// d_k = (y_{k+1} - y_k) / h_k; interior m_k = 0 when d_{k-1} d_k <= 0, else the weighted
    /// harmonic mean (w1 + w2) / (w1 / d_{k-1} + w2 / d_k), w1 = 2 h_k + h_{k-1},
    /// w2 = h_k + 2 h_{k-1}; the ends by the three-point formula, made shape-preserving.
    static func pchipSlopes(_ x: [Double], _ y: [Double]) -> [Double] {
        let n = x.count
        let h = (0..<(n - 1)).map { x[$0 + 1] - x[$0] }
        let d = (0..<(n - 1)).map { (y[$0 + 1] - y[$0]) / h[$0] }
        if n == 2 { return [d[0], d[0]] }
        var m = [Double](repeating: 0, count: n)
        for k in 1..<(n - 1) {
            if d[k - 1] * d[k] <= 0 { continue }
            let w1 = 2 * h[k] + h[k - 1], w2 = h[k] + 2 * h[k - 1]
            m[k] = (w1 + w2) / (w1 / d[k - 1] + w2 / d[k])
        }
        func end(_ h0: Double, _ h1: Double, _ d0: Double, _ d1: Double) -> Double {
            let e = ((2 * h0 + h1) * d0 - h0 * d1) / (h0 + h1)
            if sign(e) != sign(d0) { return 0 }
            if sign(d0) != sign(d1), abs(e) > abs(3 * d0) { return 3 * d0 }
            return e
        }
        m[0] = end(h[0], h[1], d[0], d[1])
        m[n - 1] = end(h[n - 2], h[n - 3 < 0 ? 0 : n - 3], d[n - 2], d[n - 3 < 0 ? 0 : n - 3])
        return m
    }

    /// numpy's sign: -1, 0 or 1.
    private static func sign(_ v: Double) -> Int { v > 0 ? 1 : v < 0 ? -1 : 0 }
}
