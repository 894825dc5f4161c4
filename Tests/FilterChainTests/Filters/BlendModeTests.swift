import Testing
@testable import FilterChain

/// `BlendKernel` called directly, against `BlendReference`: the W3C formulas of `Blend`'s
/// documentation written plainly in Double. Inputs are Float values (what the kernel reads),
/// so the differences measured are the kernel's own rounding.
@Suite struct BlendModeTests {
    static let separableModes = BlendMode.allCases.filter(\.isSeparable)
    static let nonSeparableModes = BlendMode.allCases.filter { !$0.isSeparable }

    /// Runs the kernel over the pixels (r, g, b, a); returns what it wrote into the backdrop.
    static func run(_ kernel: BlendKernel, backdrop: [SIMD4<Double>], layer: [SIMD4<Double>]) -> [SIMD4<Double>] {
        let b = Planes(backdrop), l = Planes(layer)
        kernel.blend(backdrop: b.pixels, layer: l.pixels, count: b.count)
        return b.values(backdrop.count)
    }

    /// The largest difference, over all four channels, between the kernel and the reference.
    static func worst(_ mode: BlendMode, opacity: Double, backdrop: [SIMD4<Double>], layer: [SIMD4<Double>]) -> Double {
        let kernel = BlendKernel(mode: mode, opacity: Float(opacity))
        let out = run(kernel, backdrop: backdrop, layer: layer)
        let expected = zip(backdrop, layer).map {
            BlendReference.blend(mode, opacity: Double(kernel.opacity), backdrop: $0, layer: $1)
        }
        return largestDifference(out, expected)
    }

    /// v / 255 as the Float the kernel reads.
    static func level(_ v: Int) -> Double { Double(Float(v) / 255) }

    /// Every pair of 8-bit levels (Cb, Cs) in red, and the same pairs shuffled differently in
    /// green and blue. With `alpha`, each pixel has one of the 16 pairs of ab and as in
    /// {0, 0.25, 0.5, 1}, in turn (so each pair of levels meets up to three of them, one in each channel).
    static func allPairs(alpha: Bool) -> (backdrop: [SIMD4<Double>], layer: [SIMD4<Double>]) {
        let alphas = [0, 0.25, 0.5, 1.0]
        var backdrop: [SIMD4<Double>] = [], layer: [SIMD4<Double>] = []
        backdrop.reserveCapacity(65536)
        layer.reserveCapacity(65536)
        for v in 0..<65536 {
            let g = (v &* 40_503) & 0xFFFF, b = (v &* 9_973 &+ 12_345) & 0xFFFF
            let turn = (v &* 7 &+ v >> 8) & 15
            let (ab, la) = alpha ? (alphas[turn & 3], alphas[turn >> 2]) : (1, 1)
            backdrop.append(SIMD4(level(v >> 8), level(g >> 8), level(b >> 8), ab))
            layer.append(SIMD4(level(v & 255), level(g & 255), level(b & 255), la))
        }
        return (backdrop, layer)
    }

    /// Separable modes, all 65536 pairs, opaque: the result is B(Cb, Cs) itself.
    ///
    /// Measured worst differences: 0 for normal, darken and lighten; 3e-8 for multiply and
    /// difference; 8.8e-8 for colorDodge and colorBurn (1 - Cs or 1 - Cb, then the quotient,
    /// clamped to 1 near the pole: the error stays relative, never amplified); 7.9e-8 for
    /// softLight; 1.04e-7 for screen, overlay and hardLight and 1.19e-7 (one unit in the last
    /// place of a sum in [1, 2)) for exclusion. Bound: 1.5e-7.
    @Test(arguments: separableModes)
    func separableOpaque(_ mode: BlendMode) {
        let (backdrop, layer) = Self.allPairs(alpha: false)
        let d = Self.worst(mode, opacity: 1, backdrop: backdrop, layer: layer)
        #expect(d <= 1.5e-7, "\(mode): \(d)")
    }

