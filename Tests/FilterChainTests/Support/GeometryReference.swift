import Foundation
@testable import FilterChain

/// The geometry steps as the issue defines them, in Double and plain loops, written from
/// the text independently of the pipeline's code.
extension Reference {
    /// round(p / q) = floor(p / q + 1/2) for p >= 0, q > 0: the quotient, plus one when the
    /// remainder is at least half of q.
    static func roundedQuotient(_ p: Int, _ q: Int) -> Int {
        let (n, r) = p.quotientAndRemainder(dividingBy: q)
        return n + (2 * r >= q ? 1 : 0)
    }

    /// The resized size, and the part of it kept (cover), for an image of w x h.
    static func resizeGeometry(_ f: Resize, width w: Int, height h: Int)
        -> (resized: (Int, Int), keep: (x: Int, y: Int, w: Int, h: Int))
    {
        func all(_ rw: Int, _ rh: Int) -> ((Int, Int), (x: Int, y: Int, w: Int, h: Int)) {
            ((max(1, rw), max(1, rh)), (0, 0, max(1, rw), max(1, rh)))
        }
        if let s = f.scale {
            if !f.enlarge && s >= 1 { return all(w, h) }
            return all(Int(floor(Double(w) * s + 0.5)), Int(floor(Double(h) * s + 0.5)))
        }
        if let W = f.width, f.height == nil {
            // s = W / w
            if !f.enlarge && W >= w { return all(w, h) }
            return all(W, roundedQuotient(h * W, w))
        }
        if let H = f.height, f.width == nil {
            if !f.enlarge && H >= h { return all(w, h) }
            return all(roundedQuotient(w * H, h), H)
        }
        // The box at `position` p in the room left over: floor(room p).
        func at(_ room: Int, _ p: Double) -> Int { Int(floor(Double(room) * p)) }
        let W = f.width!, H = f.height!
        // W / w compared with H / h without dividing.
        let widthRatioSmaller = W * h < H * w
        let equal = W * h == H * w
        switch f.fit ?? .contain {
        case .fill:
            return f.enlarge ? all(W, H) : all(min(W, w), min(H, h))
        case .contain:
            let s1 = widthRatioSmaller || equal ? (W >= w) : (H >= h)   // min ratio >= 1
            if !f.enlarge && s1 { return all(w, h) }
            return widthRatioSmaller || equal ? all(W, roundedQuotient(h * W, w)) : all(roundedQuotient(w * H, h), H)
        case .cover:
            let s1 = widthRatioSmaller || equal ? (H >= h) : (W >= w)   // max ratio >= 1
            if !f.enlarge && s1 {
                let cw = min(W, w), ch = min(H, h)
                return ((w, h), (at(w - cw, f.position.x), at(h - ch, f.position.y), cw, ch))
            }
            let (rw, rh) = widthRatioSmaller || equal ? (roundedQuotient(w * H, h), H) : (W, roundedQuotient(h * W, w))
            return ((rw, rh), (at(rw - W, f.position.x), at(rh - H, f.position.y), W, H))
        }
    }

    static func lanczos3(_ x: Double) -> Double {
        func sinc(_ x: Double) -> Double { x == 0 ? 1 : sin(Double.pi * x) / (Double.pi * x) }
        return -3 <= x && x < 3 ? sinc(x) * sinc(x / 3) : 0
    }

    /// Weights of each output sample along an axis: (first input, weights).
    static func lanczosWeights(from nIn: Int, to nOut: Int) -> [(Int, [Double])] {
        let scale = Double(nIn) / Double(nOut)
        let f = max(scale, 1)
        let support = 3 * f
        return (0..<nOut).map { i in
            let c = (Double(i) + 0.5) * scale
            let lo = max(Int((c - support + 0.5).rounded(.towardZero)), 0)
            let hi = min(Int((c + support + 0.5).rounded(.towardZero)), nIn)
            let w = (lo..<hi).map { lanczos3((Double($0) - c + 0.5) / f) }
            let total = w.reduce(0, +)
            return (lo, w.map { $0 / total })
        }
    }

