import CEngines

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
    /// The curves and matrix as fc_matrix_trc takes them, when every curve is the identity
    /// or sampled (a table curve is not).
    private let vectorised: VectorisedCurves?

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
        vectorised = VectorisedCurves(before: before, matrix: matrixIsIdentity ? nil : coefficients, after: after)
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
        apply(from: p, into: p, count: count)
    }

    /// The kernel from `p`'s colour planes into `destination`'s (which may be the same): an
    /// output leg converts the planes a tap shares with other readers without copying them
    /// first. Alpha is neither read nor written.
    ///
    /// With AVX2, fc_matrix_trc converts the vectors of 8 pixels that stay within the curves'
    /// samples (nearly all), with the same operations; the rest go through the loop below.
    /// `vectorised: false` (for the tests) converts every vector here.
    func apply(from p: PlanarPixels, into destination: PlanarPixels, count: Int, vectorised allowed: Bool = true) {
        if allowed, let curves = vectorised, count > 0 {
            let done = withUnsafeTemporaryAllocation(of: Int32.self, capacity: count / 8 + 1) { skipped -> Bool in
                let skips = curves.run(from: p, into: destination, count: count, skipped: skipped.baseAddress!)
                guard skips >= 0 else { return false }
                convert(from: p, into: destination, vectors: skipped.prefix(skips).lazy.map { Int($0) &* 8 })
                return true
            }
            if done { return }
        }
        convert(from: p, into: destination, vectors: Swift.stride(from: 0, to: count, by: 8))
    }

    /// The vectors of 8 pixels starting at `vectors`.
    private func convert(from p: PlanarPixels, into destination: PlanarPixels, vectors: some Sequence<Int>) {
        let m = coefficients
        let (m00, m01, m02) = (SIMD8<Float>(repeating: m[0]), SIMD8<Float>(repeating: m[1]), SIMD8<Float>(repeating: m[2]))
        let (m10, m11, m12) = (SIMD8<Float>(repeating: m[3]), SIMD8<Float>(repeating: m[4]), SIMD8<Float>(repeating: m[5]))
        let (m20, m21, m22) = (SIMD8<Float>(repeating: m[6]), SIMD8<Float>(repeating: m[7]), SIMD8<Float>(repeating: m[8]))
        let (b0, b1, b2) = (before[0], before[1], before[2])
        let (a0, a1, a2) = (after[0], after[1], after[2])
        let identity = matrixIsIdentity
        for i in vectors {
            let r = b0(UnsafeRawPointer(p.red + i).load(as: SIMD8<Float>.self))
            let g = b1(UnsafeRawPointer(p.green + i).load(as: SIMD8<Float>.self))
            let b = b2(UnsafeRawPointer(p.blue + i).load(as: SIMD8<Float>.self))
            var (r2, g2, b2v) = (r, g, b)
            if !identity {
                r2 = m00 * r + m01 * g + m02 * b
                g2 = m10 * r + m11 * g + m12 * b
                b2v = m20 * r + m21 * g + m22 * b
            }
            UnsafeMutableRawPointer(destination.red + i).storeBytes(of: a0(r2), as: SIMD8<Float>.self)
            UnsafeMutableRawPointer(destination.green + i).storeBytes(of: a1(g2), as: SIMD8<Float>.self)
            UnsafeMutableRawPointer(destination.blue + i).storeBytes(of: a2(b2v), as: SIMD8<Float>.self)
        }
    }
}

/// A kernel's sampled curves and matrix in memory that fc_matrix_trc can read (copies,
/// held as long as the kernel). (@unchecked Sendable: immutable after init; the copies behind
/// its pointers are only read.)
private final class VectorisedCurves: @unchecked Sendable {
    /// before's three, then after's; the pairs are allocated here.
    private let curves: [fc_curve]
    private let matrix: UnsafeMutablePointer<Float>?

    /// nil unless every curve is the identity or sampled.
    init?(before: [CurveEvaluator], matrix: [Float]?, after: [CurveEvaluator]) {
        var curves: [fc_curve] = []
        for curve in before + after {
            var c = fc_curve()
            if !curve.isIdentity {
                guard let pairs = curve.samplePairs else {
                    for c in curves { c.pairs.map { UnsafeMutablePointer(mutating: $0).deallocate() } }
                    return nil
                }
                let copy = UnsafeMutablePointer<Float>.allocate(capacity: 2 * pairs.count)
                for (i, pair) in pairs.enumerated() { copy[2 * i] = pair.x; copy[2 * i + 1] = pair.y }
                c.pairs = UnsafePointer(copy)
                if let e = curve.exactParameters {
                    (c.type, c.g, c.a, c.b, c.c, c.d, c.disc) = (e.type, e.g, e.a, e.b, e.c, e.d, e.disc)
                }
            }
            curves.append(c)
        }
        self.curves = curves
        if let matrix {
            let copy = UnsafeMutablePointer<Float>.allocate(capacity: 9)
            copy.initialize(from: matrix, count: 9)
            self.matrix = copy
        } else {
            self.matrix = nil
        }
    }

    deinit {
        for c in curves { c.pairs.map { UnsafeMutablePointer(mutating: $0).deallocate() } }
        matrix?.deallocate()
    }

    /// fc_matrix_trc: the number of vectors skipped (their indices in `skipped`), or -1
    /// without AVX2.
    func run(from p: PlanarPixels, into destination: PlanarPixels, count: Int, skipped: UnsafeMutablePointer<Int32>) -> Int {
        let source: [UnsafePointer<Float>?] = [UnsafePointer(p.red), UnsafePointer(p.green), UnsafePointer(p.blue)]
        let target: [UnsafeMutablePointer<Float>?] = [destination.red, destination.green, destination.blue]
        return fc_matrix_trc(curves, matrix, source, target, count, skipped)
    }
}
