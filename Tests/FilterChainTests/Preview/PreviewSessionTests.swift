import Foundation
import Testing
@testable import FilterChain

@Suite struct PreviewSessionTests {
    /// A smooth RGB test image with some detail: 16-bit, so caching adds no rounding of its own.
    static func image(width: Int, height: Int, alpha: Bool = false) throws -> RasterImage {
        let channels: Channels = alpha ? .rgba : .rgb
        var samples: [Int] = []
        samples.reserveCapacity(width * height * channels.count)
        for y in 0..<height {
            for x in 0..<width {
                let fx = Double(x) / Double(width), fy = Double(y) / Double(height)
                let stripes = (x / 8 + y / 8) % 2 == 0 ? 0.15 : 0
                samples.append(Int((0.2 + 0.6 * fx + stripes) * 65535 * 0.9))
                samples.append(Int((0.3 + 0.5 * fy) * 65535))
                samples.append(Int((0.5 + 0.4 * sin(fx * 9) * fy) * 65535))
                if alpha { samples.append(x < width / 3 ? 65535 : 30000) }
            }
        }
        return try RasterImage(width: width, height: height, format: PixelFormat(channels, .sixteen), samples: samples)
    }

    /// Values stay inside 0...1 between its steps on these images, so the cache's clamping
    /// (documented) does not come into play.
    static func chain() -> Chain {
        var colour = ColorControls()
        colour.saturation = 1.1
        colour.contrast = 1.05
        var curve = ToneCurve()
        curve.points = [CurvePoint(0, 0), CurvePoint(0.5, 0.6), CurvePoint(1, 1)]
        var blur = GaussianBlur()
        blur.sigma = 3
        return Chain([colour, curve, blur, ColorControls()])
    }

    static func maxDifference(_ a: RasterImage, _ b: RasterImage) -> Int {
        precondition(a.width == b.width && a.height == b.height && a.format == b.format)
        return zip(a.samples, b.samples).map { abs($0 - $1) }.max() ?? 0
    }

    @Test func downscaleAveragesBoxesWeightedByAlpha() throws {
        // 4x2 RGBA 8-bit to 2x1: each output pixel is the alpha-weighted mean of a 2x2 box.
        let samples = [255, 0, 0, 255, 0, 0, 255, 0, 10, 20, 30, 255, 10, 20, 30, 255,
                       255, 0, 0, 255, 0, 0, 255, 0, 10, 20, 30, 255, 10, 20, 30, 255]
        let image = try RasterImage(width: 4, height: 2, format: PixelFormat(.rgba, .eight), samples: samples)
        let small = try image.downscaled(toFit: 2)
        #expect(small.width == 2 && small.height == 1)
        #expect(small.format == PixelFormat(.rgba, .sixteen))
        // Left box: two opaque red pixels and two transparent blue ones: red at half alpha.
        #expect(Array(small.samples[0..<4]) == [65535, 0, 0, 32768])
        let expected = [10, 20, 30].map { Int((Double($0) / 255 * 65535).rounded()) }
        #expect(Array(small.samples[4..<7]) == expected)
        #expect(small.samples[7] == 65535)
    }

    @Test func aSessionOnAFileDecodesItOnce() throws {
        let session = try PreviewSession(source: .file(TestData.samples.appendingPathComponent("chelsea.png").path),
                                         maxSize: 150, renderer: Renderer(threads: 2))
        // chelsea.png is 451 x 300.
        #expect(session.image.width == 150 && session.image.height == 100)
        #expect(abs(session.scale - 150.0 / 451) < 1e-12)
    }

    @Test func anImageThatFitsIsNotScaled() throws {
        let image = try Self.image(width: 40, height: 30)
        let session = try PreviewSession(image: image, maxSize: 64, renderer: Renderer(threads: 2))
        #expect(session.scale == 1)
        #expect(session.image == image)
    }

