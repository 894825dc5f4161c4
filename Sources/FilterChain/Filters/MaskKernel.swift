/// The values of a mask for a run of pixels, and the mix of a step's result with its input.
///
/// For the pixel in column i and row j of an image W x H, P = (i + 0.5, j + 0.5), and
/// s(t) = t² (3 - 2t):
///
///     linear     t = clamp((P - F)·(T - F) / |T - F|², 0, 1), F = (fx W, fy H), T alike;
///                m = s(t). When F = T (validation refuses it) t = 0, so m = 0.
///     radial     d = |P - C| / (sqrt(W² + H²) / 2), computed as `vignette` computes it
///                (the same Float operations, so a radial mask and a vignette of the same
///                centre, radius and softness agree to the bit); e0 = radius (1 - feather),
///                e1 = radius; t = clamp((d - e0) / (e1 - e0), 0, 1), or (d >= e1 ? 1 : 0)
///                when e0 = e1; m = 1 - s(t).
///     luminance  L = 0.2126 r + 0.7152 g + 0.0722 b of the step's input, each channel
///                clamped to [0, 1] first (NaN as 0) and L clamped to [0, 1] after;
///                t = clamp(max(low - L, L - high) / feather, 0, 1), or 1 outside
///                low...high when feather = 0; m = 1 - s(t), so 1 within the range.
///     image      the chosen channel of the placed image's straight colour, clamped to
///                [0, 1]: its alpha, one colour channel, or L as above. A colour channel is
///                not multiplied by the image's alpha (use `alpha` for the covered area).
///                Where the image does not cover, the engine passes alpha 0 and colour 0,
///                so every channel gives 0 there.
///
/// Then m -> 1 - m if `invert` (so an image mask inverted is 1 where the image does not
/// cover), then m -> m x opacity.
struct MaskKernel: Sendable {
    private enum Shape: Sendable {
        case linear(from: ImagePoint, to: ImagePoint)
        case radial(center: ImagePoint, inner: Double, outer: Double)
        case luminance(low: Float, high: Float, feather: Float)
        case image(MaskChannel)
    }

    private let shape: Shape
    private let invert: Bool
    private let opacity: Float
    /// The working space's luminance weights (`WorkingSpace.lumaWeights`).
    private let weights: (Float, Float, Float)

    init(_ mask: Mask, weights: SIMD3<Double> = WorkingSpace.srgb.lumaWeights) {
        self.weights = (Float(weights.x), Float(weights.y), Float(weights.z))
        switch mask.shape {
        case .linear(let from, let to):
            shape = .linear(from: from, to: to)
        case .radial(let center, let radius, let feather):
            shape = .radial(center: center, inner: radius * (1 - feather), outer: radius)
        case .luminance(let low, let high, let feather):
            shape = .luminance(low: Float(low), high: Float(high), feather: Float(feather))
        case .image(_, let channel, _):
            shape = .image(channel)
        }
        invert = mask.invert
        opacity = Float(mask.opacity)
    }

    /// Writes m for `count` pixels (a multiple of 8) of row `row` starting at column
    /// `column`, of an image of `size`. `input` is the step's input (straight colour;
    /// luminance masks read it). `layer`: for image masks the placed source image's straight
    /// pixels at the same places (alpha 0 and colour 0 where it does not cover), else nil.
    /// Each value depends on its pixel alone (its absolute column, not where the run
    /// starts). Columns at or past `size.width` are padding; their values do not matter.
    func values(into m: UnsafeMutablePointer<Float>, count: Int, row: Int, column: Int, size: ImageSize,
                input: PlanarPixels, layer: PlanarPixels?) {
        switch shape {
        case .linear(let from, let to):
            linear(m, count, row, column, size, from, to)
        case .radial(let center, let inner, let outer):
            radial(m, count, row, column, size, center, inner, outer)
        case .luminance(let low, let high, let feather):
            luminance(m, count, input, low, high, feather)
        case .image(let channel):
            guard let layer else { preconditionFailure("an image mask needs the placed image's pixels") }
            image(m, count, layer, channel)
        }
        finish(m, count)
    }

    /// Invert, then opacity.
    private func finish(_ m: UnsafeMutablePointer<Float>, _ count: Int) {
        guard invert || opacity != 1 else { return }
        let one = SIMD8<Float>(repeating: 1), k = SIMD8<Float>(repeating: opacity)
        var i = 0
        while i < count {
            var v = UnsafeRawPointer(m + i).loadUnaligned(as: SIMD8<Float>.self)
            if invert { v = one - v }
            Self.store(v * k, m + i)
            i += 8
        }
    }

    /// t along from -> to, in Double for each lane (the row's share once), so that a long
    /// image or a short gradient keeps full precision; then s(t) in Float.
    private func linear(_ m: UnsafeMutablePointer<Float>, _ count: Int, _ row: Int, _ column: Int, _ size: ImageSize,
                        _ from: ImagePoint, _ to: ImagePoint) {
        let w = Double(size.width), h = Double(size.height)
        let fx = from.x * w, fy = from.y * h
        let dx = (to.x - from.x) * w, dy = (to.y - from.y) * h
        let length2 = dx * dx + dy * dy
        guard length2 > 0 else {
            m.update(repeating: 0, count: count)
            return
        }
        let ax = SIMD8<Double>(repeating: dx / length2)
        let rowShare = SIMD8<Double>(repeating: (Double(row) + 0.5 - fy) * (dy / length2))
        let offset = SIMD8<Double>(repeating: 0.5 - fx)
        let lanes = SIMD8<Double>(0, 1, 2, 3, 4, 5, 6, 7)
        var i = 0
        while i < count {
            let px = SIMD8<Double>(repeating: Double(column + i)) + lanes + offset
            let t = lanesUnit(SIMD8<Float>(px * ax + rowShare))
            Self.store(t * t * (3 - 2 * t), m + i)
            i += 8
        }
    }

