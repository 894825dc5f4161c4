import CEngines
import Foundation
import Testing
@testable import FilterChain

/// Each filter, through the whole pipeline, against the scalar Double reference.
@Suite struct FilterReferenceTests {
    static let renderer = Renderer(threads: 2, stripHeight: 16)

    /// Every 8-bit value in every channel, in mixed combinations, with alpha.
    static func allValues(alpha: Bool) -> Pixels {
        let format = PixelFormat(alpha ? .rgba : .rgb, .eight)
        var samples: [Int] = []
        for y in 0..<4 {
            for x in 0..<256 {
                samples += [x, (x * 7 + y * 31) % 256, (255 - x + y * 64) % 256]
                if alpha { samples.append((x * 13 + y * 50) % 256) }
            }
        }
        return Pixels(width: 256, height: 4, format: format, samples: samples)
    }

    /// Away from rounding ties the output must equal the rounded reference exactly; near
    /// one (within `tieWindow` of x.5, in output levels) it may round the other way.
    func check(_ chain: Chain, _ input: Pixels, tieWindow: Double = 0.01, maxDiff: Int = 1, step: Int? = nil,
               sourceLocation: SourceLocation = #_sourceLocation) throws {
        let out = try Self.renderer.apply(chain, to: input.raster, step: step)
        let reference = Reference.apply(chain, to: input, through: step)
        let expected = Reference.scaled(reference, format: out.format, linear: chain.workingSpace == .linear)
        let problems = mismatches(Pixels(out).samples, expected, tieWindow: tieWindow, maxDiff: maxDiff)
        #expect(problems.isEmpty, "\(problems)", sourceLocation: sourceLocation)
    }

    /// Within `maxDiff` levels everywhere and `meanDiff` on average.
    func checkTolerance(_ chain: Chain, _ input: Pixels, maxDiff: Int, meanDiff: Double,
                        sourceLocation: SourceLocation = #_sourceLocation) throws {
        let out = try Self.renderer.apply(chain, to: input.raster)
        let expected = Reference.encode(Reference.apply(chain, to: input), format: out.format,
                                        linear: chain.workingSpace == .linear)
        let d = differences(Pixels(out).samples, expected)
        #expect(d.max <= maxDiff && d.mean <= meanDiff, "max \(d.max), mean \(d.mean)", sourceLocation: sourceLocation)
    }

    static let colourSettings: [(Double, Double, Double)] = [
        (1.2, 0.05, 1.1), (0, 0, 1), (4, -1, 0), (0.5, 0.3, 4), (2.5, -0.2, 0.7), (1, 1, 1),
    ]

    @Test(arguments: [false, true])
    func colorControlsOverAll8BitValues(alpha: Bool) throws {
        for (s, b, k) in Self.colourSettings {
            var f = ColorControls()
            f.saturation = s; f.brightness = b; f.contrast = k
            try check(Chain([f]), Self.allValues(alpha: alpha))
        }
    }

    static let curves: [[CurvePoint]] = [
        [CurvePoint(0, 0), CurvePoint(0.25, 0.2), CurvePoint(0.5, 0.5), CurvePoint(0.75, 0.82), CurvePoint(1, 1)],
        [CurvePoint(0.1, 0.9), CurvePoint(0.9, 0.1)],
        [CurvePoint(0, 0), CurvePoint(0.3, 0.7), CurvePoint(0.35, 0.2), CurvePoint(0.8, 0.95), CurvePoint(1, 0.5)],
        [CurvePoint(0.2, 0), CurvePoint(0.21, 1), CurvePoint(0.6, 1), CurvePoint(1, 0)],
        // More segments than vector selection handles: the per-value segment search.
        (0...11).map { CurvePoint(Double($0) / 11, 0.5 + 0.45 * sin(Double($0) * 1.7)) },
    ]

    @Test(arguments: CurveInterpolation.allCases)
    func toneCurveOverAll8BitValues(interpolation: CurveInterpolation) throws {
        for (i, points) in Self.curves.enumerated() {
            var f = ToneCurve()
            f.points = points
            f.interpolation = interpolation
            if i == 2 { f.green = Self.curves[1]; f.blue = Self.curves[3] }
            try check(Chain([f]), Self.allValues(alpha: i % 2 == 0))
        }
    }

