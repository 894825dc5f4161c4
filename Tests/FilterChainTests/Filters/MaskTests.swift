import Testing
@testable import FilterChain

/// `MaskKernel` called directly: each mask's values against `MaskReference` (its formula,
/// plainly, in Double, per pixel), and the mix against out = in + m (result - in) on
/// premultiplied colour and alpha.
@Suite struct MaskTests {
    static let size = ImageSize(width: 37, height: 23)

    static let shapes: [Mask.Shape] = [
        .linear(from: ImagePoint(0.1, 0.2), to: ImagePoint(0.8, 0.9)),
        .linear(from: ImagePoint(0, 0.5), to: ImagePoint(1, 0.5)),
        .linear(from: ImagePoint(0.9, 0.1), to: ImagePoint(0.2, 0.6)),
        .linear(from: ImagePoint(0.5, 0.5), to: ImagePoint(0.52, 0.5)),      // steep
        .linear(from: ImagePoint(-0.5, 0), to: ImagePoint(1.5, 1)),          // ends outside the image
        .radial(center: ImagePoint(0.5, 0.5), radius: 0.6, feather: 0.5),
        .radial(center: ImagePoint(1, 0), radius: 1.2, feather: 1),
        .radial(center: ImagePoint(0.3, 0.6), radius: 0.5, feather: 0.05),  // steep
        .luminance(low: 0.3, high: 0.7, feather: 0.2),
        .luminance(low: 0.5, high: 0.5, feather: 0.1),
        .luminance(low: 0.2, high: 1, feather: 1),
        .luminance(low: 0, high: 0.25, feather: 0.6),
    ] + MaskChannel.allCases.map { .image(source: "logo", channel: $0, placement: .default) }

    /// Hard edges: a pixel whose distance (radial) or luminance lies within `edgeMargin` of
    /// the edge may fall either side in Float; those pixels are left out of the comparison.
    static let hardShapes: [Mask.Shape] = [
        .radial(center: ImagePoint(0.2, 0.9), radius: 0.3, feather: 0),
        .radial(center: ImagePoint(0.5, 0.5), radius: 0.8, feather: 0),
        .luminance(low: 0.3, high: 0.6, feather: 0),
        .luminance(low: 0, high: 0.4, feather: 0),
    ]
    static let edgeMargin = 1e-5

    static let input = Catalogue.randomPixels(size.width * size.height, seed: 31).enumerated().map { i, p in
        i % 29 == 3 ? SIMD4(.nan, p.y, p.z, p.w) : p
    }

    /// The placed image: random, not covering (alpha 0, colour 0) a band of columns and
    /// scattered pixels; colour beyond [0, 1] and NaN elsewhere.
    static let layer = Catalogue.randomPixels(size.width * size.height, seed: 32).enumerated().map { i, p in
        let column = i % size.width
        if column >= 30 || i % 13 == 0 { return SIMD4<Double>(0, 0, 0, 0) }
        return i % 31 == 5 ? SIMD4(p.x, .nan, p.z, p.w) : p
    }

    /// The mask's values for every pixel of the image, a row at a time.
    static func kernelValues(_ mask: Mask, size: ImageSize = size,
                             input: [SIMD4<Double>] = input, layer: [SIMD4<Double>] = layer) -> [[Double]] {
        let kernel = MaskKernel(mask)
        return (0..<size.height).map { j in
            let row = Array(input[j * size.width ..< (j + 1) * size.width])
            let inputPlanes = Planes(row)
            let layerPlanes = Planes(Array(layer[j * size.width ..< (j + 1) * size.width]))
            let m = Planes(row)   // its red plane holds the values
            kernel.values(into: m.red, count: m.count, row: j, column: 0, size: size, input: inputPlanes.pixels,
                          layer: mask.reference == nil ? nil : layerPlanes.pixels)
            return (0..<size.width).map { Double(m.red[$0]) }
        }
    }

    /// The largest difference from the reference over the image, leaving out pixels within
    /// `margin` of a hard edge.
    static func worst(_ mask: Mask, margin: Double = 0) -> Double {
        let values = kernelValues(mask)
        var d = 0.0
        for j in 0..<size.height {
            for i in 0..<size.width {
                let k = j * size.width + i
                if margin > 0, MaskReference.nearHardEdge(mask, i: i, j: j, size: size, input: input[k], within: margin) { continue }
                let expected = MaskReference.value(mask, i: i, j: j, size: size, input: input[k], layer: layer[k])
                d = max(d, abs(values[j][i] - expected))
            }
        }
        return d
    }