    /// Separable modes, all pairs, under alphas ab, as in {0, 0.25, 0.5, 1} and opacity 0.7.
    /// The source-over weights (a reciprocal of ao, then products) add a few roundings:
    /// measured worst 1.19e-7 for normal, darken and lighten, at most 1.69e-7 (hardLight)
    /// for the others. Bound: 2e-7.
    @Test(arguments: separableModes)
    func separableWithAlpha(_ mode: BlendMode) {
        let (backdrop, layer) = Self.allPairs(alpha: true)
        let d = Self.worst(mode, opacity: 0.7, backdrop: backdrop, layer: layer)
        #expect(d <= 2e-7, "\(mode): \(d)")
    }

    /// Every Cb and Cs with channels in {0, 0.1, 0.3, 0.5, 0.7, 0.9, 1} (7^6 pairs of colours):
    /// greys, ties of two channels, and colours SetLum must clip at either end.
    static func colourGrid(alpha: Bool) -> (backdrop: [SIMD4<Double>], layer: [SIMD4<Double>]) {
        let values = [0, 0.1, 0.3, 0.5, 0.7, 0.9, 1].map { Double(Float($0)) }
        let alphas = [0, 0.25, 0.5, 1.0]
        var colours: [SIMD3<Double>] = []
        for r in values { for g in values { for b in values { colours.append(SIMD3(r, g, b)) } } }
        var backdrop: [SIMD4<Double>] = [], layer: [SIMD4<Double>] = []
        for (i, cb) in colours.enumerated() {
            for (j, cs) in colours.enumerated() {
                let ab = alpha ? alphas[(i + j) % 4] : 1, la = alpha ? alphas[(i + 2 * j) % 4] : 1
                backdrop.append(SIMD4(cb, ab))
                layer.append(SIMD4(cs, la))
            }
        }
        return (backdrop, layer)
    }

    /// Non-separable modes over the grid, opaque and with alpha (opacity 0.7).
    ///
    /// Lum in Float is off by up to about 1e-7 (its Float weights, three products, two sums),
    /// and ClipColor amplifies an error in Lum or in the shifted channels by up to
    /// |C - L| / (x - L) (or / (L - n)), which is at most 1 / 0.11 (the least weight) since
    /// x - L >= 0.11 (x - n). Measured worst: 7.4e-7 opaque (color, luminosity), 4.9e-7 with
    /// alpha; 8.2e-7 on random colours (saturation). Bound: 1e-6 (a twentieth of a 16-bit
    /// level).
    @Test(arguments: nonSeparableModes)
    func nonSeparable(_ mode: BlendMode) {
        let (b1, l1) = Self.colourGrid(alpha: false)
        let opaque = Self.worst(mode, opacity: 1, backdrop: b1, layer: l1)
        #expect(opaque <= 1e-6, "\(mode) opaque: \(opaque)")
        let (b2, l2) = Self.colourGrid(alpha: true)
        let withAlpha = Self.worst(mode, opacity: 0.7, backdrop: b2, layer: l2)
        #expect(withAlpha <= 1e-6, "\(mode) with alpha: \(withAlpha)")
    }

    /// Non-separable modes on random colours (not on a grid: no ties, any Lum).
    @Test(arguments: nonSeparableModes)
    func nonSeparableRandom(_ mode: BlendMode) {
        var random = SeededRandom(11)
        func colour() -> SIMD4<Double> {
            SIMD4(Double(Float.random(in: 0...1, using: &random)), Double(Float.random(in: 0...1, using: &random)),
                  Double(Float.random(in: 0...1, using: &random)), 1)
        }
        let backdrop = (0..<20_000).map { _ in colour() }, layer = (0..<20_000).map { _ in colour() }
        let d = Self.worst(mode, opacity: 1, backdrop: backdrop, layer: layer)
        #expect(d <= 1e-6, "\(mode): \(d)")
    }

