/// (r', g', b'[, a']) = M (r, g, b, a, 1) on straight colour, eight pixels at a time: the
/// kernel of every filter that is a matrix (exposure, invert, hueAdjust, sepia, monochrome,
/// colorMatrix). Without an alpha row, alpha is unchanged; a written alpha is clamped to [0, 1].
struct MatrixKernel: PointKernel {
    /// Three or four rows of five: the coefficients of r, g, b, a and the constant.
    let rows: [[Float]]
    /// True when some colour row reads alpha.
    let readsAlpha: Bool

    init(_ rows: [[Double]]) {
        precondition(rows.count == 3 || rows.count == 4, "a colour matrix has 3 or 4 rows")
        self.rows = rows.map { $0.map(Float.init) }
        readsAlpha = rows.prefix(3).contains { $0[3] != 0 }
    }

    /// Rows of four (r, g, b, constant) made rows of five with no alpha term.
    init(rgb rows: [[Double]]) {
        self.init(rows.map { [$0[0], $0[1], $0[2], 0, $0[3]] })
    }

    func apply(_ p: PlanarPixels, count: Int) {
        let m = rows.map { row in row.map { SIMD8<Float>(repeating: $0) } }
        let (m0, m1, m2) = (m[0], m[1], m[2])
        let alphaRow = m.count == 4 ? m[3] : nil
        var i = 0
        while i < count {
            let r = UnsafeRawPointer(p.red + i).load(as: SIMD8<Float>.self)
            let g = UnsafeRawPointer(p.green + i).load(as: SIMD8<Float>.self)
            let b = UnsafeRawPointer(p.blue + i).load(as: SIMD8<Float>.self)
            var r2 = m0[0] * r + m0[1] * g + m0[2] * b + m0[4]
            var g2 = m1[0] * r + m1[1] * g + m1[2] * b + m1[4]
            var b2 = m2[0] * r + m2[1] * g + m2[2] * b + m2[4]
            if readsAlpha || alphaRow != nil {
                let a = UnsafeRawPointer(p.alpha + i).load(as: SIMD8<Float>.self)
                r2 += m0[3] * a
                g2 += m1[3] * a
                b2 += m2[3] * a
                if let ma = alphaRow {
                    var a2 = ma[0] * r + ma[1] * g + ma[2] * b + ma[3] * a + ma[4]
                    a2 = a2.replacing(with: 0, where: .!(a2 .> 0))
                    a2 = a2.replacing(with: 1, where: a2 .> 1)
                    UnsafeMutableRawPointer(p.alpha + i).storeBytes(of: a2, as: SIMD8<Float>.self)
                }
            }
            UnsafeMutableRawPointer(p.red + i).storeBytes(of: r2, as: SIMD8<Float>.self)
            UnsafeMutableRawPointer(p.green + i).storeBytes(of: g2, as: SIMD8<Float>.self)
            UnsafeMutableRawPointer(p.blue + i).storeBytes(of: b2, as: SIMD8<Float>.self)
            i += 8
        }
    }
}
