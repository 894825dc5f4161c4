import Foundation
@testable import FilterChain

/// The catalogue's formulas, in Double, written from the text.
extension Reference {
    static func perChannel(_ img: Image, _ f: (Double) -> Double) -> Image {
        var o = img
        o.r = img.r.map(f); o.g = img.g.map(f); o.b = img.b.map(f)
        return o
    }

    /// (r', g', b') = M (r, g, b) for a 3x3 M.
    static func matrix(_ img: Image, _ m: [[Double]]) -> Image {
        var o = img
        for i in 0..<img.r.count {
            let v = [img.r[i], img.g[i], img.b[i]]
            let out = m.map { row in row[0] * v[0] + row[1] * v[1] + row[2] * v[2] }
            o.r[i] = out[0]; o.g[i] = out[1]; o.b[i] = out[2]
        }
        return o
    }

    static func luma(_ r: Double, _ g: Double, _ b: Double) -> Double { 0.2126 * r + 0.7152 * g + 0.0722 * b }

    static func levels(_ c: Double, _ f: Levels) -> Double {
        let t = min(max((c - f.inBlack) / (f.inWhite - f.inBlack), 0), 1)
        return f.outBlack + (f.outWhite - f.outBlack) * pow(t, 1 / f.gamma)
    }

    static func hueMatrix(_ degrees: Double) -> [[Double]] {
        let a = [[0.213, 0.715, 0.072], [0.213, 0.715, 0.072], [0.213, 0.715, 0.072]]
        let b = [[0.787, -0.715, -0.072], [-0.213, 0.285, -0.072], [-0.213, -0.715, 0.928]]
        let c = [[-0.213, -0.715, 0.928], [0.143, 0.140, -0.283], [-0.787, 0.715, 0.072]]
        let angle = degrees * Double.pi / 180
        return (0..<3).map { i in (0..<3).map { j in a[i][j] + cos(angle) * b[i][j] + sin(angle) * c[i][j] } }
    }

    static func vibrance(_ img: Image, _ amount: Double) -> Image {
        var o = img
        for i in 0..<img.r.count {
            let (r, g, b) = (img.r[i], img.g[i], img.b[i])
            let l = luma(r, g, b)
            let s = min(max(max(r, g, b) - min(r, g, b), 0), 1)
            let k = 1 + amount * (1 - s)
            o.r[i] = l + k * (r - l); o.g[i] = l + k * (g - l); o.b[i] = l + k * (b - l)
        }
        return o
    }

    static func colorMatrix(_ img: Image, _ m: [[Double]]) -> Image {
        var o = img
        for i in 0..<img.r.count {
            let v = [img.r[i], img.g[i], img.b[i], img.a[i], 1]
            let out = m.map { row in zip(row, v).map { $0 * $1 }.reduce(0, +) }
            o.r[i] = out[0]; o.g[i] = out[1]; o.b[i] = out[2]
            o.a[i] = min(max(out[3], 0), 1)
        }
        return o
    }

    static func sepia(_ img: Image, _ intensity: Double) -> Image {
        let s = [[0.393, 0.769, 0.189], [0.349, 0.686, 0.168], [0.272, 0.534, 0.131]]
        let toned = matrix(img, s)
        var o = img
        for i in 0..<img.r.count {
            o.r[i] = img.r[i] + intensity * (toned.r[i] - img.r[i])
            o.g[i] = img.g[i] + intensity * (toned.g[i] - img.g[i])
            o.b[i] = img.b[i] + intensity * (toned.b[i] - img.b[i])
        }
        return o
    }

    static func monochrome(_ img: Image, _ f: Monochrome) -> Image {
        let tint = [f.color.red, f.color.green, f.color.blue]
        let lc = luma(tint[0], tint[1], tint[2])
        var o = img
        for i in 0..<img.r.count {
            let l = luma(img.r[i], img.g[i], img.b[i])
            let m = tint.map { l * $0 / lc }
            o.r[i] = img.r[i] + f.intensity * (m[0] - img.r[i])
            o.g[i] = img.g[i] + f.intensity * (m[1] - img.g[i])
            o.b[i] = img.b[i] + f.intensity * (m[2] - img.b[i])
        }
        return o
    }

    // MARK: - LUT

    /// Clamped to [lo, hi], scaled to [0, n-1]: lower index (at most n-2) and fraction.
    static func position(_ v: Double, _ lo: Double, _ hi: Double, _ n: Int) -> (Int, Double) {
        let x = (min(max(v, lo), hi) - lo) / (hi - lo) * Double(n - 1)
        let p = min(Int(x.rounded(.down)), n - 2)
        return (p, x - Double(p))
    }