    /// The issue allows 1e-4 (6.6 levels at 16 bit). The curve is exact to float precision
    /// for its float32 input, but a steep segment (slope 100 here) magnifies the input's own
    /// float32 rounding, up to about a level; hence 2 levels near ties.
    @Test func toneCurveAt16Bit() throws {
        let ramp = Pixels(width: 256, height: 256, format: PixelFormat(.grey, .sixteen), samples: Array(0..<65536))
        for points in Self.curves {
            var f = ToneCurve()
            f.points = points
            try check(Chain([f]), ramp, tieWindow: 1.4, maxDiff: 2)
        }
    }

    @Test func curveEvaluationWithin1e4() {
        for points in Self.curves {
            for interpolation in CurveInterpolation.allCases {
                let table = CurveTable(CurveFunction(points, interpolation))
                let reference = Reference.curve(points, monotone: interpolation == .monotone)
                var values = (0..<8192).map { Float($0) / 8191 * 1.2 - 0.1 }
                let inputs = values
                values.withUnsafeMutableBufferPointer { table.apply($0.baseAddress!, count: $0.count) }
                let worst = zip(inputs, values).map { abs(Double($1) - reference(Double($0))) }.max()!
                #expect(worst <= 2e-6, "error \(worst) for \(points)")   // the issue allows 1e-4
            }
        }
    }

    /// The AVX2 loop (fc_curve_select) gives the Swift selecting loop's floats bit for bit, for
    /// curves of 1 to 8 segments (the ones above, and segments between random points), on
    /// values in and around the domain, NaN and infinities; the Swift loop is itself held to
    /// the reference above (it is the path without AVX2).
    @Test(.enabled(if: fc_kernels_have_avx2() != 0, "the loop needs AVX2"))
    func theVectorCurveLoopIsTheSwiftOnes() throws {
        var generator = SeededRandom(11)
        var sets = Self.curves.prefix(4).map { $0 }
        for n in 2...9 {
            let xs = (0..<n).map { Double($0) / Double(n - 1) + ($0 > 0 && $0 < n - 1 ? Double.random(in: -0.02...0.02, using: &generator) : 0) }
            sets.append(xs.map { CurvePoint($0, Double.random(in: 0...1, using: &generator)) })
        }
        var special: [Float] = [.nan, .infinity, -.infinity, 0, 1, -0.0, .leastNonzeroMagnitude, 1e30, -1e30, .ulpOfOne]
        special += (0..<4086).map { _ in Float.random(in: -0.3...1.3, using: &generator) }
        for points in sets {
            for interpolation in CurveInterpolation.allCases {
                let table = CurveTable(CurveFunction(points, interpolation))
                #expect(table.lastSegment < CurveTable.selectLimit)
                var vector = special, scalar = special
                let done = table.segments.withUnsafeBufferPointer {
                    fc_curve_select($0.baseAddress!, Int32(table.lastSegment + 1), table.x0, table.x1, &vector, vector.count)
                }
                #expect(done == 1)
                scalar.withUnsafeMutableBufferPointer { table.applySelecting($0.baseAddress!, count: $0.count) }
                #expect(zip(vector, scalar).allSatisfy { $0.bitPattern == $1.bitPattern }, "\(points) \(interpolation)")
            }
        }
    }

