import Foundation
import Testing
@testable import FilterChain

/// The pipeline alone decides the schedule, and the schedule never changes a result.
@Suite struct ScheduleTests {
    static func chain(sigmas: [Double], space: WorkingSpace = .srgb) -> Chain {
        var c = ColorControls()
        c.saturation = 1.4; c.contrast = 1.1; c.brightness = 0.02
        var t = ToneCurve()
        t.points = [CurvePoint(0, 0.05), CurvePoint(0.4, 0.35), CurvePoint(1, 0.97)]
        var steps: [any Filter] = [c]
        for s in sigmas {
            var b = GaussianBlur()
            b.sigma = s
            steps += [b, t]
        }
        return Chain(workingSpace: space, steps)
    }

    static let renderers = [(1, 1), (1, 32), (2, 5), (2, 7), (4, 64), (3, 200)].map {
        (label: "\($0.0) threads, strips of \($0.1)", renderer: Renderer(threads: $0.0, stripHeight: $0.1))
    }

    /// Sigmas for both kinds of blur pass (direct up to a reach of 16, sliding cosine sums
    /// beyond), and widths whose vertical passes are cut into different column ranges by
    /// different thread counts: a vertical pass splits its row into
    /// max(1, min(blocks, 2 x threads, blocks / 16)) ranges of 8-column blocks, so 77 wide
    /// (10 blocks) is never split, 301 wide (38 blocks) is cut in 2 for every renderer here,
    /// and 1030 wide (129 blocks) in 2, 4, 6 or 8 by 1, 2, 3 or 4 threads, with ranges that
    /// do not end on 32 columns (the direct pass's wide block) or 8 (its tail).
    @Test(arguments: [[2.0], [7.5], [1.0, 20], [3, 0.7, 5]])
    func sameBytesForEveryThreadCountAndStripHeight(sigmas: [Double]) throws {
        #expect(sigmas.contains { GaussianKernel(sigma: $0).sliding != nil } == sigmas.contains { $0 > 4 })
        for (width, height) in [(77, 131), (301, 75), (1030, 41)] {
            for format in [PixelFormat(.rgba, .eight), PixelFormat(.rgb, .sixteen)] {
                let input = Pixels.random(width: width, height: height, format: format, seed: 11).raster
                let chain = Self.chain(sigmas: sigmas)
                let positions = Array(0...chain.steps.count)
                let outputs = positions.map { RenderOutput(step: $0, .memory()) }
                let first = try Self.renderers[0].renderer.render(chain, image: input, outputs: outputs).images
                for (label, renderer) in Self.renderers.dropFirst() {
                    let other = try renderer.render(chain, image: input, outputs: outputs).images
                    #expect(other == first, "\(label), \(format), \(width)x\(height)")
                }
            }
        }
    }

    /// Every pass kind is planned: direct and sliding, horizontal and vertical.
    @Test func bothBlurPassKindsArePlanned() {
        #expect(GaussianKernel(sigma: 4).makeHorizontalPass(width: 10) is DirectHorizontal)
        #expect(GaussianKernel(sigma: 4).makeVerticalPass(width: 10, height: 5) is DirectVertical)
        #expect(GaussianKernel(sigma: 4.01).makeHorizontalPass(width: 10) is SlidingHorizontal)
        #expect(GaussianKernel(sigma: 4.01).makeVerticalPass(width: 10, height: 5) is SlidingVertical)
    }

