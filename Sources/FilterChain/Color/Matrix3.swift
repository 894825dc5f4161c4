/// A 3x3 matrix of Doubles, row-major: the colour engine's matrices (RGB to XYZ, chromatic
/// adaptation, the folded matrix of a fused transform).
public struct Matrix3: Sendable, Equatable, CustomStringConvertible {
    /// Row-major: m[3 * row + column].
    public var m: [Double]

    public init(rows: [[Double]]) {
        precondition(rows.count == 3 && rows.allSatisfy { $0.count == 3 }, "a 3x3 matrix has three rows of three")
        m = rows.flatMap { $0 }
    }

    /// The matrix whose columns are these vectors.
    public init(columns c0: SIMD3<Double>, _ c1: SIMD3<Double>, _ c2: SIMD3<Double>) {
        m = [c0.x, c1.x, c2.x, c0.y, c1.y, c2.y, c0.z, c1.z, c2.z]
    }

    public static let identity = Matrix3(rows: [[1, 0, 0], [0, 1, 0], [0, 0, 1]])
    public static func diagonal(_ d: SIMD3<Double>) -> Matrix3 { Matrix3(rows: [[d.x, 0, 0], [0, d.y, 0], [0, 0, d.z]]) }

    public subscript(row: Int, column: Int) -> Double { m[3 * row + column] }

    public func row(_ i: Int) -> SIMD3<Double> { SIMD3(m[3 * i], m[3 * i + 1], m[3 * i + 2]) }
    public func column(_ j: Int) -> SIMD3<Double> { SIMD3(m[j], m[3 + j], m[6 + j]) }

    public static func * (a: Matrix3, b: Matrix3) -> Matrix3 {
        Matrix3(rows: (0..<3).map { i in (0..<3).map { j in (a.row(i) * b.column(j)).sum() } })
    }

    public static func * (a: Matrix3, v: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3((a.row(0) * v).sum(), (a.row(1) * v).sum(), (a.row(2) * v).sum())
    }

    public var determinant: Double {
        self[0, 0] * (self[1, 1] * self[2, 2] - self[1, 2] * self[2, 1])
            - self[0, 1] * (self[1, 0] * self[2, 2] - self[1, 2] * self[2, 0])
            + self[0, 2] * (self[1, 0] * self[2, 1] - self[1, 1] * self[2, 0])
    }

    /// The inverse, nil when the matrix is singular.
    public var inverse: Matrix3? {
        let d = determinant
        guard d.isFinite, abs(d) > 1e-12 else { return nil }
        let a = self
        func c(_ r0: Int, _ c0: Int, _ r1: Int, _ c1: Int) -> Double { a[r0, c0] * a[r1, c1] - a[r0, c1] * a[r1, c0] }
        return Matrix3(rows: [
            [c(1, 1, 2, 2) / d, -c(0, 1, 2, 2) / d, c(0, 1, 1, 2) / d],
            [-c(1, 0, 2, 2) / d, c(0, 0, 2, 2) / d, -c(0, 0, 1, 2) / d],
            [c(1, 0, 2, 1) / d, -c(0, 0, 2, 1) / d, c(0, 0, 1, 1) / d],
        ])
    }

    public var description: String {
        (0..<3).map { i in "[" + (0..<3).map { j in "\(self[i, j])" }.joined(separator: ", ") + "]" }.joined(separator: " ")
    }
}

/// The colorimetry the engine needs, as the ICC and lcms2 define it.
public enum Colorimetry {
    /// The ICC profile connection space's white, D50, as lcms2 has it (cmsD50_XYZ).
    public static let d50 = SIMD3<Double>(0.9642, 1.0, 0.8249)
    /// The white of every working space, D65 (x, y as sRGB defines it).
    public static let d65xy = (x: 0.3127, y: 0.3290)

    /// XYZ with Y = 1 from chromaticity x, y.
    public static func xyz(x: Double, y: Double) -> SIMD3<Double> {
        SIMD3(x / y, 1, (1 - x - y) / y)
    }

    /// The Bradford cone response matrix (lcms2's default for chromatic adaptation).
    static let bradford = Matrix3(rows: [
        [0.8951, 0.2664, -0.1614],
        [-0.7502, 1.7135, 0.0367],
        [0.0389, -0.0685, 1.0296],
    ])

    /// Bradford adaptation from white `from` to white `to` (XYZ): cone responses scaled by
    /// the ratio of the whites', as lcms2's _cmsAdaptationMatrix.
    public static func bradfordAdaptation(from: SIMD3<Double>, to: SIMD3<Double>) -> Matrix3 {
        let cone = bradford
        let s = cone * from, d = cone * to
        return cone.inverse! * Matrix3.diagonal(d / s) * cone
    }

    /// RGB to XYZ for primaries and a white given as chromaticities (Y of white = 1), in the
    /// white's own terms (not adapted).
    public static func rgbToXYZ(red: (Double, Double), green: (Double, Double), blue: (Double, Double),
                                white: (x: Double, y: Double)) -> Matrix3 {
        func column(_ p: (Double, Double)) -> SIMD3<Double> { SIMD3(p.0, p.1, 1 - p.0 - p.1) }
        let primaries = Matrix3(columns: column(red), column(green), column(blue))
        let scale = primaries.inverse! * xyz(x: white.x, y: white.y)
        return primaries * Matrix3.diagonal(scale)
    }
}