    /// The six tetrahedral cases, literally.
    static func tetrahedral(_ t: CubeLUT.Table3D, _ r: Double, _ g: Double, _ b: Double) -> [Double] {
        let n = t.size
        let (pr, dr) = position(r, t.domainMin.x, t.domainMax.x, n)
        let (pg, dg) = position(g, t.domainMin.y, t.domainMax.y, n)
        let (pb, db) = position(b, t.domainMin.z, t.domainMax.z, n)
        func c(_ x: Int, _ y: Int, _ z: Int) -> [Double] {
            let e = t.entry(pr + x, pg + y, pb + z)
            return [Double(e.x), Double(e.y), Double(e.z)]
        }
        func sum(_ terms: [(Double, [Double])]) -> [Double] {
            (0..<3).map { k in terms.map { $0.0 * $0.1[k] }.reduce(0, +) }
        }
        if dr > dg && dg >= db {
            return sum([(1 - dr, c(0, 0, 0)), (dr - dg, c(1, 0, 0)), (dg - db, c(1, 1, 0)), (db, c(1, 1, 1))])
        } else if dr > db && db > dg {
            return sum([(1 - dr, c(0, 0, 0)), (dr - db, c(1, 0, 0)), (db - dg, c(1, 0, 1)), (dg, c(1, 1, 1))])
        } else if db >= dr && dr > dg {
            return sum([(1 - db, c(0, 0, 0)), (db - dr, c(0, 0, 1)), (dr - dg, c(1, 0, 1)), (dg, c(1, 1, 1))])
        } else if dg >= dr && db > dg {
            return sum([(1 - db, c(0, 0, 0)), (db - dg, c(0, 0, 1)), (dg - dr, c(0, 1, 1)), (dr, c(1, 1, 1))])
        } else if dg >= dr && dg >= db && db > dr {
            return sum([(1 - dg, c(0, 0, 0)), (dg - db, c(0, 1, 0)), (db - dr, c(0, 1, 1)), (dr, c(1, 1, 1))])
        } else {
            return sum([(1 - dg, c(0, 0, 0)), (dg - dr, c(0, 1, 0)), (dr - db, c(1, 1, 0)), (db, c(1, 1, 1))])
        }
    }

    /// Linear interpolation in channel `k`'s column of a 1D table.
    static func linear1D(_ t: CubeLUT.Table1D, _ v: Double, channel k: Int) -> Double {
        let (p, d) = position(v, t.domainMin[k], t.domainMax[k], t.size)
        let a = Double(t.values[k * t.size + p]), b = Double(t.values[k * t.size + p + 1])
        return a + d * (b - a)
    }

    /// The table's colour for (r, g, b): the 1D table first, then the 3D table.
    static func lutColor(_ lut: CubeLUT, _ r: Double, _ g: Double, _ b: Double) -> [Double] {
        var v = [r, g, b]
        if let s = lut.shaper { v = (0..<3).map { linear1D(s, v[$0], channel: $0) } }
        if let c = lut.cube { v = tetrahedral(c, v[0], v[1], v[2]) }
        return v
    }

    static func lut(_ img: Image, _ f: LUT) -> Image {
        guard let table = f.file?.lut else { return img }
        var o = img
        for i in 0..<img.r.count {
            let v = lutColor(table, img.r[i], img.g[i], img.b[i])
            o.r[i] = img.r[i] + f.intensity * (v[0] - img.r[i])
            o.g[i] = img.g[i] + f.intensity * (v[1] - img.g[i])
            o.b[i] = img.b[i] + f.intensity * (v[2] - img.b[i])
        }
        return o
    }

    // MARK: - Neighbourhood and position

    /// On premultiplied P: P + amount (P - B) where |P - B| >= threshold; alpha kept.
    static func unsharpMask(_ img: Image, _ f: UnsharpMask) -> Image {
        unpremultiplied(img, unsharpMaskPlanes(img, f))
    }

    /// The premultiplied result, before colour is divided by alpha.
    static func unsharpMaskPlanes(_ img: Image, _ f: UnsharpMask) -> [[Double]] {
        let p = premultipliedPlanes(img)
        let b = blurredPlanes(p, width: img.width, height: img.height, sigma: f.sigma)
        var out = p
        for k in 0..<3 {
            for i in 0..<img.r.count {
                let d = p[k][i] - b[k][i]
                if abs(d) >= f.threshold { out[k][i] = p[k][i] + f.amount * d }
            }
        }
        return out
    }

    /// The vignette factor 1 - intensity f for pixel (i, j) of a W x H image.
    static func vignetteFactor(_ f: Vignette, i: Int, j: Int, width: Int, height: Int) -> Double {
        let w = Double(width), h = Double(height)
        let dx = Double(i) + 0.5 - f.center.x * w, dy = Double(j) + 0.5 - f.center.y * h
        let d = (dx * dx + dy * dy).squareRoot() / ((w * w + h * h).squareRoot() / 2)
        let e0 = f.radius * (1 - f.softness), e1 = f.radius
        let t = e1 == e0 ? (d >= e1 ? 1.0 : 0.0) : min(max((d - e0) / (e1 - e0), 0), 1)
        return 1 - f.intensity * t * t * (3 - 2 * t)
    }

    static func vignette(_ img: Image, _ f: Vignette) -> Image {
        var o = img
        for j in 0..<img.height {
            for i in 0..<img.width {
                let k = j * img.width + i
                let v = vignetteFactor(f, i: i, j: j, width: img.width, height: img.height)
                o.r[k] *= v; o.g[k] *= v; o.b[k] *= v
            }
        }
        return o
    }
}
