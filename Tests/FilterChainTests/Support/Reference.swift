import Foundation
@testable import FilterChain

/// A plain scalar implementation, in Double, of the documented semantics: decoding to
/// [0,1], the working space, each filter's formula, and the output rules. Written from the
/// issue's text, independently of the pipeline's code.
enum Reference {
    /// RGBA in [0,1] (or beyond, between filters), row-major.
    struct Image {
        var width: Int
        var height: Int
        var r: [Double], g: [Double], b: [Double], a: [Double]
    }

    static func srgbDecode(_ v: Double) -> Double { v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }
    static func srgbEncode(_ v: Double) -> Double { v <= 0.0031308 ? 12.92 * v : 1.055 * pow(v, 1 / 2.4) - 0.055 }

    /// Linear RGB to XYZ for primaries and a white given as chromaticities (Y of white = 1):
    /// the columns are the primaries' XYZ scaled so that they sum to the white's.
    static func rgbToXYZ(_ primaries: [(Double, Double)], white: (Double, Double)) -> [[Double]] {
        let p = primaries.map { [$0.0 / $0.1, 1, (1 - $0.0 - $0.1) / $0.1] }
        let w = [white.0 / white.1, 1, (1 - white.0 - white.1) / white.1]
        let m = [[p[0][0], p[1][0], p[2][0]], [p[0][1], p[1][1], p[2][1]], [p[0][2], p[1][2], p[2][2]]]
        let s = solve(m, w)
        return m.map { row in (0..<3).map { row[$0] * s[$0] } }
    }

