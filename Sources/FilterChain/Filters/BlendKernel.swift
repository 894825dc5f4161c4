/// The arithmetic of `Blend`: a layer over the step's input with one of the 16 W3C blend
/// modes, then source-over (the formulas are in `Blend`'s documentation).
///
/// Eight pixels at a time. With Cb, ab the backdrop and Cs, as the layer (alpha times
/// opacity), all clamped to [0, 1] (NaN as 0), the output colour co / ao is written as the
/// weighted mean of the three colours it is made of:
///
///     out = ws Cs + wb B(Cb, Cs) + wd Cb,   ws = as (1 - ab) / ao,  wb = as ab / ao,
///                                           wd = (1 - as) ab / ao,  ao = ab + as (1 - ab)
///
/// so one division (1 / ao) serves a pixel's three channels. The weights are exact where it
/// matters: as = 0 gives the backdrop exactly (wd = 1), ab = 0 the layer exactly (ws = 1),
/// ab = 1 gives ao = 1 exactly, and where ao = 0 the colour is 0. Every lane is computed
/// on its own, and the shortcuts (a run where the layer does not show; an opaque backdrop)
/// give the same bits as the general path, so results do not depend on how rows are cut.
struct BlendKernel: LayerKernel {
    let mode: BlendMode
    let opacity: Float

    /// Where ab = 1, ao = ab + as (1 - ab) = 1 exactly.
    var changesOpaqueAlpha: Bool { false }
    var coverage: Float { opacity }

    func blend(backdrop: PlanarPixels, layer: PlanarPixels, count: Int) {
        switch mode {
        case .normal: run(NormalMode.self, backdrop, layer, count)
        case .multiply: run(MultiplyMode.self, backdrop, layer, count)
        case .screen: run(ScreenMode.self, backdrop, layer, count)
        case .overlay: run(OverlayMode.self, backdrop, layer, count)
        case .darken: run(DarkenMode.self, backdrop, layer, count)
        case .lighten: run(LightenMode.self, backdrop, layer, count)
        case .colorDodge: run(ColorDodgeMode.self, backdrop, layer, count)
        case .colorBurn: run(ColorBurnMode.self, backdrop, layer, count)
        case .hardLight: run(HardLightMode.self, backdrop, layer, count)
        case .softLight: run(SoftLightMode.self, backdrop, layer, count)
        case .difference: run(DifferenceMode.self, backdrop, layer, count)
        case .exclusion: run(ExclusionMode.self, backdrop, layer, count)
        case .hue: run(HueMode.self, backdrop, layer, count)
        case .saturation: run(SaturationMode.self, backdrop, layer, count)
        case .color: run(ColorMode.self, backdrop, layer, count)
        case .luminosity: run(LuminosityMode.self, backdrop, layer, count)
        }
    }

    func pass(backdrop b: PlanarPixels, count: Int) {
        var i = 0
        while i < count {
            Self.pass(ColorLanes(b, at: i).unit, lanesUnit(ColorLanes.load(b.alpha + i)), b, at: i)
            i += 8
        }
    }

    /// Where the layer does not show: the backdrop, clamped (colour 0 where ab = 0), which
    /// is what the general path gives for as = 0.
    @inline(always)
    private static func pass(_ cb: ColorLanes, _ ab: SIMD8<Float>, _ b: PlanarPixels, at i: Int) {
        let clear = ab .== SIMD8<Float>()
        ColorLanes(r: cb.r.replacing(with: 0, where: clear), g: cb.g.replacing(with: 0, where: clear),
                   b: cb.b.replacing(with: 0, where: clear)).store(b, at: i)
        ColorLanes.store(ab, b.alpha + i)
    }

