import Foundation
import Testing
@testable import FilterChain

/// Resize, crop, rotate and flip against the issue's definitions (Support/GeometryReference).
@Suite struct GeometryTests {
    static let renderer = Renderer(threads: 2, stripHeight: 16)

    /// Sizes worked out by hand from the issue's rules.
    @Test(arguments: [
        // (w, h, parameters, resized w x h, kept rectangle x, y, w, h)
        (640, 480, #"{"width": 100}"#, [100, 75, 0, 0, 100, 75]),
        (640, 480, #"{"height": 100}"#, [133, 100, 0, 0, 133, 100]),          // 133.33
        (641, 480, #"{"scale": 0.5}"#, [321, 240, 0, 0, 321, 240]),           // 320.5 rounds up
        (640, 480, #"{"width": 200, "height": 200}"#, [200, 150, 0, 0, 200, 150]),
        (640, 480, #"{"width": 200, "height": 200, "fit": "cover"}"#, [267, 200, 33, 0, 200, 200]),
        (480, 640, #"{"width": 200, "height": 200, "fit": "cover"}"#, [200, 267, 0, 33, 200, 200]),
        (640, 480, #"{"width": 200, "height": 200, "fit": "fill"}"#, [200, 200, 0, 0, 200, 200]),
        (100, 80, #"{"width": 200, "enlarge": false}"#, [100, 80, 0, 0, 100, 80]),
        (100, 80, #"{"width": 200, "height": 50, "fit": "cover", "enlarge": false}"#, [100, 80, 0, 15, 100, 50]),
        (100, 80, #"{"width": 50, "height": 200, "fit": "fill", "enlarge": false}"#, [50, 80, 0, 0, 50, 80]),
        (100, 80, #"{"width": 300, "height": 100, "enlarge": false}"#, [100, 80, 0, 0, 100, 80]),
        (100, 80, #"{"width": 300, "height": 40, "enlarge": false}"#, [50, 40, 0, 0, 50, 40]),
        (1000, 10, #"{"width": 10}"#, [10, 1, 0, 0, 10, 1]),                 // 0.1 becomes 1
        (10, 10, #"{"scale": 16}"#, [160, 160, 0, 0, 160, 160]),
        (3, 2, #"{"width": 5}"#, [5, 3, 0, 0, 5, 3]),                         // 3.33
        (4, 3, #"{"width": 2}"#, [2, 2, 0, 0, 2, 2]),                         // 1.5 rounds up
    ])
    func sizeRulesByHand(w: Int, h: Int, parameters: String, expected: [Int]) throws {
        let resize = try Self.resize(parameters)
        let layout = try resize.layout(for: ImageSize(width: w, height: h))
        let (resized, keep) = Reference.resizeGeometry(resize, width: w, height: h)
        #expect([resized.0, resized.1, keep.x, keep.y, keep.w, keep.h] == expected, "reference")
        switch layout {
        case .resample(let to, let window):
            #expect([to.width, to.height, window.x, window.y, window.width, window.height] == expected)
        case .crop(let r):
            // No resize: the size stays, a cover fit still crops the middle.
            #expect(expected[0] == w && expected[1] == h)
            #expect([r.x, r.y, r.width, r.height] == Array(expected[2...]))
        case .turn:
            Issue.record("a resize does not turn")
        }
    }

    /// Every rule, on many sizes: the layout equals the reference written from the issue.
    @Test func sizeRulesAgainstTheReference() throws {
        var rng = SeededRandom(7)
        let fits: [Resize.Fit?] = [nil, .contain, .cover, .fill]
        for _ in 0..<4000 {
            let w = Int.random(in: 1...3000, using: &rng), h = Int.random(in: 1...3000, using: &rng)
            var r = Resize()
            switch Int.random(in: 0..<4, using: &rng) {
            case 0: r.scale = [0.001, 0.1, 0.25, 1 / 3, 0.5, 0.77, 1, 1.5, 2.5, 16][Int.random(in: 0..<10, using: &rng)]
            case 1: r.width = Int.random(in: 1...4000, using: &rng)
            case 2: r.height = Int.random(in: 1...4000, using: &rng)
            default:
                r.width = Int.random(in: 1...4000, using: &rng)
                r.height = Int.random(in: 1...4000, using: &rng)
                r.fit = fits[Int.random(in: 0..<4, using: &rng)]
                if r.fit == .cover {
                    let p = [0, 0.5, 1, 0.3, Double.random(in: 0...1, using: &rng)]
                    r.position = ImagePoint(p[Int.random(in: 0..<5, using: &rng)], p[Int.random(in: 0..<5, using: &rng)])
                }
            }
            r.enlarge = Bool.random(using: &rng)
            let (resized, keep) = Reference.resizeGeometry(r, width: w, height: h)
            let layout = try r.layout(for: ImageSize(width: w, height: h))
            let got: [Int]
            switch layout {
            case .resample(let to, let window): got = [to.width, to.height, window.x, window.y, window.width, window.height]
            case .crop(let rect): got = [w, h, rect.x, rect.y, rect.width, rect.height]
            case .turn: got = []
            }
            #expect(got == [resized.0, resized.1, keep.x, keep.y, keep.w, keep.h], "\(w)x\(h) \(r.parametersJSON)")
            #expect(keep.w >= 1 && keep.h >= 1)
        }
    }

    /// Combinations that are not allowed are chain errors naming the step and what is allowed.
    @Test(arguments: [
        (#"{"width": 10, "scale": 0.5}"#, "resize: scale cannot be given with width; give width, height or both (fit only with both), or scale alone"),
        (#"{}"#, "resize: no size given; give width, height or both (fit only with both), or scale alone"),
        (#"{"width": 10, "fit": "cover"}"#, "resize: fit needs both width and height; give width, height or both (fit only with both), or scale alone"),
        (#"{"width": 10.5}"#, "10.5 is not allowed; allowed: a whole number"),
        (#"{"width": 0}"#, "0 is out of range; allowed 1...65535"),
        (#"{"scale": 20}"#, "20 is out of range; allowed 0.001...16"),
        (#"{"width": 10, "height": 10, "fit": "stretch"}"#, "\"stretch\" is not allowed; allowed: one of \"contain\", \"cover\", \"fill\""),
        (#"{"width": 10, "height": 10, "position": [0, 1]}"#, "resize: position places the box of fit cover; give fit \"cover\" with it"),
        (#"{"width": 10, "height": 10, "fit": "cover", "position": [0, 1.5]}"#, "1.5 is out of range; allowed 0...1"),
    ])
    func badResizeParametersAreChainErrors(parameters: String, message: String) throws {
        let text = #"{"version": 1, "filters": [{"id": "0F6C1B9E-3C1A-4D2B-8E57-6A1F0B2C3D41", "type": "resize", "parameters": "# + parameters + "}]}"
        #expect {
            _ = try Chain.parse(Array(text.utf8), file: "c.json")
        } throws: { error in
            guard let error = error as? ChainError else { return false }
            return error.path.hasPrefix("filters[0].parameters") && error.message == message
        }
    }

    @Test(arguments: [
        (#"{"x": 1}"#, "crop: width and height are required; x and y default to 0"),
        (#"{"width": 10.5, "height": 3}"#, "crop: width 10.5 is not a whole number; with unit \"pixels\" all four are whole numbers (unit \"fraction\" takes 0...1)"),
        (#"{"width": 1.5, "height": 0.5, "unit": "fraction"}"#, "crop: width 1.5 is outside 0...1; with unit \"fraction\" all four are fractions of the size"),
        (#"{"x": -1, "width": 3, "height": 3}"#, "-1 is out of range; allowed 0...65535"),
        (#"{"width": 0, "height": 3}"#, "crop: width and height must be at least 1 pixel"),
    ])
    func badCropParametersAreChainErrors(parameters: String, message: String) throws {
        let text = #"{"version": 1, "filters": [{"id": "0F6C1B9E-3C1A-4D2B-8E57-6A1F0B2C3D41", "type": "crop", "parameters": "# + parameters + "}]}"
        #expect {
            _ = try Chain.parse(Array(text.utf8), file: "c.json")
        } throws: { error in
            (error as? ChainError)?.message == message
        }
    }

    @Test func rotateTakesOnlyQuarterTurns() throws {
        for angle in [90, 180, 270, -90, -180, -270] {
            _ = try Chain.parse(Array(Self.chainText("rotate", #"{"angle": \#(angle)}"#).utf8), file: "c.json")
        }
        for angle in ["45", "0", "360", "90.5"] {
            #expect(throws: ChainError.self) {
                _ = try Chain.parse(Array(Self.chainText("rotate", #"{"angle": \#(angle)}"#).utf8), file: "c.json")
            }
        }
    }

    static let formats = [PixelFormat(.rgb, .eight), PixelFormat(.rgba, .eight), PixelFormat(.grey, .eight),
                          PixelFormat(.rgba, .sixteen), PixelFormat(.greyAlpha, .sixteen)]

    /// A smooth random image with a few hard edges, and alpha that falls to 0 in places.
    static func image(width: Int, height: Int, format: PixelFormat, seed: UInt64) -> Pixels {
        var p = Pixels.random(width: width, height: height, format: format, seed: seed)
        let n = format.channels.count, m = Double(format.depth.maxValue)
        for y in 0..<height {
            for x in 0..<width {
                for c in 0..<n {
                    let i = (y * width + x) * n + c
                    let noise = Double(p.samples[i]) / m
                    let wave = 0.5 + 0.4 * sin(Double(x) * 0.21 + Double(c)) * cos(Double(y) * 0.13)
                    var v = (x / 7 + y / 5) % 4 == 0 ? noise : wave
                    if format.channels.hasAlpha && c == n - 1 { v = max(0, min(1, 1.2 * wave - 0.2)) }
                    p.samples[i] = Int((v * m).rounded())
                }
            }
        }
        return p
    }

    /// Within 1 level (8-bit) of the definition in Double; premultiplied where alpha is below 1.
    static func compare(_ out: Pixels, _ ref: Reference.Image, linear: Bool = false) -> (max: Double, problems: [String]) {
        compare(out, ref, space: linear ? .linear : .srgb)
    }

    /// As above, the reference's values in `space` (an untagged image's output is sRGB).
    static func compare(_ out: Pixels, _ ref: Reference.Image, space: WorkingSpace) -> (max: Double, problems: [String]) {
        let o = out.rgba.map { Double($0) / Double(out.format.depth.maxValue) }
        #expect(out.width == ref.width && out.height == ref.height)
        var worst = 0.0
        var problems: [String] = []
        for i in 0..<(ref.width * ref.height) {
            let a = min(max(ref.a[i], 0), 1), oa = o[i * 4 + 3]
            let srgb = space == .srgb ? [ref.r[i], ref.g[i], ref.b[i]] : Reference.fromWorking([ref.r[i], ref.g[i], ref.b[i]], space)
            for (c, rv) in srgb.enumerated() {
                let r = min(max(rv, 0), 1)
                let ours = o[i * 4 + c]
                let d = a < 1 ? abs(ours * oa - r * a) * 255 : abs(ours - r) * 255
                worst = max(worst, d)
                if d > 1 && problems.count < 5 { problems.append("pixel \(i) channel \(c): \(ours * 255) vs \(r * 255), alpha \(a)") }
            }
            let d = abs(oa - a) * 255
            worst = max(worst, d)
            if d > 1 && problems.count < 5 { problems.append("pixel \(i) alpha: \(oa * 255) vs \(a * 255)") }
        }
        return (worst, problems)
    }

    @Test(arguments: [
        #"{"width": 37}"#, #"{"height": 29}"#, #"{"scale": 0.3}"#, #"{"scale": 2.2}"#,
        #"{"width": 50, "height": 50}"#, #"{"width": 50, "height": 30, "fit": "cover"}"#,
        #"{"width": 130, "height": 20, "fit": "fill"}"#, #"{"width": 300, "height": 40, "enlarge": false}"#,
        #"{"width": 9}"#, #"{"scale": 0.02}"#,
    ])
    func resizeMatchesTheDefinition(parameters: String) throws {
        let resize = try Self.resize(parameters)
        for (k, format) in Self.formats.enumerated() {
            let input = Self.image(width: 97, height: 61, format: format, seed: UInt64(k + 3))
            for space in WorkingSpace.allCases {
                let chain = Chain(workingSpace: space, [resize])
                // 16-bit output, so that the output's own rounding does not hide an error.
                let out = try Self.renderer.apply(chain, to: input.raster, depth: .sixteen)
                let ref = Reference.apply(chain, to: input)
                let (worst, problems) = Self.compare(Pixels(out), ref, space: space)
                #expect(problems.isEmpty, "\(format) \(space): max \(worst) levels: \(problems)")
            }
            // 8-bit output: within 1 level of the definition (rounding included).
            let chain = Chain([resize])
            let out8 = try Self.renderer.apply(chain, to: input.raster, depth: .eight)
            let (worst8, problems8) = Self.compare(Pixels(out8), Reference.apply(chain, to: input))
            #expect(problems8.isEmpty, "\(format) 8-bit: max \(worst8): \(problems8)")
        }
    }

    /// Pixels are moved exactly: every format, every turn, flips and crops in both units.
    @Test func cropsTurnsAndFlipsMoveEveryPixelExactly() throws {
        let steps: [any Filter] = [
            Crop(x: 3, y: 5, width: 40, height: 20), Crop(x: 0.1, y: 0.25, width: 0.5, height: 0.333, unit: .fraction),
            Crop(x: 0, y: 0, width: 97, height: 61), Rotate(angle: 90), Rotate(angle: 180), Rotate(angle: 270),
            Rotate(angle: -90), Flip(direction: .horizontal), Flip(direction: .vertical),
        ]
        for (k, format) in Self.formats.enumerated() {
            let input = Self.image(width: 97, height: 61, format: format, seed: UInt64(k + 20))
            for step in steps {
                let chain = Chain([step])
                let out = Pixels(try Self.renderer.apply(chain, to: input.raster))
                let ref = Reference.apply(chain, to: input)
                let expected = Reference.encode(ref, format: out.format, linear: false)
                #expect(out.width == ref.width && out.height == ref.height)
                #expect(out.samples == expected, "\(format) \(step.type) \(step.parametersJSON)")
            }
        }
    }

    /// A crop that reaches outside fails the image, naming the step, rectangle and size.
    @Test func cropOutsideTheImageFailsTheImage() throws {
        let input = Pixels.random(width: 100, height: 80, format: PixelFormat(.rgb, .eight)).raster
        var chain = Chain([Resize(width: 50), Crop(x: 10, y: 0, width: 50, height: 20)])
        chain.steps[1].name = "square"
        #expect {
            _ = try Self.renderer.render(chain, image: input, outputs: [RenderOutput(step: 2, .memory())])
        } throws: { error in
            (error as? RenderError)?.description
                == "<memory>: step 2 (square): the rectangle 50x20 at (10, 0) reaches outside the 50x40 image"
        }
    }

    /// Previews of each step come at that step's own size, from one evaluation.
    @Test func everyStepAtItsOwnSize() throws {
        let input = Self.image(width: 120, height: 90, format: PixelFormat(.rgba, .eight), seed: 9).raster
        var blur = GaussianBlur()
        blur.sigma = 1.5
        let chain = Chain([Resize(width: 60), blur, Rotate(angle: 90),
                           Crop(x: 5, y: 5, width: 20, height: 30), Flip(direction: .vertical)])
        let outputs = (0...5).map { RenderOutput(step: $0, .memory()) }
        let result = try Self.renderer.render(chain, image: input, outputs: outputs)
        let sizes = result.images.map { [$0!.width, $0!.height] }
        #expect(sizes == [[120, 90], [60, 45], [60, 45], [45, 60], [20, 30], [20, 30]])
        #expect(result.sizes.map { [$0.width, $0.height] } == sizes)
        for position in 0...5 {
            let alone = try Self.renderer.apply(chain.prefix(through: position), to: input)
            #expect(alone == result.images[position]!, "step \(position)")
        }
    }

    static func resize(_ json: String) throws -> Resize {
        let node = try JSONParser.parse(Array(json.utf8))
        return try Resize.declaration.decode(node)
    }

    static func chainText(_ type: String, _ parameters: String) -> String {
        #"{"version": 1, "filters": [{"id": "0F6C1B9E-3C1A-4D2B-8E57-6A1F0B2C3D41", "type": ""# + type
            + #"", "parameters": "# + parameters + "}]}"
    }
}

/// Geometry never makes results depend on threads or strips: images wide enough that the
/// vertical passes split into several column ranges, blurs on both the direct and the
/// sliding path, and stages of different sizes one after another.
@Suite struct GeometryScheduleTests {
    static let renderers = [(1, 3), (2, 7), (4, 64), (3, 200)].map {
        (label: "\($0.0) threads, strips of \($0.1)", renderer: Renderer(threads: $0.0, stripHeight: $0.1))
    }

    static func blur(_ sigma: Double) -> GaussianBlur {
        var b = GaussianBlur()
        b.sigma = sigma
        return b
    }

    static let chains: [[any Filter]] = [
        [Resize(scale: 0.37), blur(2), Crop(x: 10, y: 3, width: 200, height: 12), blur(20)],
        [blur(1.2), Resize(width: 1000, height: 120, fit: .cover), Flip(direction: .horizontal), blur(18)],
        [Rotate(angle: 90), blur(3), Resize(scale: 1.7), Flip(direction: .vertical), Rotate(angle: 180)],
        [Crop(x: 0.05, y: 0.1, width: 0.9, height: 0.7, unit: .fraction), Resize(height: 90), blur(25), Rotate(angle: 270)],
    ]

    @Test(arguments: chains.indices)
    func sameBytesForEveryThreadCountAndStripHeight(chain index: Int) throws {
        for format in [PixelFormat(.rgba, .eight), PixelFormat(.rgb, .sixteen)] where format.depth == .eight || index % 2 == 0 {
            // 704 wide: 88 blocks of 8 columns, split into 2 to 5 ranges by 1 to 4 threads.
            let input = GeometryTests.image(width: 704, height: 48, format: format, seed: 31).raster
            let chain = Chain(Self.chains[index])
            let outputs = (0...chain.steps.count).map { RenderOutput(step: $0, .memory()) }
            let first = try Self.renderers[0].renderer.render(chain, image: input, outputs: outputs).images
            for (label, renderer) in Self.renderers.dropFirst() {
                let other = try renderer.render(chain, image: input, outputs: outputs).images
                #expect(other == first, "\(label), \(format)")
            }
        }
    }
}

/// `fast: true`: a JPEG decoded at 1/2, 1/4 or 1/8 (DCT scaling), only where allowed, and
/// close to the exact result on photographs.
@Suite struct ShrinkOnLoadTests {
    static let renderer = Renderer(threads: 2)

    static func psnr(_ a: RasterImage, _ b: RasterImage) -> Double {
        let x = Pixels(a).samples, y = Pixels(b).samples
        let mse = zip(x, y).reduce(0.0) { $0 + Double(($1.0 - $1.1) * ($1.0 - $1.1)) } / Double(x.count)
        return 10 * log10(255 * 255 / mse)
    }

    /// A JPEG made from a photograph, at high quality.
    static func jpeg(from png: String, in folder: URL) throws -> String {
        let path = folder.appendingPathComponent((png as NSString).lastPathComponent + ".jpg").path
        let (pixels, _) = try Pixels.read(TestData.shared.appendingPathComponent("images/" + png).path)
        try pixels.write(to: .file(path), format: .jpeg, options: EncodeOptions(quality: 95))
        return path
    }

    @Test func photographsWithin40dBOfTheExactResize() throws {
        let folder = TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let images = TestData.shared.appendingPathComponent("images")
        let cases: [(String, Resize, Int)] = [
            (images.appendingPathComponent("rocket.jpg").path, Resize(width: 100, fast: true), 2),
            (images.appendingPathComponent("hubble_deep_field.jpg").path, Resize(width: 200, height: 200, fast: true), 2),
            (try Self.jpeg(from: "coffee.png", in: folder), Resize(width: 30, fast: true), 8),
            (try Self.jpeg(from: "astronaut.png", in: folder), Resize(width: 60, height: 40, fit: .cover, fast: true), 4),
            (try Self.jpeg(from: "chelsea.png", in: folder), Resize(scale: 0.2, fast: true), 2),
        ]
        for (path, resize, denominator) in cases {
            var exact = resize
            exact.fast = false
            let fast = try Self.renderer.render(Chain([resize]), source: .file(path), outputs: [RenderOutput(step: 1, .memory())])
            let slow = try Self.renderer.render(Chain([exact]), source: .file(path), outputs: [RenderOutput(step: 1, .memory())])
            #expect(fast.shrunkOnLoad == denominator, "\(path)")
            #expect(slow.shrunkOnLoad == 1)
            let a = fast.images[0]!, b = slow.images[0]!
            #expect(a.width == b.width && a.height == b.height, "the size follows the full image's")
            let db = Self.psnr(a, b)
            #expect(db >= 40, "\(path): \(db) dB")
        }
    }

    @Test func onlyWhereTheChainAllowsIt() throws {
        let rocket = TestData.shared.appendingPathComponent("images/rocket.jpg").path
        let fast = Resize(width: 100, fast: true)
        var off = Resize(width: 100, fast: true)
        off.fast = false
        var disabled = Step(filter: GaussianBlur())
        disabled.enabled = false
        func shrink(_ chain: Chain, outputs: [Int] = [], source: String = rocket) throws -> Int {
            let outs = (outputs.isEmpty ? [chain.steps.count] : outputs).map { RenderOutput(step: $0, .memory()) }
            return try Self.renderer.render(chain, source: .file(source), outputs: outs).shrunkOnLoad
        }
        #expect(try shrink(Chain([fast])) == 2)
        #expect(try shrink(Chain(steps: [disabled, Step(filter: fast)])) == 2, "the first enabled step")
        #expect(try shrink(Chain([off])) == 1, "fast: false")
        #expect(try shrink(Chain(workingSpace: .linear, [fast])) == 1, "linear chains")
        #expect(try shrink(Chain([fast]), outputs: [0, 1]) == 1, "a preview before it")
        #expect(try shrink(Chain([ColorControls(), fast])) == 1, "not the first step")
        #expect(try shrink(Chain([fast]), source: TestData.shared.appendingPathComponent("images/coffee.png").path) == 1, "PNG")
    }
}

/// Previews run on a scaled copy: sizes and rectangles in pixels follow the scale.
@Suite struct GeometryPreviewScaleTests {
    @Test func pixelsScaleFractionsStay() throws {
        let crop = Crop(x: 10, y: 5, width: 41, height: 21).scaled(by: 0.5)
        #expect([crop.x, crop.y, crop.width!, crop.height!] == [5, 2, 20, 10])
        let tiny = Crop(x: 3, y: 3, width: 1, height: 1).scaled(by: 0.25)
        #expect([tiny.x, tiny.y, tiny.width!, tiny.height!] == [0, 0, 1, 1])
        let fraction = Crop(x: 0.1, y: 0.2, width: 0.5, height: 0.5, unit: .fraction)
        #expect(fraction.scaled(by: 0.25).parametersJSON == fraction.parametersJSON)
        let resize = Resize(width: 800, height: 600, fit: .cover).scaled(by: 0.25)
        #expect(resize.width == 200 && resize.height == 150 && resize.fit == .cover)
        #expect(Resize(scale: 0.5).scaled(by: 0.25).scale == 0.5, "a scale is not in pixels")
        let chain = Chain([Resize(width: 800), Crop(x: 100, y: 40, width: 400, height: 200)]).scaledForPreview(by: 0.5)
        #expect((chain.steps[0].filter as? Resize)?.width == 400)
        #expect((chain.steps[1].filter as? Crop)?.width == 200)
    }

    /// A crop that fits the full image still fits the scaled copy.
    @Test func scaledCropsStillFit() throws {
        var rng = SeededRandom(3)
        for _ in 0..<500 {
            let w = Int.random(in: 1...400, using: &rng), h = Int.random(in: 1...400, using: &rng)
            let cw = Int.random(in: 1...w, using: &rng), ch = Int.random(in: 1...h, using: &rng)
            let crop = Crop(x: Double(Int.random(in: 0...(w - cw), using: &rng)), y: Double(Int.random(in: 0...(h - ch), using: &rng)),
                            width: Double(cw), height: Double(ch))
            let s = Double.random(in: 0.05...1, using: &rng)
            let scaled = ImageSize(width: max(1, Int((Double(w) * s).rounded())), height: max(1, Int((Double(h) * s).rounded())))
            let r = crop.scaled(by: s).rectangle(in: scaled)
            let fits = r.x + r.width <= scaled.width && r.y + r.height <= scaled.height
            // Only the 1-pixel minimum can push past the edge of a tiny copy.
            #expect(fits || r.width == 1 || r.height == 1, "\(crop.parametersJSON) at \(s) on \(scaled): \(r)")
        }
    }
}