    /// One pixel through the kernel (in lane 0 of a run of 8 whose other lanes are opaque grey).
    static func one(_ mode: BlendMode, opacity: Double = 1, _ backdrop: SIMD4<Double>, _ layer: SIMD4<Double>) -> SIMD4<Double> {
        let grey = SIMD4<Double>(0.5, 0.5, 0.5, 1)
        return run(BlendKernel(mode: mode, opacity: Float(opacity)),
                   backdrop: [backdrop] + Array(repeating: grey, count: 7), layer: [layer] + Array(repeating: grey, count: 7))[0]
    }

    /// W3C's special cases at the poles of colorDodge and colorBurn, opaque.
    @Test func dodgeAndBurnPoles() {
        #expect(Self.one(.colorDodge, SIMD4(0, 0, 0, 1), SIMD4(1, 1, 1, 1)) == SIMD4(0, 0, 0, 1))
        #expect(Self.one(.colorDodge, SIMD4(0.2, 1e-6, 1, 1), SIMD4(1, 1, 1, 1)) == SIMD4(1, 1, 1, 1))
        #expect(Self.one(.colorBurn, SIMD4(1, 1, 1, 1), SIMD4(0, 0, 0, 1)) == SIMD4(1, 1, 1, 1))
        #expect(Self.one(.colorBurn, SIMD4(0.8, Double(1 - Float.ulpOfOne / 2), 0, 1), SIMD4(0, 0, 0, 1)) == SIMD4(0, 0, 0, 1))
        // Next to the poles the quotient is finite and clamped.
        #expect(Self.one(.colorDodge, SIMD4(0.5, 0.5, 0.5, 1), SIMD4(Double(1 - Float.ulpOfOne / 2), 0.5, 0, 1)) == SIMD4(1, 1, 0.5, 1))
        #expect(Self.one(.colorBurn, SIMD4(0.5, 0.5, 0.5, 1), SIMD4(Double(Float.leastNonzeroMagnitude), 0.5, 1, 1)) == SIMD4(0, 0, 0.5, 1))
    }

    /// Colour and alpha outside [0, 1] are clamped first, and NaN counts as 0, in both images.
    @Test(arguments: BlendMode.allCases)
    func clamping(_ mode: BlendMode) {
        let cases: [(SIMD4<Double>, SIMD4<Double>, SIMD4<Double>, SIMD4<Double>)] = [
            (SIMD4(-0.5, 1.5, .nan, 2), SIMD4(0.3, -3, .infinity, .nan), SIMD4(0, 1, 0, 1), SIMD4(0.3, 0, 1, 0)),
            (SIMD4(.nan, -.infinity, 0.4, 0.6), SIMD4(2, 0.5, -1, 1.5), SIMD4(0, 0, 0.4, 0.6), SIMD4(1, 0.5, 0, 1)),
            (SIMD4(0.2, 0.7, 0.9, -1), SIMD4(-0.0, 1.0001, 0.5, 0.5), SIMD4(0.2, 0.7, 0.9, 0), SIMD4(0, 1, 0.5, 0.5)),
        ]
        for (backdrop, layer, clampedBackdrop, clampedLayer) in cases {
            let raw = Self.one(mode, opacity: 0.7, backdrop, layer)
            let clamped = Self.one(mode, opacity: 0.7, clampedBackdrop, clampedLayer)
            #expect(raw == clamped, "\(mode) \(backdrop) \(layer)")
            let expected = BlendReference.blend(mode, opacity: Double(Float(0.7)), backdrop: clampedBackdrop, layer: clampedLayer)
            #expect(largestDifference([raw], [expected]) <= 1e-6, "\(mode): \(raw) vs \(expected)")
        }
    }

