/// A colour conversion between a matrix/TRC profile and a working space as one point
/// kernel: curves, one 3x3 matrix (the profile's colorants folded with the working space's
/// inverse, both relative to D50 as lcms2 has them), curves. Float and unbounded: values
/// outside [0, 1] go through (parametric curves extend as lcms2 extends them; tables clamp,
/// as lcms2's do). It gives lcms2's float transform of the same profiles, relative
/// colorimetric without black-point compensation, to about 1e-5.
///
/// A grey profile's kernel works on R = G = B (grey spread to three planes): in, its one
/// curve on each plane and white's XYZ times the curve's value; out, the luminance (the
/// connection space's Y) through the inverse curve, into all three planes.
package struct MatrixTRCKernel: PointKernel {
    let before: [CurveEvaluator]
    /// Row-major.
    public let matrix: Matrix3
    let after: [CurveEvaluator]
    private let coefficients: [Float]
    private let matrixIsIdentity: Bool

    init(before: [TransferCurve], matrix: Matrix3, after: [TransferCurve]) {
        func three(_ c: [TransferCurve]) -> [CurveEvaluator] {
            let e = c.map(CurveEvaluator.init)
            return e.count == 1 ? [e[0], e[0], e[0]] : e
        }
        self.init(before: three(before), matrix: matrix, after: three(after))
    }

    private init(before: [CurveEvaluator], matrix: Matrix3, after: [CurveEvaluator]) {
        self.before = before
        self.matrix = matrix
        self.after = after
        coefficients = matrix.m.map(Float.init)
        matrixIsIdentity = coefficients == Matrix3.identity.m.map(Float.init)
    }

    /// The curves applied first, one a channel (for an input leg: the profile's, which a
    /// table of the integer samples can hold instead).
    var firstCurves: [CurveEvaluator] { before }

    /// The kernel without its first curves (they are applied before it, by table).
    var withoutFirstCurves: MatrixTRCKernel {
        let identity = CurveEvaluator(.parametric(type: 1, params: [1]))
        return MatrixTRCKernel(before: [identity, identity, identity], matrix: matrix, after: after)
    }

    /// The input leg: `profile`'s encoding to the working space's (colorimetric, as lcms2's
    /// relative intent without black-point compensation). nil unless the profile is
    /// matrix/TRC.
    public static func input(from profile: ColorProfile, to space: WorkingSpace) -> MatrixTRCKernel? {
        guard profile.kind == .matrixTRC, let toWorking = space.rgbToPCS.inverse,
              let inverse = space.curve.analyticInverse, let fromProfile = profileToPCS(profile) else { return nil }
        return MatrixTRCKernel(before: profile.curves, matrix: toWorking * fromProfile, after: [inverse])
    }

    /// The output leg: the working space's encoding to `profile`'s (colorimetric). nil unless
    /// the profile is matrix/TRC and its matrix can be inverted.
    public static func output(from space: WorkingSpace, to profile: ColorProfile) -> MatrixTRCKernel? {
        guard profile.kind == .matrixTRC else { return nil }
        let fromWorking = space.rgbToPCS
        let toProfile: Matrix3
        if profile.space == .grey {
            // lcms2 keeps the connection space's Y (D50's Y is 1).
            let y = fromWorking.row(1)
            toProfile = Matrix3(rows: [[y.x, y.y, y.z], [y.x, y.y, y.z], [y.x, y.y, y.z]])
            return MatrixTRCKernel(before: [space.curve], matrix: toProfile, after: profile.inverseCurves)
        }
        guard let colorants = profile.colorants, let inverse = colorants.inverse else { return nil }
        return MatrixTRCKernel(before: [space.curve], matrix: inverse * fromWorking, after: profile.inverseCurves)
    }

    /// Linear device values to XYZ (D50): the colorants, or for grey (R = G = B) D50 times
    /// the value, spread over three equal columns.
    private static func profileToPCS(_ profile: ColorProfile) -> Matrix3? {
        if profile.space == .grey {
            let third = Colorimetry.d50 / 3
            return Matrix3(columns: third, third, third)
        }
        return profile.colorants
    }

    public func apply(_ p: PlanarPixels, count: Int) {
        let m = coefficients
        let (m00, m01, m02) = (SIMD8<Float>(repeating: m[0]), SIMD8<Float>(repeating: m[1]), SIMD8<Float>(repeating: m[2]))
        let (m10, m11, m12) = (SIMD8<Float>(repeating: m[3]), SIMD8<Float>(repeating: m[4]), SIMD8<Float>(repeating: m[5]))
        let (m20, m21, m22) = (SIMD8<Float>(repeating: m[6]), SIMD8<Float>(repeating: m[7]), SIMD8<Float>(repeating: m[8]))
        let (b0, b1, b2) = (before[0], before[1], before[2])
        let (a0, a1, a2) = (after[0], after[1], after[2])
        let identity = matrixIsIdentity
        var i = 0
        while i < count {
            let r = b0(UnsafeRawPointer(p.red + i).load(as: SIMD8<Float>.self))
            let g = b1(UnsafeRawPointer(p.green + i).load(as: SIMD8<Float>.self))
            let b = b2(UnsafeRawPointer(p.blue + i).load(as: SIMD8<Float>.self))
            var (r2, g2, b2v) = (r, g, b)
            if !identity {
                r2 = m00 * r + m01 * g + m02 * b
                g2 = m10 * r + m11 * g + m12 * b
                b2v = m20 * r + m21 * g + m22 * b
            }
            UnsafeMutableRawPointer(p.red + i).storeBytes(of: a0(r2), as: SIMD8<Float>.self)
            UnsafeMutableRawPointer(p.green + i).storeBytes(of: a1(g2), as: SIMD8<Float>.self)
            UnsafeMutableRawPointer(p.blue + i).storeBytes(of: a2(b2v), as: SIMD8<Float>.self)
            i &+= 8
        }
    }
}