    /// Every position, asked for in any order and with edits in between, gives what a render
    /// of the whole prefix from the scaled input gives (the reference: no cache at all).
    @Test func cachedRendersEqualRendersFromScratch() throws {
        let renderer = Renderer(threads: 2, stripHeight: 7)
        let session = try PreviewSession(image: try Self.image(width: 120, height: 90), maxSize: 120, renderer: renderer)
        var chain = Self.chain()
        func check(_ positions: [Int]) throws {
            let got = try session.render(chain, at: positions)
            for (p, image) in zip(positions, got) {
                let reference = try renderer.apply(chain, to: session.image, step: p, depth: .sixteen)
                // A cached position rounds to 16 bits once more than the straight render.
                #expect(Self.maxDifference(image, reference) <= 2, "position \(p)")
            }
        }
        try check([2, 4])
        try check([4, 0, 1, 3])
        chain = try chain.settingParameter(at: 2, "sigma", 5)
        try check([3, 4])
        chain.steps[1].enabled = false
        try check([2, 4])
        chain.steps.swapAt(0, 1)
        try check([1, 2, 3, 4])
    }

    /// A graph (issue 20): the source screened with its own blur, an exposure through a
    /// radial mask, a logo (a chain image) over the corner. Its steps read steps further up,
    /// so every position, in any order and after edits of a mask, an input and a name that a
    /// reference uses, gives what a straight render of the chain gives, never a stale image.
    @Test func graphRendersEqualRendersFromScratch() throws {
        let renderer = Renderer(threads: 2, stripHeight: 5)
        let session = try PreviewSession(image: try Self.image(width: 120, height: 90), maxSize: 120, renderer: renderer)
        var blur = GaussianBlur()
        blur.sigma = 4
        var exposure = Exposure()
        exposure.ev = 0.5
        let logo = try Self.image(width: 30, height: 16, alpha: true)
        var chain = Chain(images: [ChainImage(name: "logo", file: "logo.png", image: logo)], steps: [
            Step(name: "soft", filter: blur),
            Step(name: "glow", filter: Blend(layer: "soft", mode: .screen, opacity: 0.6), input: .source),
            Step(filter: exposure, mask: Mask(.radial(center: ImagePoint(0.5, 0.45), radius: 0.5, feather: 0.4))),
            Step(filter: Blend(layer: "logo", opacity: 0.8, placement: Placement(gravity: .southEast, offset: (x: 6, y: 4)))),
        ])
        func check(_ positions: [Int]) throws {
            let got = try session.render(chain, at: positions)
            for (p, image) in zip(positions, got) {
                let reference = try renderer.apply(chain, to: session.image, step: p, depth: .sixteen)
                #expect(Self.maxDifference(image, reference) <= 2, "position \(p)")
            }
        }
        try check([4, 1])
        try check([2, 3, 0])
        chain.steps[2].mask = Mask(.radial(center: ImagePoint(0.2, 0.7), radius: 0.3, feather: 0.9), invert: true)
        try check([3, 4])
        chain.steps[1].input = "soft"  // the blur screened over itself
        try check([2, 4])
        chain.steps[0].name = "blurred"
        chain.steps[1].filter = Blend(layer: "blurred", mode: .multiply, opacity: 1)
        chain.steps[1].input = .source
        try check([4, 2])
    }

    /// Where the editor draws a node changes no pixel: moving it keeps every cached image.
    @Test func movingANodeInTheGraphViewKeepsTheCache() throws {
        let session = try PreviewSession(image: try Self.image(width: 64, height: 48), renderer: Renderer(threads: 2))
        var blur = GaussianBlur()
        blur.sigma = 2
        var chain = Chain(steps: [Step(name: "soft", filter: blur),
                                  Step(filter: Blend(layer: "soft", mode: .screen), input: .source)])
        let first = try session.render(chain, at: [1, 2])
        #expect(session.lastStart == 0)
        chain.layout[chain.steps[1].id] = NodePosition(300, 40)
        chain.layout[chain.steps[0].id] = NodePosition(10, 10)
        let again = try session.render(chain, at: [1, 2])
        #expect(session.lastStart == 2)  // nothing ran: both came from the cache
        #expect(again.map(\.pixels) == first.map(\.pixels))
        // A real edit still renders.
        chain.steps[1].filter = Blend(layer: "soft", mode: .multiply)
        _ = try session.render(chain, at: [2])
        #expect(session.lastStart == 0)
    }

    @Test func anEditOfStepNRendersFromTheCachedImageBeforeIt() throws {
        let session = try PreviewSession(image: try Self.image(width: 64, height: 48), renderer: Renderer(threads: 2))
        var chain = Self.chain()
        _ = try session.render(chain, at: [3])
        #expect(session.lastStart == 0)
        _ = try session.render(chain, at: [4])
        #expect(session.lastStart == 3)
        // Editing step 3 (the blur): steps 1 and 2 are not run again.
        chain = try chain.settingParameter(at: 2, "sigma", 1)
        _ = try session.render(chain, at: [3])
        #expect(session.lastStart == 2)
        _ = try session.render(chain, at: [4])
        #expect(session.lastStart == 3)
        // Editing step 1 invalidates everything after it.
        chain = try chain.settingParameter(at: 0, "brightness", 0.1)
        _ = try session.render(chain, at: [3, 4])
        #expect(session.lastStart == 0)
    }