    /// Lanczos3 to rw x rh on premultiplied colour, then the kept part, alpha clamped
    /// before unpremultiplying.
    static func resize(_ img: Image, _ f: Resize) -> Image {
        let (resized, keep) = resizeGeometry(f, width: img.width, height: img.height)
        var out = img
        if resized != (img.width, img.height) {
            let W = img.width, H = img.height
            let (rw, rh) = resized
            let hw = lanczosWeights(from: W, to: rw), vw = lanczosWeights(from: H, to: rh)
            var planes = [img.r, img.g, img.b].map { p in zip(p, img.a).map { $0 * $1 } } + [img.a]
            for pi in 0..<4 {
                let p = planes[pi]
                var tmp = [Double](repeating: 0, count: rw * H)
                for y in 0..<H {
                    for x in 0..<rw {
                        let (lo, w) = hw[x]
                        tmp[y * rw + x] = w.enumerated().reduce(0) { $0 + $1.element * p[y * W + lo + $1.offset] }
                    }
                }
                var q = [Double](repeating: 0, count: rw * rh)
                for y in 0..<rh {
                    let (lo, w) = vw[y]
                    for x in 0..<rw {
                        q[y * rw + x] = w.enumerated().reduce(0) { $0 + $1.element * tmp[(lo + $1.offset) * rw + x] }
                    }
                }
                planes[pi] = q
            }
            out = Image(width: rw, height: rh, r: [], g: [], b: [], a: [])
            for i in 0..<(rw * rh) {
                let a = min(max(planes[3][i], 0), 1)
                out.a.append(a)
                out.r.append(a == 0 ? 0 : planes[0][i] / a)
                out.g.append(a == 0 ? 0 : planes[1][i] / a)
                out.b.append(a == 0 ? 0 : planes[2][i] / a)
            }
        }
        return window(out, x: keep.x, y: keep.y, w: keep.w, h: keep.h)
    }

    static func window(_ img: Image, x: Int, y: Int, w: Int, h: Int) -> Image {
        var o = Image(width: w, height: h, r: [], g: [], b: [], a: [])
        for j in y..<(y + h) {
            for i in x..<(x + w) {
                let k = j * img.width + i
                o.r.append(img.r[k]); o.g.append(img.g[k]); o.b.append(img.b[k]); o.a.append(img.a[k])
            }
        }
        return o
    }

    static func crop(_ img: Image, _ f: Crop) -> Image {
        if f.unit == .pixels {
            return window(img, x: Int(f.x), y: Int(f.y), w: Int(f.width!), h: Int(f.height!))
        }
        func r(_ v: Double, _ side: Int) -> Int { Int(floor(v * Double(side) + 0.5)) }
        return window(img, x: r(f.x, img.width), y: r(f.y, img.height),
                      w: r(f.width!, img.width), h: r(f.height!, img.height))
    }

    /// Output pixel (i, j) from input pixel `source(i, j)`, on an output of ow x oh.
    static func remap(_ img: Image, ow: Int, oh: Int, _ source: (Int, Int) -> (Int, Int)) -> Image {
        var o = Image(width: ow, height: oh, r: [], g: [], b: [], a: [])
        for j in 0..<oh {
            for i in 0..<ow {
                let (x, y) = source(i, j)
                let k = y * img.width + x
                o.r.append(img.r[k]); o.g.append(img.g[k]); o.b.append(img.b[k]); o.a.append(img.a[k])
            }
        }
        return o
    }

    static func rotate(_ img: Image, degrees: Int) -> Image {
        let w = img.width, h = img.height
        switch (degrees + 360) % 360 {
        case 90: return remap(img, ow: h, oh: w) { i, j in (j, h - 1 - i) }
        case 180: return remap(img, ow: w, oh: h) { i, j in (w - 1 - i, h - 1 - j) }
        case 270: return remap(img, ow: h, oh: w) { i, j in (w - 1 - j, i) }
        default: return img
        }
    }

    static func flip(_ img: Image, horizontal: Bool) -> Image {
        let w = img.width, h = img.height
        return remap(img, ow: w, oh: h) { i, j in horizontal ? (w - 1 - i, j) : (i, h - 1 - j) }
    }
}