    /// x with m x = v (Cramer's rule).
    static func solve(_ m: [[Double]], _ v: [Double]) -> [Double] {
        func det(_ a: [[Double]]) -> Double {
            a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) - a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0])
                + a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0])
        }
        let d = det(m)
        return (0..<3).map { c in det(m.enumerated().map { i, row in row.enumerated().map { j, x in j == c ? v[i] : x } }) / d }
    }

    static func multiply(_ m: [[Double]], _ v: [Double]) -> [Double] { m.map { zip($0, v).map(*).reduce(0, +) } }

    static let srgbPrimaries = [(0.64, 0.33), (0.30, 0.60), (0.15, 0.06)]
    static let d65 = (0.3127, 0.3290)

    /// A working space's primaries and whether its values are linear.
    static func primaries(_ space: WorkingSpace) -> (primaries: [(Double, Double)], linear: Bool) {
        switch space {
        case .srgb: (srgbPrimaries, false)
        case .linear: (srgbPrimaries, true)
        case .displayP3: ([(0.680, 0.320), (0.265, 0.690), (0.150, 0.060)], false)
        case .linearDisplayP3: ([(0.680, 0.320), (0.265, 0.690), (0.150, 0.060)], true)
        case .linearRec2020: ([(0.708, 0.292), (0.170, 0.797), (0.131, 0.046)], true)
        }
    }

    /// sRGB values (an untagged image's) as the working space's: decoded with the sRGB curve,
    /// through XYZ (both whites D65) into the space's primaries, encoded again unless linear.
    static func toWorking(_ c: [Double], _ space: WorkingSpace) -> [Double] {
        switch space {
        case .srgb: return c
        case .linear: return c.map(srgbDecode)
        default:
            let (prim, linear) = primaries(space)
            let xyz = multiply(rgbToXYZ(srgbPrimaries, white: d65), c.map(srgbDecode))
            let target = rgbToXYZ(prim, white: d65)
            let v = (0..<3).map { i in solve(target, xyz)[i] }
            // The curve extends as lcms2 extends it: linearly below 0, the power above 1.
            return linear ? v : v.map(srgbEncode)
        }
    }

    /// The working space's values as sRGB values, clamped to [0, 1] only after the conversion.
    static func fromWorking(_ c: [Double], _ space: WorkingSpace) -> [Double] {
        switch space {
        case .srgb: return c
        case .linear: return c.map { srgbEncode(min(max($0, 0), 1)) }
        default:
            let (prim, linear) = primaries(space)
            let lin = linear ? c : c.map(srgbDecode)
            let xyz = multiply(rgbToXYZ(prim, white: d65), lin)
            let v = solve(rgbToXYZ(srgbPrimaries, white: d65), xyz)
            return v.map { srgbEncode(min(max($0, 0), 1)) }
        }
    }

    static func decode(_ p: Pixels, linear: Bool) -> Image {
        decode(p, space: linear ? .linear : .srgb)
    }

    static func decode(_ p: Pixels, space: WorkingSpace) -> Image {
        let n = p.format.channels.count
        let m = Double(p.format.depth.maxValue)
        let count = p.width * p.height
        var img = Image(width: p.width, height: p.height, r: [], g: [], b: [], a: [])
        for i in 0..<count {
            let s = Array(p.samples[(i * n)..<(i * n + n)]).map { Double($0) / m }
            var (r, g, b, a) = (0.0, 0.0, 0.0, 1.0)
            switch p.format.channels {
            case .grey: (r, g, b) = (s[0], s[0], s[0])
            case .greyAlpha: (r, g, b, a) = (s[0], s[0], s[0], s[1])
            case .rgb: (r, g, b) = (s[0], s[1], s[2])
            case .rgba: (r, g, b, a) = (s[0], s[1], s[2], s[3])
            }
            let w = toWorking([r, g, b], space)
            (r, g, b) = (w[0], w[1], w[2])
            img.r.append(r); img.g.append(g); img.b.append(b); img.a.append(a)
        }
        return img
    }

    /// Output samples: clamped, encoded when linear, rounded; layout as given.
    static func encode(_ img: Image, format: PixelFormat, linear: Bool) -> [Int] {
        scaled(img, format: format, linear: linear).map { Int($0.rounded()) }
    }

    /// Output samples before rounding (v * 255 or v * 65535).
    static func scaled(_ img: Image, format: PixelFormat, linear: Bool) -> [Double] {
        let m = Double(format.depth.maxValue)
        var out: [Double] = []
        func q(_ v: Double, colour: Bool) -> Double {
            var c = min(max(v, 0), 1)
            if colour && linear { c = srgbEncode(c) }
            return c * m
        }
        for i in 0..<(img.width * img.height) {
            switch format.channels {
            case .grey: out.append(q(img.r[i], colour: true))
            case .greyAlpha: out += [q(img.r[i], colour: true), q(img.a[i], colour: false)]
            case .rgb: out += [q(img.r[i], colour: true), q(img.g[i], colour: true), q(img.b[i], colour: true)]
            case .rgba: out += [q(img.r[i], colour: true), q(img.g[i], colour: true), q(img.b[i], colour: true), q(img.a[i], colour: false)]
            }
        }
        return out
    }

    static func apply(_ chain: Chain, to p: Pixels, through position: Int? = nil) -> Image {
        var img = decode(p, space: chain.workingSpace)
        for step in chain.steps.prefix(position ?? chain.steps.count) where step.enabled {
            img = Reference.step(img, step.filter)
        }
        return img
    }

    /// One filter's formula.
    static func step(_ img: Image, _ filter: any Filter) -> Image {
        switch filter {
        case let f as ColorControls: return colorControls(img, f)
        case let f as ToneCurve: return toneCurve(img, f)
        case let f as GaussianBlur: return blur(img, sigma: f.sigma)
        case let f as Resize: return resize(img, f)
        case let f as Crop: return crop(img, f)
        case let f as Rotate: return rotate(img, degrees: f.angle)
        case let f as Flip: return flip(img, horizontal: f.direction == .horizontal)
        case let f as Exposure: return perChannel(img) { $0 * pow(2, f.ev) }
        case let f as Gamma: return perChannel(img) { ($0 < 0 ? -1 : 1) * pow(abs($0), f.power) }
        case let f as Levels: return perChannel(img) { levels($0, f) }
        case let f as HueAdjust: return matrix(img, hueMatrix(f.angle))
        case let f as Vibrance: return vibrance(img, f.amount)
        case let f as ColorMatrix: return colorMatrix(img, f.matrix)
        case let f as Sepia: return sepia(img, f.intensity)
        case let f as Monochrome: return monochrome(img, f)
        case is Invert: return perChannel(img) { 1 - $0 }
        case let f as LUT: return lut(img, f)
        case let f as UnsharpMask: return unsharpMask(img, f)
        case let f as Vignette: return vignette(img, f)
        default: fatalError("no reference for \(filter.type)")
        }
    }

    static func colorControls(_ img: Image, _ f: ColorControls) -> Image {
        var o = img
        for i in 0..<img.r.count {
            let l = 0.2126 * img.r[i] + 0.7152 * img.g[i] + 0.0722 * img.b[i]
            func ch(_ c: Double) -> Double { ((l + f.saturation * (c - l)) - 0.5) * f.contrast + 0.5 + f.brightness }
            o.r[i] = ch(img.r[i]); o.g[i] = ch(img.g[i]); o.b[i] = ch(img.b[i])
        }
        return o
    }

    /// PCHIP as the issue states it (scipy's PchipInterpolator), or straight lines.
    static func curve(_ pts: [CurvePoint], monotone: Bool) -> (Double) -> Double {
        let x = pts.map(\.x), y = pts.map(\.y)
        let n = x.count
        let h = (0..<(n - 1)).map { x[$0 + 1] - x[$0] }
        let d = (0..<(n - 1)).map { (y[$0 + 1] - y[$0]) / h[$0] }
        var m = [Double](repeating: 0, count: n)
        if n == 2 {
            m = [d[0], d[0]]
        } else {
            for k in 1..<(n - 1) {
                if d[k - 1] * d[k] <= 0 { m[k] = 0 } else {
                    let w1 = 2 * h[k] + h[k - 1], w2 = h[k] + 2 * h[k - 1]
                    m[k] = (w1 + w2) / (w1 / d[k - 1] + w2 / d[k])
                }
            }
            func sign(_ v: Double) -> Int { v > 0 ? 1 : (v < 0 ? -1 : 0) }
            func end(_ h0: Double, _ h1: Double, _ d0: Double, _ d1: Double) -> Double {
                let s = ((2 * h0 + h1) * d0 - h0 * d1) / (h0 + h1)
                if sign(s) != sign(d0) { return 0 }
                if sign(d0) != sign(d1), abs(s) > abs(3 * d0) { return 3 * d0 }
                return s
            }
            m[0] = end(h[0], h[1], d[0], d[1])
            m[n - 1] = end(h[n - 2], h[n - 3], d[n - 2], d[n - 3])
        }
        return { v in
            let t0 = min(max(v, x[0]), x[n - 1])
            var k = 0
            while k < n - 2 && t0 > x[k + 1] { k += 1 }
            if !monotone { return y[k] + (t0 - x[k]) * d[k] }
            let t = (t0 - x[k]) / h[k]
            let h00 = (1 + 2 * t) * (1 - t) * (1 - t), h10 = t * (1 - t) * (1 - t)
            let h01 = t * t * (3 - 2 * t), h11 = t * t * (t - 1)
            return h00 * y[k] + h10 * h[k] * m[k] + h01 * y[k + 1] + h11 * h[k] * m[k + 1]
        }
    }

    static func toneCurve(_ img: Image, _ f: ToneCurve) -> Image {
        let mono = f.interpolation == .monotone
        let master = curve(f.points, monotone: mono)
        let rc = f.red.map { curve($0, monotone: mono) }
        let gc = f.green.map { curve($0, monotone: mono) }
        let bc = f.blue.map { curve($0, monotone: mono) }
        var o = img
        for i in 0..<img.r.count {
            o.r[i] = master(img.r[i]); o.g[i] = master(img.g[i]); o.b[i] = master(img.b[i])
            if let rc { o.r[i] = rc(o.r[i]) }
            if let gc { o.g[i] = gc(o.g[i]) }
            if let bc { o.b[i] = bc(o.b[i]) }
        }
        return o
    }

    /// The definition: sampled Gaussian, |i| <= ceil(4 sigma), normalised, edges clamped,
    /// horizontal then vertical, on premultiplied RGBA; then unpremultiplied.
    static func blur(_ img: Image, sigma: Double) -> Image {
        if sigma == 0 { return img }
        return unpremultiplied(img, blurredPlanes(premultipliedPlanes(img), width: img.width, height: img.height, sigma: sigma))
    }

    /// Premultiplied r, g, b and alpha.
    static func premultipliedPlanes(_ img: Image) -> [[Double]] {
        [img.r, img.g, img.b].map { p in zip(p, img.a).map { $0 * $1 } } + [img.a]
    }

    /// Colour divided by alpha (0 where alpha is 0).
    static func unpremultiplied(_ img: Image, _ planes: [[Double]]) -> Image {
        var o = img
        for i in 0..<img.r.count {
            let a = planes[3][i]
            o.a[i] = a
            o.r[i] = a == 0 ? 0 : planes[0][i] / a
            o.g[i] = a == 0 ? 0 : planes[1][i] / a
            o.b[i] = a == 0 ? 0 : planes[2][i] / a
        }
        return o
    }

    /// Each plane blurred by the definition.
    static func blurredPlanes(_ input: [[Double]], width W: Int, height H: Int, sigma: Double) -> [[Double]] {
        let k = Int((4 * sigma).rounded(.up))
        let raw = (-k...k).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let total = raw.reduce(0, +)
        let w = raw.map { $0 / total }
        var planes = input
        for pi in 0..<4 {
            var p = planes[pi]
            var tmp = p
            for y in 0..<H {
                for x in 0..<W {
                    var s = 0.0
                    for i in -k...k { s += w[i + k] * p[y * W + min(max(x + i, 0), W - 1)] }
                    tmp[y * W + x] = s
                }
            }
            for y in 0..<H {
                for x in 0..<W {
                    var s = 0.0
                    for i in -k...k { s += w[i + k] * tmp[min(max(y + i, 0), H - 1) * W + x] }
                    p[y * W + x] = s
                }
            }
            planes[pi] = p
        }
        return planes
    }
}