    /// The AVX2 passes of the direct blur (fc_blur_horizontal, fc_blur_vertical) give the
    /// Swift loops' floats bit for bit, for every reach the direct blur has (1 to 16 taps a
    /// side), rows of widths around the 8- and 32-column steps, and values with NaN and
    /// infinities among them; the Swift loops are the path without AVX2, held to the
    /// definition by the test below.
    @Test(.enabled(if: fc_kernels_have_avx2() != 0, "the passes need AVX2"))
    func theVectorBlurPassesAreTheSwiftOnes() throws {
        var generator = SeededRandom(12)
        for sigma in [0.25, 0.5, 1, 1.7, 2, 3.3, 4] {  // reaches 1 to 16
            let blur = GaussianKernel(sigma: sigma)
            #expect(blur.radius <= GaussianKernel.directReach)
            for width in [1, 7, 8, 31, 33, 70] {
                let stride = (width + 7) & ~7, height = 2 * blur.radius + 3
                var rows = (0..<(stride * height)).map { _ in Float.random(in: -0.5...1.5, using: &generator) }
                rows[3] = .nan
                rows[stride + 1] = .infinity
                var vector = rows, scalar = rows
                vector.withUnsafeMutableBufferPointer {
                    DirectHorizontal(weights: blur.weights, width: width).run($0.baseAddress!, stride: stride, rowCount: height)
                }
                scalar.withUnsafeMutableBufferPointer {
                    DirectHorizontal(weights: blur.weights, width: width, vector: false).run($0.baseAddress!, stride: stride, rowCount: height)
                }
                #expect(zip(vector, scalar).allSatisfy { $0.bitPattern == $1.bitPattern }, "horizontal, sigma \(sigma), width \(width)")
                for columns in stride > 8 ? [0..<stride, 8..<stride] : [0..<stride] {
                    var a = [Float](repeating: 0, count: stride), b = a
                    let y = blur.radius + 1
                    rows.withUnsafeBufferPointer { r in
                        let input = { (i: Int) in r.baseAddress! + i * stride }
                        a.withUnsafeMutableBufferPointer {
                            DirectVertical(weights: blur.weights).run(y: y, input: input, destination: $0.baseAddress!, columns: columns)
                        }
                        b.withUnsafeMutableBufferPointer {
                            DirectVertical(weights: blur.weights, vector: false).run(y: y, input: input, destination: $0.baseAddress!, columns: columns)
                        }
                    }
                    #expect(zip(a, b).allSatisfy { $0.bitPattern == $1.bitPattern }, "vertical, sigma \(sigma), width \(width), \(columns)")
                }
            }
        }
    }

    @Test(arguments: [0.5, 1, 2, 3.3, 4])
    func blurMatchesTheDefinition(sigma: Double) throws {
        var f = GaussianBlur()
        f.sigma = sigma
        for format in [PixelFormat(.rgba, .eight), PixelFormat(.rgb, .sixteen), PixelFormat(.greyAlpha, .sixteen)] {
            let input = Pixels.random(width: 41, height: 29, format: format, seed: UInt64(sigma * 10))
            try check(Chain([f]), input, tieWindow: format.depth == .eight ? 0.01 : 0.05)
        }
    }

    /// The sliding-sum blur (reach over 16 pixels) stays within the tolerance of the
    /// definition: 2 levels at most, 0.25 on average. With alpha, colour is compared
    /// premultiplied: where alpha is tiny, straight colour magnifies any rounding.
    @Test(arguments: [4.5, 8, 20, 60])
    func slidingBlurWithinTolerance(sigma: Double) throws {
        var f = GaussianBlur()
        f.sigma = sigma
        let opaque = Pixels.random(width: 160, height: 140, format: PixelFormat(.rgb, .eight), seed: 3)
        try checkTolerance(Chain([f]), opaque, maxDiff: 2, meanDiff: 0.25)
        let input = Pixels.random(width: 150, height: 130, format: PixelFormat(.rgba, .eight), seed: 4)
        let out = Pixels(try Self.renderer.apply(Chain([f]), to: input.raster))
        let ref = Reference.apply(Chain([f]), to: input)
        var worst = 0.0, total = 0.0
        for i in 0..<(input.width * input.height) {
            let a = Double(out.samples[i * 4 + 3]) / 255
            #expect(abs(a - ref.a[i]) * 255 <= 1.0)
            for (c, plane) in [ref.r, ref.g, ref.b].enumerated() {
                let d = abs(Double(out.samples[i * 4 + c]) / 255 * a - min(max(plane[i], 0), 1) * ref.a[i]) * 255
                worst = max(worst, d)
                total += d
            }
        }
        #expect(worst <= 2 && total / Double(input.width * input.height * 3) <= 0.25, "max \(worst)")
    }