    @inline(always)
    private func run<F: BlendFunction>(_: F.Type, _ b: PlanarPixels, _ l: PlanarPixels, _ count: Int) {
        let opacity = SIMD8<Float>(repeating: opacity)
        let zero = SIMD8<Float>(), one = SIMD8<Float>(repeating: 1)
        var i = 0
        while i < count {
            let ab = lanesUnit(ColorLanes.load(b.alpha + i))
            let cb = ColorLanes(b, at: i).unit
            let sa = lanesUnit(ColorLanes.load(l.alpha + i)) * opacity
            if all(sa .== zero) {
                Self.pass(cb, ab, b, at: i)
                i += 8
                continue
            }
            let cs = ColorLanes(l, at: i).unit
            let mixed = F.blend(cb, cs)
            let ao, ws, wb, wd: SIMD8<Float>
            if all(ab .== one) {
                // What the general path gives for ab = 1 (r = 1), without the division.
                (ao, ws, wb, wd) = (one, zero, sa, one - sa)
            } else {
                ao = ab + sa * (one - ab)
                let r = (one / ao).replacing(with: 0, where: ao .== zero)
                let sr = sa * r
                ws = (sr * (one - ab)).replacing(with: 1, where: (ab .== zero) .& (sa .> zero))
                wb = sr * ab
                wd = ((one - sa) * ab * r).replacing(with: 1, where: (sa .== zero) .& (ab .> zero))
            }
            ColorLanes(r: ws * cs.r + wb * mixed.r + wd * cb.r,
                       g: ws * cs.g + wb * mixed.g + wd * cb.g,
                       b: ws * cs.b + wb * mixed.b + wd * cb.b).store(b, at: i)
            ColorLanes.store(ao, b.alpha + i)
            i += 8
        }
    }
}

/// The colour of eight pixels, one vector per channel.
struct ColorLanes {
    var r: SIMD8<Float>
    var g: SIMD8<Float>
    var b: SIMD8<Float>

    @inline(always)
    init(r: SIMD8<Float>, g: SIMD8<Float>, b: SIMD8<Float>) {
        self.r = r
        self.g = g
        self.b = b
    }

    /// Pixels i ..< i + 8 of `p` (32-byte aligned).
    @inline(always)
    init(_ p: PlanarPixels, at i: Int) {
        self.init(r: Self.load(p.red + i), g: Self.load(p.green + i), b: Self.load(p.blue + i))
    }

    @inline(always)
    func store(_ p: PlanarPixels, at i: Int) {
        Self.store(r, p.red + i)
        Self.store(g, p.green + i)
        Self.store(b, p.blue + i)
    }

    @inline(always)
    static func load(_ p: UnsafeMutablePointer<Float>) -> SIMD8<Float> {
        UnsafeRawPointer(p).load(as: SIMD8<Float>.self)
    }

    @inline(always)
    static func store(_ v: SIMD8<Float>, _ p: UnsafeMutablePointer<Float>) {
        UnsafeMutableRawPointer(p).storeBytes(of: v, as: SIMD8<Float>.self)
    }

    /// Each channel clamped to [0, 1], NaN as 0.
    @inline(always)
    var unit: ColorLanes { ColorLanes(r: lanesUnit(r), g: lanesUnit(g), b: lanesUnit(b)) }

    @inline(always)
    var largest: SIMD8<Float> { lanesMax(lanesMax(r, g), b) }

    @inline(always)
    var smallest: SIMD8<Float> { lanesMin(lanesMin(r, g), b) }

    /// W3C's Lum: 0.3 R + 0.59 G + 0.11 B.
    @inline(always)
    var luminosity: SIMD8<Float> { 0.3 * r + 0.59 * g + 0.11 * b }

    /// W3C's Sat: max - min.
    @inline(always)
    var saturation: SIMD8<Float> { largest - smallest }

    @inline(always)
    func map(_ f: (SIMD8<Float>) -> SIMD8<Float>) -> ColorLanes { ColorLanes(r: f(r), g: f(g), b: f(b)) }

    /// W3C's SetSat(C, s): the largest channel becomes s, the smallest 0, the middle one
    /// (Cmid - Cmin) s / (Cmax - Cmin); all 0 when max = min. Decided for each channel by
    /// comparing it with the max and the min, so ties give what any order of the sort gives:
    /// two channels at the max both become s, two at the min both 0.
    @inline(always)
    func withSaturation(_ s: SIMD8<Float>) -> ColorLanes {
        let x = largest, n = smallest
        let grey = .!(x .> n)
        let k = s / (x - n)
        return map { c in
            ((c - n) * k).replacing(with: 0, where: c .== n).replacing(with: s, where: c .== x)
                .replacing(with: 0, where: grey)
        }
    }