    /// A preview of a blur on a copy scaled by 1/4 looks like the full-size blur scaled down
    /// (the reference: render at full size, then downscale).
    @Test(arguments: [4.0, 12.0])
    func pixelParametersFollowThePreviewScale(sigma: Double) throws {
        let renderer = Renderer(threads: 2)
        let full = try Self.image(width: 256, height: 192)
        var blur = GaussianBlur()
        blur.sigma = sigma
        let chain = Chain([blur])
        let session = try PreviewSession(image: full, maxSize: 64, renderer: renderer)
        #expect(session.scale == 0.25)
        let preview = try session.render(chain, at: [1])[0]
        let reference = try renderer.apply(chain, to: full, depth: .sixteen).downscaled(toFit: 64)
        let unscaled = try renderer.apply(chain, to: session.image, depth: .sixteen)
        let scaledError = Self.meanDifference(preview, reference)
        let unscaledError = Self.meanDifference(unscaled, reference)
        // Within a level in 8 bits on average, and much closer than the blur left at full sigma.
        #expect(scaledError < 257)
        #expect(scaledError * 3 < unscaledError)
    }

    static func meanDifference(_ a: RasterImage, _ b: RasterImage) -> Double {
        let d = zip(a.samples, b.samples).map { Double(abs($0 - $1)) }
        return d.reduce(0, +) / Double(d.count)
    }

    @Test func onlyPixelParametersAreScaled() throws {
        var blur = GaussianBlur()
        blur.sigma = 8
        var colour = ColorControls()
        colour.brightness = 0.5
        let chain = Chain([colour, blur])
        let scaled = chain.scaledForPreview(by: 0.25)
        #expect((scaled.steps[1].filter as! GaussianBlur).sigma == 2)
        #expect((scaled.steps[0].filter as! ColorControls).brightness == 0.5)
        #expect(scaled.steps.map(\.id) == chain.steps.map(\.id))
        #expect(GaussianBlur.declaration.parameters.first { $0.name == "sigma" }?.unit == .pixels)
        #expect(ColorControls.declaration.parameters.allSatisfy { $0.unit == nil })
    }

    /// A render for another chain cancels the one waiting for its turn: that one throws
    /// RenderCancelled instead of running.
    @Test func aNewerChainCancelsAWaitingRender() throws {
        let session = try PreviewSession(image: try Self.image(width: 64, height: 48), renderer: Renderer(threads: 2))
        let chain = Self.chain()
        session.holdForTesting()
        let waiting = Thread.detachedResult { try session.render(chain, at: [4]) }
        while session.waitingRenders < 1 { usleep(1000) }
        var other = chain
        other.steps[0].enabled = false
        let newer = Thread.detachedResult { [other] in try session.render(other, at: [4]) }
        while session.waitingRenders < 2 { usleep(1000) }
        session.releaseForTesting()
        #expect(throws: RenderCancelled.self) { try waiting.get() }
        let image = try newer.get()[0]
        let reference = try session.renderer.apply(other, to: session.image, depth: .sixteen)
        #expect(Self.maxDifference(image, reference) <= 2)
    }
}

extension Chain {
    func settingParameter(at index: Int, _ name: String, _ value: Double) throws -> Chain {
        var copy = self
        try copy.setParameter(at: index, name, to: JSONNode(.number(value)), file: "test")
        return copy
    }
}

/// The result of work on another thread, waited for. (@unchecked Sendable: `result` is written
/// before `done` is signalled, and read only after waiting on it.)
final class DetachedResult<T>: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private var result: Result<T, any Error>?

    init(_ work: @escaping @Sendable () throws -> T) {
        Thread.detachNewThread { [self] in
            result = Result { try work() }
            done.signal()
        }
    }

    func get() throws -> T {
        done.wait()
        return try result!.get()
    }
}

extension Thread {
    static func detachedResult<T>(_ work: @escaping @Sendable () throws -> T) -> DetachedResult<T> { DetachedResult(work) }
}