    /// How far the kernel may be from the reference for this shape. Measured worst differences
    /// (over plain, inverted, opacity 0.6):
    /// - image masks 8e-8 (a clamp, L in Float, Float(opacity)): bound 1e-7;
    /// - linear masks 1.01e-7 (t in Double rounded to Float, s(t) in Float): bound 1.5e-7;
    /// - luminance masks 1.7e-7 (feather 0.6), 5.8e-7 (0.2), 7.5e-7 (0.1): L in Float is off by
    ///   up to about 1e-7, s has slope up to 1.5, over the feather: bound 1.5e-7 / feather,
    ///   at least 2e-7;
    /// - radial masks 1.4e-7 (fade width radius x feather 1.2), 2.4e-7 (0.3), 2.1e-6 (0.025):
    ///   d in Float (as the vignette computes it) is off by about 6e-8, over the width of the
    ///   fade: bound 9e-8 / width, at least 2e-7.
    static func bound(_ shape: Mask.Shape) -> Double {
        switch shape {
        case .image: 1e-7
        case .linear: 1.5e-7
        case .luminance(_, _, let feather): max(2e-7, 1.5e-7 / feather)
        case .radial(_, let radius, let feather): max(2e-7, 9e-8 / (radius * feather))
        }
    }

    /// Each shape, plain, inverted, at opacity 0.6 and both.
    @Test(arguments: [(false, 1.0), (true, 1), (false, 0.6), (true, 0.6)])
    func againstTheFormula(_ invert: Bool, _ opacity: Double) {
        for shape in Self.shapes {
            let d = Self.worst(Mask(shape, invert: invert, opacity: opacity))
            #expect(d <= Self.bound(shape), "\(shape) invert \(invert) opacity \(opacity): \(d)")
        }
    }

    /// Feather 0: values are exactly 0 or 1 (before invert and opacity), as the reference says
    /// away from the edge.
    @Test func hardEdges() {
        for shape in Self.hardShapes {
            let mask = Mask(shape)
            #expect(Self.kernelValues(mask).joined().allSatisfy { $0 == 0 || $0 == 1 }, "\(shape)")
            #expect(Self.worst(mask, margin: Self.edgeMargin) == 0, "\(shape)")
            #expect(Self.worst(Mask(shape, invert: true, opacity: 0.5), margin: Self.edgeMargin) == 0, "\(shape)")
        }
    }