    /// W3C's SetLum(C, l): C + (l - Lum(C)), then ClipColor.
    ///
    /// ClipColor brings the channels into [0, 1] towards the grey of the same Lum, L: by
    /// L + (C - L) L / (L - n) when the min n < 0, by L + (C - L) (1 - L) / (x - L) when the
    /// max x > 1. Here L is l itself, which Lum(C + d) equals exactly: computing it again
    /// would add its rounding, which the scaling amplifies near L = 0 or 1. The two cases
    /// cannot both hold for a colour from SetSat or of clamped channels (max - min is at most
    /// 1 and rounding is monotonic), so one division serves both. A denominator that rounding
    /// made 0 or negative (a grey) leaves the colour for the final clamp.
    @inline(always)
    func withLuminosity(_ l: SIMD8<Float>) -> ColorLanes {
        let d = l - luminosity
        let c = map { $0 + d }
        let n = c.smallest, x = c.largest
        let low = n .< 0, high = x .> 1
        guard any(low .| high) else { return c }
        let numerator = (1 - l).replacing(with: l, where: low)
        let denominator = (x - l).replacing(with: l - n, where: low)
        let apply = (low .| high) .& (denominator .> 0)
        let k = numerator / denominator
        return c.map { v in v.replacing(with: l + (v - l) * k, where: apply) }
    }
}

/// B(Cb, Cs) of a blend mode for eight pixels of clamped colour.
private protocol BlendFunction {
    static func blend(_ cb: ColorLanes, _ cs: ColorLanes) -> ColorLanes
}

/// A mode that works on each channel alone.
private protocol SeparableBlendFunction: BlendFunction {
    static func channel(_ cb: SIMD8<Float>, _ cs: SIMD8<Float>) -> SIMD8<Float>
}

extension SeparableBlendFunction {
    @inline(always)
    static func blend(_ cb: ColorLanes, _ cs: ColorLanes) -> ColorLanes {
        ColorLanes(r: channel(cb.r, cs.r), g: channel(cb.g, cs.g), b: channel(cb.b, cs.b))
    }
}

@inline(always)
private func screen(_ a: SIMD8<Float>, _ b: SIMD8<Float>) -> SIMD8<Float> { a + b - a * b }

/// hardLight(Cb, Cs): Cb 2Cs where Cs <= 0.5, else screen(Cb, 2Cs - 1).
@inline(always)
private func hardLight(_ cb: SIMD8<Float>, _ cs: SIMD8<Float>) -> SIMD8<Float> {
    let twice = cs + cs
    return screen(cb, twice - 1).replacing(with: cb * twice, where: cs .<= 0.5)
}

private enum NormalMode: SeparableBlendFunction {
    @inline(always)
    static func channel(_ cb: SIMD8<Float>, _ cs: SIMD8<Float>) -> SIMD8<Float> { cs }
}

private enum MultiplyMode: SeparableBlendFunction {
    @inline(always)
    static func channel(_ cb: SIMD8<Float>, _ cs: SIMD8<Float>) -> SIMD8<Float> { cb * cs }
}

private enum ScreenMode: SeparableBlendFunction {
    @inline(always)
    static func channel(_ cb: SIMD8<Float>, _ cs: SIMD8<Float>) -> SIMD8<Float> { screen(cb, cs) }
}

private enum OverlayMode: SeparableBlendFunction {
    @inline(always)
    static func channel(_ cb: SIMD8<Float>, _ cs: SIMD8<Float>) -> SIMD8<Float> { hardLight(cs, cb) }
}

private enum DarkenMode: SeparableBlendFunction {
    @inline(always)
    static func channel(_ cb: SIMD8<Float>, _ cs: SIMD8<Float>) -> SIMD8<Float> { lanesMin(cb, cs) }
}