    /// The issue's own criterion: on 8-bit photographs, within 2 levels at most and 0.25 on
    /// average of the exact definition, for sigmas across the range (direct and sliding).
    @Test(arguments: [0.8, 3, 4.3, 6, 12, 30, 75, 160, 500])
    func blurOnAPhotographWithinTolerance(sigma: Double) throws {
        let (photo, _) = try Pixels.read(TestData.samples.appendingPathComponent("coffee.png").path)
        // A 180 x 120 crop keeps the Double reference quick.
        var samples: [Int] = []
        for y in 140..<260 { samples += photo.samples[((y * photo.width + 200) * 3)..<((y * photo.width + 380) * 3)] }
        let crop = Pixels(width: 180, height: 120, format: photo.format, samples: samples)
        var f = GaussianBlur()
        f.sigma = sigma
        try checkTolerance(Chain([f]), crop, maxDiff: 2, meanDiff: 0.25)
    }

    @Test func blurNeverBleedsColourFromTransparentPixels() throws {
        // Opaque red square on fully transparent green: no green may appear anywhere.
        let w = 40, h = 30
        var samples: [Int] = []
        for y in 0..<h {
            for x in 0..<w {
                samples += (10..<30).contains(x) && (10..<20).contains(y) ? [255, 0, 0, 255] : [0, 255, 0, 0]
            }
        }
        let input = Pixels(width: w, height: h, format: PixelFormat(.rgba, .eight), samples: samples)
        for sigma in [2.0, 9] {
            var f = GaussianBlur()
            f.sigma = sigma
            let out = Pixels(try Self.renderer.apply(Chain([f]), to: input.raster))
            for i in 0..<(w * h) where out.samples[i * 4 + 3] > 0 {
                #expect(out.samples[i * 4 + 1] == 0, "green at pixel \(i) with sigma \(sigma)")
                #expect(out.samples[i * 4] >= 250, "red faded at pixel \(i) with sigma \(sigma)")
            }
        }
    }

    @Test func wholeChainInLinearSpace() throws {
        var c = ColorControls()
        c.saturation = 1.3; c.contrast = 1.2; c.brightness = -0.05
        var t = ToneCurve()
        t.points = Self.curves[0]
        var b = GaussianBlur()
        b.sigma = 1.5
        for format in [PixelFormat(.rgba, .eight), PixelFormat(.rgb, .sixteen)] {
            let input = Pixels.random(width: 33, height: 21, format: format, seed: 9)
            let window = format.depth == .eight ? 0.01 : 0.05
            try check(Chain(workingSpace: .linear, [c, t, b]), input, tieWindow: window)
            try check(Chain(workingSpace: .srgb, [c, t, b]), input, tieWindow: window)
        }
    }

    @Test func neutralParametersAreTheIdentity() throws {
        var disabled = Step(filter: { var f = ColorControls(); f.saturation = 3; return f }())
        disabled.enabled = false
        let chain = Chain(steps: [Step(filter: ColorControls()), Step(filter: ToneCurve()), disabled,
                                  Step(filter: { var f = GaussianBlur(); f.sigma = 0; return f }())])
        for channels in Channels.allCases {
            for depth in BitDepth.stored {
                let input = Pixels.random(width: 23, height: 17, format: PixelFormat(channels, depth), seed: 5)
                for space in WorkingSpace.allCases {
                    var c = chain
                    c.workingSpace = space
                    let out = Pixels(try Self.renderer.apply(c, to: input.raster))
                    if space == .srgb || space == .linear {
                        // An untagged (sRGB) image in sRGB's primaries takes the exact path.
                        #expect(out == input, "\(channels) \(depth) \(space)")
                    } else {
                        // Into other primaries and back: within one level of the sample.
                        #expect(out.format == input.format, "\(channels) \(depth) \(space)")
                        let worst = zip(out.samples, input.samples).map { abs($0 - $1) }.max() ?? 0
                        #expect(worst <= 1, "\(channels) \(depth) \(space): \(worst)")
                    }
                }
            }
        }
    }
}
