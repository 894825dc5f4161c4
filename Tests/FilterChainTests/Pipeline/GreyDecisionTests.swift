import Foundation
import Testing
@testable import FilterChain

/// A grey input's file output is grey exactly when every stored pixel is neutral, decided
/// by a first pass over the image (fixed memory) when the chain may not keep pixels neutral.
@Suite struct GreyDecisionTests {
    static let renderer = Renderer(threads: 2, stripHeight: 4)

    /// Equal curves on every channel below 0.5; above 0.8 the blue one differs.
    static var curve: ToneCurve {
        var t = ToneCurve()
        let shared = [CurvePoint(0, 0.2), CurvePoint(0.5, 0.6), CurvePoint(0.8, 0.85)]
        t.red = shared + [CurvePoint(1, 1)]
        t.green = shared + [CurvePoint(1, 1)]
        t.blue = shared + [CurvePoint(1, 0.9)]
        return t
    }

    /// A grey image at 0.25, with its last row at `last`.
    static func image(last: Int, format: PixelFormat) -> RasterImage {
        let m = format.depth.maxValue
        var samples: [Int] = []
        for y in 0..<23 {
            for _ in 0..<17 {
                samples.append(y == 22 ? last * m / 255 : 64 * m / 255)
                if format.channels.hasAlpha { samples.append(m) }
            }
        }
        return Pixels(width: 17, height: 23, format: format, samples: samples).raster
    }

    @Test(arguments: [ImageFormat.png, .jpeg], [PixelFormat(.grey, .eight), PixelFormat(.greyAlpha, .sixteen)])
    func fileIsGreyOnlyWhenEveryPixelIsNeutral(output: ImageFormat, input: PixelFormat) throws {
        let folder = TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let chain = Chain([Self.curve])
        #expect(!Self.curve.keepsNeutralNeutral)
        for (last, grey) in [(64, true), (255, false)] {
            let path = folder.appendingPathComponent("out." + (output == .png ? "png" : "jpg")).path
            let image = Self.image(last: last, format: input)
            _ = try Self.renderer.render(chain, image: image,
                                         outputs: [RenderOutput(step: 1, .file(.file(path), EncodeOptions()))])
            let (written, info) = try Pixels.read(path)
            #expect(info.format.channels.isGrey == grey, "last row \(last), \(output), \(input)")
            if output == .png {
                // The same samples as the image rendered in memory, grey or not.
                let inMemory = Pixels(try Self.renderer.apply(chain, to: image))
                #expect(written.rgba == inMemory.rgba)
            }
            // Only the output: the first pass wrote nothing.
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path).count == 1)
        }
    }

    /// The first pass's rows are kept, so the image is decoded once, whether the pass read it
    /// all (grey) or stopped at the first coloured pixel; the file is what a render of the same
    /// image from memory gives.
    @Test(arguments: [PixelFormat(.grey, .eight), PixelFormat(.greyAlpha, .sixteen)])
    func aGreyDecisionDecodesTheImageOnce(input: PixelFormat) throws {
        let folder = TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let chain = Chain([Self.curve])
        for (last, grey) in [(64, true), (255, false)] {
            let source = folder.appendingPathComponent("in.png").path
            let image = Self.image(last: last, format: input)
            try Pixels(image).write(to: .file(source), format: .png)
            let out = folder.appendingPathComponent("out.png").path
            var opens = 0
            _ = try Self.renderer.render(open: {
                opens += 1
                return try Renderer.Opened(try ImageReader.open(.file(source)), resolving: chain)
            }, formats: [.png], outputs: [RenderOutput(step: 1, .file(.file(out), EncodeOptions()))], cancel: nil, order: 0)
            #expect(opens == 1, "last row \(last), \(input)")
            let (written, info) = try Pixels.read(out)
            #expect(info.format.channels.isGrey == grey)
            #expect(written.rgba == Pixels(try Self.renderer.apply(chain, to: image)).rgba)
        }
    }

    /// What a recording hands out again is what was read, then the rest of the source; past
    /// its limit it keeps nothing and says so.
    @Test func aRecordingReplaysItsRowsThenReadsOn() throws {
        let image = Pixels.random(width: 5, height: 9, format: PixelFormat(.greyAlpha, .sixteen), seed: 7).raster
        let rowBytes = image.rowBytes
        let stride = rowBytes + 6
        func rows(_ source: PixelSource, _ counts: [Int]) throws -> [[UInt8]] {
            var all: [[UInt8]] = []
            for count in counts {
                var buffer = [UInt8](repeating: 0xEE, count: stride * count)
                try buffer.withUnsafeMutableBytes { try source.read(into: $0.baseAddress!, stride: stride, rows: count) }
                for r in 0..<count { all.append(Array(buffer[r * stride..<r * stride + rowBytes])) }
            }
            return all
        }
        let expected = try rows(RasterSource(image), [9])
        let recording = RecordingSource(RasterSource(image), limit: 4 * rowBytes)
        #expect(try rows(recording, [3, 1]) == Array(expected[0..<4]))
        let replay = try #require(recording.replay())
        #expect(try rows(replay, [2, 4, 3]) == expected)
        let over = RecordingSource(RasterSource(image), limit: 4 * rowBytes)
        _ = try rows(over, [3, 2])
        #expect(over.replay() == nil)
    }
}