extension Pixels {
    var raster: RasterImage { try! RasterImage(width: width, height: height, format: format, samples: samples) }
    init(_ image: RasterImage) {
        self.init(width: image.width, height: image.height, format: image.format, samples: image.samples)
    }
}

/// Checks output samples against the reference's unrounded values: a sample must equal the
/// rounded reference unless the reference lies within `tieWindow` of a rounding boundary
/// (x.5), where float32 and Double may round apart; there it must be within `maxDiff`.
func mismatches(_ out: [Int], _ reference: [Double], tieWindow: Double, maxDiff: Int = 1) -> [String] {
    precondition(out.count == reference.count, "sizes differ: \(out.count) vs \(reference.count)")
    var problems: [String] = []
    for (i, (o, r)) in zip(out, reference).enumerated() {
        let nearTie = abs(r - r.rounded(.down) - 0.5) < tieWindow
        let d = abs(Double(o) - r.rounded())
        if d > (nearTie ? Double(maxDiff) : 0) {
            problems.append("sample \(i): \(o), reference \(r)")
            if problems.count == 5 { break }
        }
    }
    return problems
}

/// The largest and the mean absolute difference between two sample lists.
func differences(_ a: [Int], _ b: [Int]) -> (max: Int, mean: Double) {
    precondition(a.count == b.count, "sizes differ: \(a.count) vs \(b.count)")
    var mx = 0, sum = 0
    for (x, y) in zip(a, b) { let d = abs(x - y); mx = max(mx, d); sum += d }
    return (mx, a.isEmpty ? 0 : Double(sum) / Double(a.count))
}