    /// as = 0 (the layer's alpha 0, or opacity 0) leaves the backdrop, clamped, exactly;
    /// ab = 0 gives the layer exactly; both 0 give colour 0 and alpha 0.
    @Test(arguments: BlendMode.allCases)
    func transparentSides(_ mode: BlendMode) {
        let backdrop = SIMD4(0.2, 0.61, 1.3, 0.45), layer = SIMD4(0.9, -0.2, 0.33, 0.8)
        let clampedBackdrop = SIMD4(0.2, 0.61, 1, 0.45)
        func f(_ x: Double) -> Double { Double(Float(x)) }
        let expectedBackdrop = SIMD4(f(0.2), f(0.61), 1, f(0.45))
        #expect(Self.one(mode, backdrop, SIMD4(layer.x, layer.y, layer.z, 0)) == expectedBackdrop)
        #expect(Self.one(mode, opacity: 0, backdrop, layer) == expectedBackdrop)
        #expect(Self.one(mode, opacity: 0.7, clampedBackdrop, SIMD4(0.1, 0.1, 0.1, -2)) == expectedBackdrop)
        // ab = 0: the layer, its alpha times opacity.
        let out = Self.one(mode, opacity: 0.5, SIMD4(backdrop.x, backdrop.y, backdrop.z, 0), layer)
        #expect(out == SIMD4(f(0.9), 0, f(0.33), Double(Float(0.8) * 0.5)))
        // Neither shows.
        #expect(Self.one(mode, SIMD4(0.3, 0.3, 0.3, 0), SIMD4(0.6, 0.6, 0.6, 0)) == SIMD4(0, 0, 0, 0))
        #expect(Self.one(mode, opacity: 0, SIMD4(0.3, 0.3, 0.3, 0), layer) == SIMD4(0, 0, 0, 0))
    }

    /// An opaque backdrop stays exactly opaque under any layer alpha and opacity.
    @Test(arguments: BlendMode.allCases)
    func opaqueStaysOpaque(_ mode: BlendMode) {
        #expect(!BlendKernel(mode: mode, opacity: 1).changesOpaqueAlpha)
        let input = Catalogue.randomPixels(400, seed: 5)
        let backdrop = input.map { SIMD4($0.x, $0.y, $0.z, 1) }
        let layer = Catalogue.randomPixels(400, seed: 6)
        for opacity in [0.3, 1] {
            let out = Self.run(BlendKernel(mode: mode, opacity: Float(opacity)), backdrop: backdrop, layer: layer)
            #expect(out.allSatisfy { $0.w == 1 })
        }
    }

    /// Each pixel's result is the same bits whichever run it is in, in whichever lane and next
    /// to whichever pixels: runs where the layer is transparent throughout, or the backdrop
    /// opaque throughout (the kernel's shortcuts), give what the general path gives. The
    /// pixels are processed in one call, in calls of 8, and shuffled.
    @Test(arguments: BlendMode.allCases)
    func independentOfRunsAndLanes(_ mode: BlendMode) {
        // Groups of 8 alike: layer alpha 0, backdrop opaque, both mixed.
        var random = SeededRandom(21)
        var backdrop: [SIMD4<Double>] = [], layer: [SIMD4<Double>] = []
        for group in 0..<48 {
            for _ in 0..<8 {
                var b = SIMD4(Double.random(in: -0.1...1.1, using: &random), Double.random(in: 0...1, using: &random),
                              Double.random(in: 0...1, using: &random), Double.random(in: 0...1, using: &random))
                var l = SIMD4(Double.random(in: 0...1, using: &random), Double.random(in: -0.1...1.1, using: &random),
                              Double.random(in: 0...1, using: &random), Double.random(in: 0...1, using: &random))
                switch group % 4 {
                case 0: l.w = 0
                case 1: b.w = 1
                case 2: (b.w, l.w) = (1, 0)
                default: if Bool.random(using: &random) { b.w = [0, 1][Int.random(in: 0...1, using: &random)] }
                }
                backdrop.append(b)
                layer.append(l)
            }
        }
        let kernel = BlendKernel(mode: mode, opacity: 0.8)
        let whole = Self.run(kernel, backdrop: backdrop, layer: layer)
        var pieces: [SIMD4<Double>] = []
        for start in stride(from: 0, to: backdrop.count, by: 8) {
            pieces += Self.run(kernel, backdrop: Array(backdrop[start..<start + 8]), layer: Array(layer[start..<start + 8]))
        }
        #expect(pieces == whole)
        let order = Array(backdrop.indices).shuffled(using: &random)
        let shuffled = Self.run(kernel, backdrop: order.map { backdrop[$0] }, layer: order.map { layer[$0] })
        var unshuffled = whole
        for (k, i) in order.enumerated() { unshuffled[i] = shuffled[k] }
        #expect(unshuffled.map { $0.bitPatterns } == whole.map { $0.bitPatterns })
    }