    /// A luminance range's edges: 1 within low...high, s(t) over the feather outside.
    @Test func luminanceRangeEdges() {
        let size = ImageSize(width: 8, height: 1)
        let greys: [Double] = [0.1, 0.2, 0.3, 0.45, 0.6, 0.7, 0.8, 0.95]
        let input = greys.map { SIMD4($0, $0, $0, 1) }
        let soft = Self.kernelValues(Mask(.luminance(low: 0.3, high: 0.6, feather: 0.2)), size: size, input: input, layer: input)[0]
        // L = 0.1, 0.2: t = 1, 0.5; 0.3...0.6 inside; 0.7, 0.8: t = 0.5, 1; 0.95: t = 1.
        let expected = [0, 0.5, 1, 1, 1, 0.5, 0, 0]
        for (v, e) in zip(soft, expected) { #expect(abs(v - e) <= 1e-6, "\(soft)") }
        let hard = Self.kernelValues(Mask(.luminance(low: 0.25, high: 0.65, feather: 0)), size: size, input: input, layer: input)[0]
        #expect(hard == [0, 0, 1, 1, 1, 0, 0, 0])
        // Channels are clamped before L: (2, -1, 0.5) counts as (1, 0, 0.5), NaN as 0.
        let odd = [SIMD4(2, -1, 0.5, 1), SIMD4(.nan, .nan, .nan, 1)] + Array(repeating: SIMD4(0.5, 0.5, 0.5, 1), count: 6)
        let v = Self.kernelValues(Mask(.luminance(low: 0.2, high: 0.3, feather: 0.1)), size: size, input: odd, layer: odd)[0]
        #expect(abs(v[0] - MaskReference.value(Mask(.luminance(low: 0.2, high: 0.3, feather: 0.1)), i: 0, j: 0, size: size,
                                               input: SIMD4(1, 0, 0.5, 1), layer: nil)) <= 1e-6)
        #expect(v[1] == 0)
    }

    /// An image mask is 0 where the image does not cover, for every channel; inverted, 1.
    @Test(arguments: MaskChannel.allCases)
    func imageMaskOutside(_ channel: MaskChannel) {
        let values = Self.kernelValues(Mask(.image(source: "logo", channel: channel, placement: .default)))
        let inverted = Self.kernelValues(Mask(.image(source: "logo", channel: channel, placement: .default), invert: true, opacity: 0.5))
        for j in 0..<Self.size.height {
            for i in 30..<Self.size.width {
                #expect(values[j][i] == 0)
                #expect(inverted[j][i] == 0.5)
            }
        }
    }

    /// A linear mask whose ends coincide (which validation refuses) is 0, not NaN.
    @Test func linearDegenerate() {
        let values = Self.kernelValues(Mask(.linear(from: ImagePoint(0.4, 0.4), to: ImagePoint(0.4, 0.4))))
        #expect(values.joined().allSatisfy { $0 == 0 })
        let inverted = Self.kernelValues(Mask(.linear(from: ImagePoint(0.4, 0.4), to: ImagePoint(0.4, 0.4)), invert: true))
        #expect(inverted.joined().allSatisfy { $0 == 1 })
    }

    /// A radial mask is 1 - the vignette's f, to the bit: a vignette of intensity 1 on white
    /// gives exactly the mask's value.
    @Test func radialIsTheVignettesDistance() {
        let settings: [(ImagePoint, Double, Double)] = [
            (ImagePoint(0.5, 0.5), 1, 0.5), (ImagePoint(0.2, 0.9), 0.7, 0), (ImagePoint(1, 0), 2, 0.2),
            (ImagePoint(0.3, 0.6), 0.5, 0.05), (ImagePoint(0.5, 0.5), 0, 0.5),
        ]
        for size in [ImageSize(width: 61, height: 17), ImageSize(width: 8, height: 300), ImageSize(width: 203, height: 40)] {
            for (center, radius, feather) in settings {
                let vignette = Vignette(intensity: 1, radius: radius, softness: feather, center: center)
                guard case .positional(let kernel) = vignette.operation() else { fatalError("vignette is positional") }
                let mask = MaskKernel(Mask(.radial(center: center, radius: radius, feather: feather)))
                for row in [0, size.height / 3, size.height - 1] {
                    let white = Planes(Array(repeating: SIMD4<Double>(1, 1, 1, 1), count: size.width))
                    kernel.apply(white.pixels, count: white.count, row: row, column: 0, size: size)
                    let m = Planes(Array(repeating: SIMD4<Double>(0, 0, 0, 0), count: size.width))
                    mask.values(into: m.red, count: m.count, row: row, column: 0, size: size, input: m.pixels, layer: nil)
                    #expect((0..<size.width).allSatisfy { white.red[$0].bitPattern == m.red[$0].bitPattern }, "\(size) \(center) \(radius) \(feather)")
                }
            }
        }
    }

    /// The same values however a row is cut into runs.
    @Test func independentOfTheCuts() {
        let size = ImageSize(width: 203, height: 40)
        let input = Catalogue.randomPixels(208, seed: 8)
        let layer = Catalogue.randomPixels(208, seed: 9)
        for shape in Self.shapes + Self.hardShapes {
            let kernel = MaskKernel(Mask(shape, invert: true, opacity: 0.7))
            let image = Planes(input), placed = Planes(layer)
            let side = Mask(shape).reference == nil ? nil : Optional(placed.pixels)
            let whole = Planes(input)
            kernel.values(into: whole.red, count: 208, row: 13, column: 0, size: size, input: image.pixels, layer: side)
            for cuts in [[0, 8, 208], [0, 96, 200, 208], [0, 40, 48, 152, 208]] {
                let pieces = Planes(input)
                for (a, b) in zip(cuts, cuts.dropFirst()) {
                    kernel.values(into: pieces.red + a, count: b - a, row: 13, column: a, size: size,
                                  input: image.pixels.offset(by: a), layer: side?.offset(by: a))
                }
                #expect((0..<203).allSatisfy { pieces.red[$0].bitPattern == whole.red[$0].bitPattern }, "\(shape)")
            }
        }
    }

    // MARK: The mix

    /// Random straight pixels (colour beyond [0, 1], alpha with zeros) and mask values with
    /// 0, 1 and everything between.
    static func mixCase(seed: UInt64, count: Int) -> (input: [SIMD4<Double>], result: [SIMD4<Double>], m: [Double]) {
        var random = SeededRandom(seed)
        var input = Catalogue.randomPixels(count, seed: seed &+ 1), result = Catalogue.randomPixels(count, seed: seed &+ 2)
        for k in input.indices where k % 11 == 4 { input[k].w = 0 }
        for k in result.indices where k % 7 == 2 { result[k].w = 0 }
        let m = (0..<count).map { k -> Double in
            switch k % 5 {
            case 0: 0
            case 1: 1
            default: Double(Float.random(in: 0...1, using: &random))
            }
        }
        return (input, result, m)
    }

    /// Runs `mix`; returns what it wrote into `result`.
    static func runMix(input: [SIMD4<Double>], result: [SIMD4<Double>], m: [Double], opaque: Bool) -> [SIMD4<Double>] {
        let i = Planes(input), r = Planes(result)
        let mask = Planes(m.map { SIMD4($0, 0, 0, 0) })
        MaskKernel.mix(input: i.pixels, result: r.pixels, mask: mask.red, count: i.count, opaque: opaque)
        return r.values(result.count)
    }

    /// Against the formula on premultiplied values. Measured worst difference: 1.73e-7
    /// relative to the largest |colour| of the two pixels, at least 1 (the weights k ai / ao
    /// and m ar / ao carry three roundings each). Bound: 2.5e-7.
    @Test func mixWithAlpha() {
        let (input, result, m) = Self.mixCase(seed: 40, count: 4000)
        let out = Self.runMix(input: input, result: result, m: m, opaque: false)
        var d = 0.0
        for k in input.indices {
            let expected = MaskReference.mix(input: input[k].float, result: result[k].float, m: m[k])
            let scale = max(1, abs(input[k].x), abs(input[k].y), abs(input[k].z), abs(result[k].x), abs(result[k].y), abs(result[k].z))
            d = max(d, largestDifference([out[k]], [expected]) / scale)
            if m[k] == 0 { #expect(out[k].bitPatterns == input[k].float.bitPatterns) }
            if m[k] == 1 { #expect(out[k].bitPatterns == result[k].float.bitPatterns) }
        }
        #expect(d <= 2.5e-7, "\(d)")
        // Both alphas 0 (m strictly between): colour 0, alpha 0.
        let clear = Self.runMix(input: [SIMD4(0.3, 0.4, 0.5, 0)], result: [SIMD4(0.7, 0.2, 0.1, 0)], m: [0.5], opaque: false)
        #expect(clear[0] == SIMD4(0, 0, 0, 0))
    }

    /// Opaque: colour in + m (result - in) straight, alpha not read nor written. Measured worst
    /// difference 1.06e-7 (colours in -0.25...1.25): bound 1.5e-7.
    @Test func mixOpaque() {
        let (input, result, m) = Self.mixCase(seed: 50, count: 4000)
        let sentinel = 7.0
        let out = Self.runMix(input: input.map { SIMD4($0.x, $0.y, $0.z, .nan) },
                              result: result.map { SIMD4($0.x, $0.y, $0.z, sentinel) }, m: m, opaque: true)
        var d = 0.0
        for k in input.indices {
            let i = input[k].float, r = result[k].float
            let expected = SIMD4(i.x + m[k] * (r.x - i.x), i.y + m[k] * (r.y - i.y), i.z + m[k] * (r.z - i.z), sentinel)
            d = max(d, largestDifference([out[k]], [expected]))
            if m[k] == 0 { #expect(out[k].bitPatterns == SIMD4(i.x, i.y, i.z, sentinel).bitPatterns) }
        }
        #expect(out.allSatisfy { $0.w == sentinel })
        #expect(d <= 1.5e-7, "\(d)")
    }

    /// The same bits for each pixel in whichever run and lane (runs of m = 1 are skipped).
    @Test(arguments: [false, true])
    func mixIndependentOfLanes(_ opaque: Bool) {
        var (input, result, m) = Self.mixCase(seed: 60, count: 400)
        for k in 0..<80 { m[k] = 1 }   // whole runs of 1
        for k in 80..<160 { m[k] = 0 }
        let whole = Self.runMix(input: input, result: result, m: m, opaque: opaque)
        var random = SeededRandom(61)
        let order = Array(input.indices).shuffled(using: &random)
        let shuffled = Self.runMix(input: order.map { input[$0] }, result: order.map { result[$0] }, m: order.map { m[$0] }, opaque: opaque)
        var unshuffled = whole
        for (k, i) in order.enumerated() { unshuffled[i] = shuffled[k] }
        #expect(unshuffled.map { $0.bitPatterns } == whole.map { $0.bitPatterns })
    }
}

extension SIMD4<Double> {
    /// Each channel rounded to Float (what the kernel reads).
    var float: SIMD4<Double> { SIMD4(Double(Float(x)), Double(Float(y)), Double(Float(z)), Double(Float(w))) }
}

/// The masks' formulas (MaskKernel's documentation), plainly, in Double, for one pixel.
enum MaskReference {
    static func unit(_ x: Double) -> Double { x.isNaN ? 0 : min(max(x, 0), 1) }
    static func smooth(_ t: Double) -> Double { t * t * (3 - 2 * t) }

    static func luminance(_ c: SIMD4<Double>) -> Double {
        unit(0.2126 * unit(c.x) + 0.7152 * unit(c.y) + 0.0722 * unit(c.z))
    }

    static func distance(_ center: ImagePoint, i: Int, j: Int, size: ImageSize) -> Double {
        let w = Double(size.width), h = Double(size.height)
        let dx = Double(i) + 0.5 - center.x * w, dy = Double(j) + 0.5 - center.y * h
        return (dx * dx + dy * dy).squareRoot() / ((w * w + h * h).squareRoot() / 2)
    }

    static func value(_ mask: Mask, i: Int, j: Int, size: ImageSize, input: SIMD4<Double>, layer: SIMD4<Double>?) -> Double {
        var m: Double
        switch mask.shape {
        case .linear(let from, let to):
            let w = Double(size.width), h = Double(size.height)
            let px = Double(i) + 0.5, py = Double(j) + 0.5
            let fx = from.x * w, fy = from.y * h, tx = to.x * w, ty = to.y * h
            let length2 = (tx - fx) * (tx - fx) + (ty - fy) * (ty - fy)
            let t = length2 == 0 ? 0 : unit(((px - fx) * (tx - fx) + (py - fy) * (ty - fy)) / length2)
            m = smooth(t)
        case .radial(let center, let radius, let feather):
            let d = distance(center, i: i, j: j, size: size)
            let e0 = radius * (1 - feather), e1 = radius
            let t = e0 == e1 ? (d >= e1 ? 1 : 0) : unit((d - e0) / (e1 - e0))
            m = 1 - smooth(t)
        case .luminance(let low, let high, let feather):
            let l = luminance(input)
            if l >= low && l <= high {
                m = 1
            } else {
                let outside = l < low ? low - l : l - high
                let t = feather == 0 ? 1 : unit(outside / feather)
                m = 1 - smooth(t)
            }
        case .image(_, let channel, _):
            guard let layer else { fatalError("an image mask reads the placed image") }
            m = switch channel {
            case .luminance: luminance(layer)
            case .alpha: unit(layer.w)
            case .red: unit(layer.x)
            case .green: unit(layer.y)
            case .blue: unit(layer.z)
            }
        }
        if mask.invert { m = 1 - m }
        return m * mask.opacity
    }

    /// True when the pixel lies within `margin` of a hard edge (feather 0).
    static func nearHardEdge(_ mask: Mask, i: Int, j: Int, size: ImageSize, input: SIMD4<Double>, within margin: Double) -> Bool {
        switch mask.shape {
        case .radial(let center, let radius, let feather) where feather == 0:
            return abs(distance(center, i: i, j: j, size: size) - radius) < margin
        case .luminance(let low, let high, let feather) where feather == 0:
            let l = luminance(input)
            return abs(l - low) < margin || abs(l - high) < margin
        default:
            return false
        }
    }

    /// out = in + m (result - in) on premultiplied colour and alpha, back to straight colour
    /// (0 where alpha is 0); m = 0 gives the input and m = 1 the result exactly (the formula's
    /// value, which straight colour of a transparent pixel would otherwise lose).
    static func mix(input: SIMD4<Double>, result: SIMD4<Double>, m: Double) -> SIMD4<Double> {
        if m == 0 { return input }
        if m == 1 { return result }
        let pi = SIMD3(input.x, input.y, input.z) * input.w, pr = SIMD3(result.x, result.y, result.z) * result.w
        let po = pi + m * (pr - pi), ao = input.w + m * (result.w - input.w)
        return ao == 0 ? SIMD4(0, 0, 0, 0) : SIMD4(po / ao, ao)
    }
}