private enum LightenMode: SeparableBlendFunction {
    @inline(always)
    static func channel(_ cb: SIMD8<Float>, _ cs: SIMD8<Float>) -> SIMD8<Float> { lanesMax(cb, cs) }
}

/// 0 where Cb = 0; else 1 where Cs = 1; else min(1, Cb / (1 - Cs)). 1 - Cs is exact for
/// Cs >= 0.5, so near the pole the quotient carries one rounding.
private enum ColorDodgeMode: SeparableBlendFunction {
    @inline(always)
    static func channel(_ cb: SIMD8<Float>, _ cs: SIMD8<Float>) -> SIMD8<Float> {
        lanesMin(cb / (1 - cs), SIMD8(repeating: 1))
            .replacing(with: 1, where: cs .== 1).replacing(with: 0, where: cb .== 0)
    }
}

/// 1 where Cb = 1; else 0 where Cs = 0; else 1 - min(1, (1 - Cb) / Cs).
private enum ColorBurnMode: SeparableBlendFunction {
    @inline(always)
    static func channel(_ cb: SIMD8<Float>, _ cs: SIMD8<Float>) -> SIMD8<Float> {
        (1 - lanesMin((1 - cb) / cs, SIMD8(repeating: 1)))
            .replacing(with: 0, where: cs .== 0).replacing(with: 1, where: cb .== 1)
    }
}

private enum HardLightMode: SeparableBlendFunction {
    @inline(always)
    static func channel(_ cb: SIMD8<Float>, _ cs: SIMD8<Float>) -> SIMD8<Float> { hardLight(cb, cs) }
}

/// W3C's soft light: Cb - (1 - 2Cs) Cb (1 - Cb) where Cs <= 0.5, else
/// Cb + (2Cs - 1) (D(Cb) - Cb), D(x) = ((16x - 12) x + 4) x for x <= 0.25, else sqrt(x).
private enum SoftLightMode: SeparableBlendFunction {
    @inline(always)
    static func channel(_ cb: SIMD8<Float>, _ cs: SIMD8<Float>) -> SIMD8<Float> {
        let twice = cs + cs
        let d = cb.squareRoot().replacing(with: ((16 * cb - 12) * cb + 4) * cb, where: cb .<= 0.25)
        let lighter = cb + (twice - 1) * (d - cb)
        let darker = cb - (1 - twice) * cb * (1 - cb)
        return lighter.replacing(with: darker, where: cs .<= 0.5)
    }
}

private enum DifferenceMode: SeparableBlendFunction {
    @inline(always)
    static func channel(_ cb: SIMD8<Float>, _ cs: SIMD8<Float>) -> SIMD8<Float> { lanesMagnitude(cb - cs) }
}

private enum ExclusionMode: SeparableBlendFunction {
    @inline(always)
    static func channel(_ cb: SIMD8<Float>, _ cs: SIMD8<Float>) -> SIMD8<Float> { cb + cs - 2 * cb * cs }
}

// The non-separable modes. Exactly, their results lie in [0, 1]; the final clamp only takes
// away rounding (a few units in the last place) and anything a degenerate ClipColor left.

private enum HueMode: BlendFunction {
    @inline(always)
    static func blend(_ cb: ColorLanes, _ cs: ColorLanes) -> ColorLanes {
        cs.withSaturation(cb.saturation).withLuminosity(cb.luminosity).unit
    }
}

private enum SaturationMode: BlendFunction {
    @inline(always)
    static func blend(_ cb: ColorLanes, _ cs: ColorLanes) -> ColorLanes {
        cb.withSaturation(cs.saturation).withLuminosity(cb.luminosity).unit
    }
}

private enum ColorMode: BlendFunction {
    @inline(always)
    static func blend(_ cb: ColorLanes, _ cs: ColorLanes) -> ColorLanes {
        cs.withLuminosity(cb.luminosity).unit
    }
}

private enum LuminosityMode: BlendFunction {
    @inline(always)
    static func blend(_ cb: ColorLanes, _ cs: ColorLanes) -> ColorLanes {
        cb.withLuminosity(cs.luminosity).unit
    }
}