    /// `pass`, which the pipeline runs where the layer misses a row, writes what `blend`
    /// writes with a transparent layer, bit for bit, out-of-range and NaN backdrops included;
    /// and the protocol's default `pass` (for other layer kernels) does the same.
    @Test(arguments: BlendMode.allCases)
    func passIsBlendWithNothingOver(_ mode: BlendMode) {
        var random = SeededRandom(33)
        var backdrop: [SIMD4<Double>] = (0..<200).map { _ in
            SIMD4(Double.random(in: -0.2...1.2, using: &random), Double.random(in: -0.2...1.2, using: &random),
                  Double.random(in: 0...1, using: &random), [0, 0.4, 1, 1.3][Int.random(in: 0...3, using: &random)])
        }
        backdrop[7] = SIMD4(.nan, 0.5, .infinity, 1)
        backdrop[100] = SIMD4(0.5, -.infinity, 0.2, .nan)
        let kernel = BlendKernel(mode: mode, opacity: 0.9)
        let transparent = [SIMD4<Double>](repeating: SIMD4(0.7, 0.2, 0.9, 0), count: backdrop.count)
        let expected = Self.run(kernel, backdrop: backdrop, layer: transparent).map { $0.bitPatterns }
        let b = Planes(backdrop)
        kernel.pass(backdrop: b.pixels, count: b.count)
        #expect(b.values(backdrop.count).map { $0.bitPatterns } == expected)
        struct Wrapped: LayerKernel {
            let kernel: BlendKernel
            func blend(backdrop: PlanarPixels, layer: PlanarPixels, count: Int) { kernel.blend(backdrop: backdrop, layer: layer, count: count) }
            var changesOpaqueAlpha: Bool { false }
        }
        let w = Planes(backdrop)
        Wrapped(kernel: kernel).pass(backdrop: w.pixels, count: w.count)
        #expect(w.values(backdrop.count).map { $0.bitPatterns } == expected)
    }

    /// The filter hands the kernel its mode and opacity.
    @Test func filterOperation() {
        guard case .blend(let reference, let placement, let kernel) = Blend(layer: "glow", mode: .screen, opacity: 0.4).operation(),
              let k = kernel as? BlendKernel else {
            Issue.record("blend is a layer operation with a BlendKernel")
            return
        }
        #expect(reference == "glow" && placement == .default && k.mode == .screen && k.opacity == Float(0.4))
    }
}

extension SIMD4<Double> {
    /// The Float bit patterns of the channels (what the kernel wrote; +0 and -0 differ).
    var bitPatterns: [UInt32] { [Float(x).bitPattern, Float(y).bitPattern, Float(z).bitPattern, Float(w).bitPattern] }
}

/// The formulas of `Blend`'s documentation (W3C Compositing and Blending Level 1), plainly,
/// in Double.
enum BlendReference {
    /// Clamped to [0, 1], NaN as 0.
    static func unit(_ x: Double) -> Double { x.isNaN ? 0 : min(max(x, 0), 1) }

    static func screen(_ a: Double, _ b: Double) -> Double { a + b - a * b }

    static func hardLight(_ cb: Double, _ cs: Double) -> Double {
        cs <= 0.5 ? cb * (2 * cs) : screen(cb, 2 * cs - 1)
    }

