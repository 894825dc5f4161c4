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
        // The coefficients broadcast once per call into locals: no arrays made or read in the loop.
        let m = rows
        func at(_ i: Int, _ j: Int) -> SIMD8<Float> { SIMD8(repeating: m[i][j]) }
        let (rr, rg, rb, ra, r1) = (at(0, 0), at(0, 1), at(0, 2), at(0, 3), at(0, 4))
        let (gr, gg, gb, ga, g1) = (at(1, 0), at(1, 1), at(1, 2), at(1, 3), at(1, 4))
        let (br, bg, bb, ba, b1) = (at(2, 0), at(2, 1), at(2, 2), at(2, 3), at(2, 4))
        let writesAlpha = m.count == 4
        let zero = SIMD8<Float>()
        let (ar, ag, ab, aa, a1) = writesAlpha ? (at(3, 0), at(3, 1), at(3, 2), at(3, 3), at(3, 4)) : (zero, zero, zero, zero, zero)
        let usesAlpha = readsAlpha || writesAlpha
        var i = 0
        while i < count {
            let r = UnsafeRawPointer(p.red + i).load(as: SIMD8<Float>.self)
            let g = UnsafeRawPointer(p.green + i).load(as: SIMD8<Float>.self)
            let b = UnsafeRawPointer(p.blue + i).load(as: SIMD8<Float>.self)
            var r2 = rr * r + rg * g + rb * b + r1
            var g2 = gr * r + gg * g + gb * b + g1
            var b2 = br * r + bg * g + bb * b + b1
            if usesAlpha {
                let a = UnsafeRawPointer(p.alpha + i).load(as: SIMD8<Float>.self)
                r2 += ra * a
                g2 += ga * a
                b2 += ba * a
                if writesAlpha {
                    var a2 = ar * r + ag * g + ab * b + aa * a + a1
                    a2 = a2.replacing(with: 0, where: .!(a2 .> 0))
                    a2 = a2.replacing(with: 1, where: a2 .> 1)
                    UnsafeMutableRawPointer(p.alpha + i).storeBytes(of: a2, as: SIMD8<Float>.self)
                }
            }
            UnsafeMutableRawPointer(p.red + i).storeBytes(of: r2, as: SIMD8<Float>.self)
            UnsafeMutableRawPointer(p.green + i).storeBytes(of: g2, as: SIMD8<Float>.self)
            UnsafeMutableRawPointer(p.blue + i).storeBytes(of: b2, as: SIMD8<Float>.self)
            i &+= 8
        }
    }
}