    /// PNG files written through the pipeline (many 512 KiB pieces deflated in the background,
    /// their buffers reused) decode to exactly the image rendered in memory, with a preview
    /// beside the output, and are the same bytes for every thread count and strip height.
    @Test func pngFilesOfManyPiecesEqualTheImageInMemory() throws {
        let chain = Self.chain(sigmas: [2.5])
        let folder = NSTemporaryDirectory() + "filterchain-schedule-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // 16-bit RGBA 300 wide: 2400 bytes a row, 218 rows a piece, 5 pieces; 8-bit RGB 700
        // wide: 249 rows a piece, 4 pieces.
        for (format, width, height) in [(PixelFormat(.rgba, .sixteen), 300, 1000), (PixelFormat(.rgb, .eight), 700, 800)] {
            let input = Pixels.random(width: width, height: height, format: format, seed: 5).raster
            let expected = try Renderer(threads: 1, stripHeight: 32).render(
                chain, image: input, outputs: [RenderOutput(step: chain.steps.count, .memory()), RenderOutput(step: 1, .memory())]).images
            var firstBytes: [Data]?
            for (label, renderer) in Self.renderers.dropFirst(2) {
                let paths = [folder + "/out.png", folder + "/preview.png"]
                let outputs = [RenderOutput(step: chain.steps.count, .file(.file(paths[0]), EncodeOptions())),
                               RenderOutput(step: 1, .file(.file(paths[1]), EncodeOptions()))]
                _ = try renderer.render(chain, image: input, outputs: outputs)
                for (i, path) in paths.enumerated() {
                    let decoded = try ImageReader.open(.file(path))
                    let pixels = try decoded.readAll()
                    #expect(decoded.info.format == expected[i]!.format && pixels == expected[i]!.pixels, "\(label), \(format), output \(i)")
                }
                let bytes = try paths.map { try Data(contentsOf: URL(fileURLWithPath: $0)) }
                if let firstBytes { #expect(bytes == firstBytes, "\(label), \(format)") } else { firstBytes = bytes }
            }
        }
    }

    /// Every preview equals the final image of the chain cut after that step.
    @Test func previewsEqualTheCutChain() throws {
        var chain = Self.chain(sigmas: [2, 9])
        chain.steps[2].enabled = false
        let renderer = Renderer(threads: 2, stripHeight: 8)
        let input = Pixels.random(width: 50, height: 45, format: PixelFormat(.rgba, .eight), seed: 2).raster
        let outputs = (0...chain.steps.count).reversed().map { RenderOutput(step: $0, .memory()) }
        let all = try renderer.render(chain, image: input, outputs: outputs).images
        for (i, output) in outputs.enumerated() {
            let cut = try renderer.apply(chain.prefix(through: output.step), to: input)
            #expect(all[i] == cut, "step \(output.step)")
        }
        #expect(all.last! == input, "step 0 is the decoded input")
    }

    @Test func imagesSmallerThanTheBlurAndOneRowHigh() throws {
        for (w, h) in [(1, 1), (1, 9), (9, 1), (3, 2), (8, 8), (17, 3)] {
            let input = Pixels.random(width: w, height: h, format: PixelFormat(.rgba, .eight), seed: UInt64(w * 100 + h))
            for sigma in [1.0, 6] {
                var b = GaussianBlur()
                b.sigma = sigma
                let out = try Self.renderers[2].renderer.apply(Chain([b]), to: input.raster)
                let expected = Reference.encode(Reference.apply(Chain([b]), to: input), format: out.format, linear: false)
                let d = differences(Pixels(out).samples, expected)
                #expect(d.max <= 2, "\(w)x\(h) sigma \(sigma)")
            }
        }
    }

    @Test func greyStaysGreyOnlyWhenEveryPixelIsNeutral() throws {
        let renderer = Renderer(threads: 2, stripHeight: 4)
        let grey = Pixels.random(width: 20, height: 10, format: PixelFormat(.greyAlpha, .sixteen), seed: 8).raster
        var neutral = ToneCurve()
        neutral.points = [CurvePoint(0, 0.1), CurvePoint(1, 0.9)]
        #expect(try renderer.apply(Chain([neutral, ColorControls()]), to: grey).format == PixelFormat(.greyAlpha, .sixteen))
        var tinted = ToneCurve()
        tinted.red = [CurvePoint(0, 0.2), CurvePoint(1, 1)]
        #expect(try renderer.apply(Chain([tinted]), to: grey).format == PixelFormat(.rgba, .sixteen))
        // Equal per-channel curves keep R = G = B: decided from the pixels, grey again.
        var equal = ToneCurve()
        equal.red = [CurvePoint(0, 0.2), CurvePoint(1, 1)]
        equal.green = [CurvePoint(0, 0.2), CurvePoint(1, 1)]
        equal.blue = [CurvePoint(0, 0.2), CurvePoint(1, 1)]
        #expect(try renderer.apply(Chain([equal]), to: grey).format == PixelFormat(.greyAlpha, .sixteen))
        var almost = equal
        almost.blue = [CurvePoint(0, 0.2), CurvePoint(1, 0.999)]
        #expect(try renderer.apply(Chain([almost]), to: grey).format == PixelFormat(.rgba, .sixteen))
        #expect(try renderer.apply(Chain([]), to: grey, depth: .eight).format == PixelFormat(.greyAlpha, .eight))
    }
}