    static func separable(_ mode: BlendMode, _ cb: Double, _ cs: Double) -> Double {
        switch mode {
        case .normal: return cs
        case .multiply: return cb * cs
        case .screen: return screen(cb, cs)
        case .overlay: return hardLight(cs, cb)
        case .darken: return min(cb, cs)
        case .lighten: return max(cb, cs)
        case .colorDodge:
            if cb == 0 { return 0 }
            if cs == 1 { return 1 }
            return min(1, cb / (1 - cs))
        case .colorBurn:
            if cb == 1 { return 1 }
            if cs == 0 { return 0 }
            return 1 - min(1, (1 - cb) / cs)
        case .hardLight: return hardLight(cb, cs)
        case .softLight:
            if cs <= 0.5 { return cb - (1 - 2 * cs) * cb * (1 - cb) }
            let d = cb <= 0.25 ? ((16 * cb - 12) * cb + 4) * cb : cb.squareRoot()
            return cb + (2 * cs - 1) * (d - cb)
        case .difference: return abs(cb - cs)
        case .exclusion: return cb + cs - 2 * cb * cs
        case .hue, .saturation, .color, .luminosity: fatalError("\(mode) is not separable")
        }
    }

    static func lum(_ c: SIMD3<Double>) -> Double { 0.3 * c.x + 0.59 * c.y + 0.11 * c.z }

    /// ClipColor. The denominators are positive in exact arithmetic whenever their branch is
    /// taken (n <= L <= x, equal only for a grey, which is never clipped); the guards keep
    /// Double's rounding of a grey from dividing by 0.
    static func clipColor(_ c: SIMD3<Double>) -> SIMD3<Double> {
        var c = c
        let l = lum(c), n = c.min(), x = c.max()
        if n < 0, l - n > 0 { c = l + (c - l) * l / (l - n) }
        if x > 1, x - l > 0 { c = l + (c - l) * (1 - l) / (x - l) }
        return c
    }

    static func setLum(_ c: SIMD3<Double>, _ l: Double) -> SIMD3<Double> { clipColor(c + (l - lum(c))) }

    static func sat(_ c: SIMD3<Double>) -> Double { c.max() - c.min() }

    /// SetSat as W3C writes it: sort the channels into min, mid, max.
    static func setSat(_ c: SIMD3<Double>, _ s: Double) -> SIMD3<Double> {
        var c = c
        let order = [0, 1, 2].sorted { c[$0] < c[$1] }
        let (lo, mid, hi) = (order[0], order[1], order[2])
        if c[hi] > c[lo] {
            c[mid] = (c[mid] - c[lo]) * s / (c[hi] - c[lo])
            c[hi] = s
        } else {
            c[mid] = 0
            c[hi] = 0
        }
        c[lo] = 0
        return c
    }

    static func nonSeparable(_ mode: BlendMode, _ cb: SIMD3<Double>, _ cs: SIMD3<Double>) -> SIMD3<Double> {
        switch mode {
        case .hue: setLum(setSat(cs, sat(cb)), lum(cb))
        case .saturation: setLum(setSat(cb, sat(cs)), lum(cb))
        case .color: setLum(cs, lum(cb))
        case .luminosity: setLum(cb, lum(cs))
        default: fatalError("\(mode) is separable")
        }
    }

    /// One pixel: (r, g, b, a) of the backdrop and of the layer, straight colour.
    static func blend(_ mode: BlendMode, opacity: Double, backdrop: SIMD4<Double>, layer: SIMD4<Double>) -> SIMD4<Double> {
        let ab = unit(backdrop.w), sa = unit(layer.w) * opacity
        let cb = SIMD3(unit(backdrop.x), unit(backdrop.y), unit(backdrop.z))
        let cs = SIMD3(unit(layer.x), unit(layer.y), unit(layer.z))
        let b = mode.isSeparable
            ? SIMD3(separable(mode, cb.x, cs.x), separable(mode, cb.y, cs.y), separable(mode, cb.z, cs.z))
            : nonSeparable(mode, cb, cs)
        let csPrime = (1 - ab) * cs + ab * b
        let co = sa * csPrime + (1 - sa) * ab * cb
        let ao = sa + ab * (1 - sa)
        return ao == 0 ? SIMD4(0, 0, 0, 0) : SIMD4(co / ao, ao)
    }
}