    /// m = 1 - f, f the vignette's falloff (`RadialFalloff`), bit for bit.
    private func radial(_ m: UnsafeMutablePointer<Float>, _ count: Int, _ row: Int, _ column: Int, _ size: ImageSize,
                        _ center: ImagePoint, _ inner: Double, _ outer: Double) {
        let falloff = RadialFalloff(center: center, inner: inner, outer: outer, row: row, size: size)
        let one = SIMD8<Float>(repeating: 1)
        var i = 0
        while i < count {
            Self.store(falloff.at(column + i).map { one - $0 } ?? one, m + i)
            i += 8
        }
    }

    private func luminance(_ m: UnsafeMutablePointer<Float>, _ count: Int, _ input: PlanarPixels,
                           _ low: Float, _ high: Float, _ feather: Float) {
        let lo = SIMD8<Float>(repeating: low), hi = SIMD8<Float>(repeating: high)
        let one = SIMD8<Float>(repeating: 1)
        let hard = feather == 0
        let reciprocal = SIMD8<Float>(repeating: hard ? 0 : 1 / feather)
        var i = 0
        while i < count {
            let l = luminance(ColorLanes(input, at: i))
            let outside = lanesMax(lo - l, l - hi)
            let t = hard ? one.replacing(with: 0, where: outside .<= 0) : lanesUnit(outside * reciprocal)
            Self.store(one - t * t * (3 - 2 * t), m + i)
            i += 8
        }
    }

    private func image(_ m: UnsafeMutablePointer<Float>, _ count: Int, _ layer: PlanarPixels, _ channel: MaskChannel) {
        var i = 0
        while i < count {
            let v: SIMD8<Float> = switch channel {
            case .luminance: luminance(ColorLanes(layer, at: i))
            case .alpha: lanesUnit(ColorLanes.load(layer.alpha + i))
            case .red: lanesUnit(ColorLanes.load(layer.red + i))
            case .green: lanesUnit(ColorLanes.load(layer.green + i))
            case .blue: lanesUnit(ColorLanes.load(layer.blue + i))
            }
            Self.store(v, m + i)
            i += 8
        }
    }

    /// wr r + wg g + wb b of the clamped channels, clamped (sRGB's weights: 0.2126 r +
    /// 0.7152 g + 0.0722 b).
    @inline(always)
    private func luminance(_ c: ColorLanes) -> SIMD8<Float> {
        let u = c.unit
        return lanesUnit(weights.0 * u.r + weights.1 * u.g + weights.2 * u.b)
    }

    /// out = in + m (result - in) on premultiplied colour and alpha, written back to `result`
    /// as straight colour (colour = premultiplied / alpha, 0 where alpha = 0). `input` and
    /// `result` are straight. When `opaque` is true both alphas are known to be exactly 1
    /// (3-plane stages): colour is mixed directly and alpha is not touched.
    ///
    /// Where m = 0 the pixel is the input's exactly, and where m = 1 the result's, as the
    /// formula gives in exact arithmetic (a fully transparent input pixel keeps its colour
    /// where m = 0). Elsewhere, with k = 1 - m, ao = k ai + m ar and colour
    /// (k ai / ao) ci + (m ar / ao) cr: one division per pixel.
    static func mix(input: PlanarPixels, result: PlanarPixels, mask m: UnsafePointer<Float>, count: Int, opaque: Bool) {
        let zero = SIMD8<Float>(), one = SIMD8<Float>(repeating: 1)
        var i = 0
        while i < count {
            let mv = UnsafeRawPointer(m + i).loadUnaligned(as: SIMD8<Float>.self)
            let keepResult = mv .== one, keepInput = mv .== zero
            if all(keepResult) {
                i += 8
                continue
            }
            let ci = ColorLanes(input, at: i), cr = ColorLanes(result, at: i)
            let k = one - mv
            let out: ColorLanes
            if opaque {
                out = ColorLanes(r: k * ci.r + mv * cr.r, g: k * ci.g + mv * cr.g, b: k * ci.b + mv * cr.b)
            } else {
                let ai = load(input.alpha + i), ar = load(result.alpha + i)
                let wi0 = k * ai, wr0 = mv * ar
                let ao = wi0 + wr0
                let r = (one / ao).replacing(with: 0, where: ao .== zero)
                let wi = wi0 * r, wr = wr0 * r
                out = ColorLanes(r: wi * ci.r + wr * cr.r, g: wi * ci.g + wr * cr.g, b: wi * ci.b + wr * cr.b)
                store(ao.replacing(with: ai, where: keepInput).replacing(with: ar, where: keepResult), result.alpha + i)
            }
            ColorLanes(r: out.r.replacing(with: ci.r, where: keepInput).replacing(with: cr.r, where: keepResult),
                       g: out.g.replacing(with: ci.g, where: keepInput).replacing(with: cr.g, where: keepResult),
                       b: out.b.replacing(with: ci.b, where: keepInput).replacing(with: cr.b, where: keepResult))
                .store(result, at: i)
            i += 8
        }
    }

    @inline(always)
    private static func load(_ p: UnsafeMutablePointer<Float>) -> SIMD8<Float> {
        UnsafeRawPointer(p).load(as: SIMD8<Float>.self)
    }

    @inline(always)
    private static func store(_ v: SIMD8<Float>, _ p: UnsafeMutablePointer<Float>) {
        UnsafeMutableRawPointer(p).storeBytes(of: v, as: SIMD8<Float>.self)
    }
}
