import Foundation
import Testing
@testable import FilterChain

/// GIF and animated WebP, frame by frame: decoded frames against the plain compositing rule
/// (TestGIF, files written byte by byte), round trips through both writers, bad files, and a
/// chain run on every frame. libvips 8.18 reads the same files in Tests/Oracle/test_animation.py.
@Suite struct AnimationTests {
    static let palette: [[UInt8]] = [[0, 0, 0], [255, 0, 0], [0, 200, 0], [0, 0, 255], [250, 250, 40], [90, 30, 160]]

    static func folder() throws -> String {
        let folder = NSTemporaryDirectory() + "fc-anim-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    static func rect(_ x: Int, _ y: Int, _ w: Int, _ h: Int, seed: Int) -> [UInt8] {
        (0..<(w * h)).map { UInt8(($0 * 7 + $0 / w * 3 + seed) % 6) }
    }

    /// Every disposal, transparency, a local table, interlacing, an index past its table.
    static let frames: [TestGIF.Frame] = [
        TestGIF.Frame(x: 0, y: 0, width: 20, height: 15, indices: rect(0, 0, 20, 15, seed: 0), delay: 10),
        TestGIF.Frame(x: 3, y: 2, width: 8, height: 6, indices: rect(3, 2, 8, 6, seed: 1), transparent: 0, disposal: 1, delay: 20),
        TestGIF.Frame(x: 10, y: 5, width: 9, height: 9, indices: rect(10, 5, 9, 9, seed: 2), transparent: 2, disposal: 2, delay: 5,
                      interlaced: true),
        TestGIF.Frame(x: 1, y: 8, width: 12, height: 5, indices: rect(1, 8, 12, 5, seed: 3),
                      palette: [[10, 20, 30], [40, 50, 60], [70, 80, 90], [100, 110, 120]], disposal: 3, delay: 0),
        TestGIF.Frame(x: 0, y: 0, width: 4, height: 4, indices: [0, 1, 2, 3, 4, 5, 7, 7, 1, 1, 1, 1, 2, 2, 2, 2], disposal: 0, delay: 3),
        TestGIF.Frame(x: 15, y: 10, width: 5, height: 5, indices: rect(15, 10, 5, 5, seed: 5), transparent: 5, delay: 100),
    ]

    static func pixels(_ image: RasterImage) -> [UInt8] { image.pixels }

    @Test func framesAreCompositedAsBrowsersShowThem() throws {
        let bytes = TestGIF.make(width: 20, height: 15, global: Self.palette, loop: 2, frames: Self.frames)
        let reader = try AnimationReader(.bytes(bytes, name: "t.gif"))
        #expect(reader.info.format == PixelFormat(.rgba, .eight))
        #expect(reader.animation.delays == [100, 200, 50, 0, 30, 1000])
        #expect(reader.animation.loopCount == 3, "a NETSCAPE count of 2 repeats twice after the first play")
        let expected = TestGIF.composite(width: 20, height: 15, global: Self.palette, frames: Self.frames)
        for (k, want) in expected.enumerated() {
            #expect(try reader.nextFrame().pixels == want, "frame \(k)")
        }
        #expect(throws: RenderError.self) { try reader.nextFrame() }
        // The still reader gives the first frame, and says the rest were not read.
        let still = try ImageReader.open(.bytes(bytes, name: "t.gif"))
        #expect(try still.readAll() == expected[0])
        #expect(still.notices == ["t.gif: an animation of 6 frames: only the first frame was read"])
        #expect(still.info.animation?.frameCount == 6)
    }

    @Test func anAnimationThatStaysOpaqueReadsAsRGB() throws {
        let frames = [Self.frames[0], Self.frames[1], Self.frames[4]]
        let bytes = TestGIF.make(width: 20, height: 15, global: Self.palette, loop: nil, frames: frames)
        let reader = try AnimationReader(.bytes(bytes, name: "o.gif"))
        #expect(reader.info.format == PixelFormat(.rgb, .eight))
        #expect(reader.animation.loopCount == 1, "no loop block: shown once")
        for want in TestGIF.composite(width: 20, height: 15, global: Self.palette, frames: frames) {
            let rgb = stride(from: 0, to: want.count, by: 4).flatMap { want[$0..<($0 + 3)] }
            #expect(try reader.nextFrame().pixels == rgb)
        }
    }

    /// Frames of few colours, shapes moving over a transparent background.
    static func movingFrames(_ count: Int, width: Int = 40, height: Int = 30, alpha: Bool = true) throws -> [RasterImage] {
        try (0..<count).map { k in
            var p = [UInt8](repeating: 0, count: width * height * 4)
            for y in 0..<height {
                for x in 0..<width {
                    let at = (y * width + x) * 4
                    let inBox = (x - k * 2 + 40) % 40 < 12 && y >= 5 && y < 20
                    let stripe = (x + y + k) % 9 == 0
                    if inBox {
                        p[at] = 200; p[at + 1] = UInt8(40 * (k % 5)); p[at + 2] = 30; p[at + 3] = 255
                    } else if stripe || !alpha {
                        p[at] = 20; p[at + 1] = 120; p[at + 2] = UInt8(200 - k * 10); p[at + 3] = 255
                    }
                }
            }
            if !alpha {
                let rgb = stride(from: 0, to: p.count, by: 4).flatMap { p[$0..<($0 + 3)] }
                return try RasterImage(width: width, height: height, format: PixelFormat(.rgb, .eight), pixels: rgb)
            }
            return try RasterImage(width: width, height: height, format: PixelFormat(.rgba, .eight), pixels: p)
        }
    }

    /// AVIF sequences are lossless at quality 100 (4:4:4, the identity matrix), and play
    /// forever (libavif 0.11 writes no loop count).
    @Test(arguments: [(ImageFormat.gif, 0), (.gif, 1), (.gif, 7), (.webp, 0), (.webp, 3), (.avif, 0)])
    func fewColoursGoThereAndBackExactly(format: ImageFormat, loops: Int) throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for alpha in [true, false] {
            let frames = try Self.movingFrames(9, alpha: alpha)
            // A repeated frame lengthens the one before (GIF), or is merged (WebP): the delays
            // read back are what is shown.
            let delays = [30, 40, 50, 60, 70, 80, 90, 100, 110]
            let path = folder + "/a.\(format.preferredExtension)"
            let options = format == .webp ? EncodeOptions(settings: ["lossless": .boolean(true)])
                : format == .avif ? EncodeOptions(quality: 100) : EncodeOptions()
            let writer = try AnimationWriter(.file(path), format: format, width: 40, height: 30, pixelFormat: frames[0].format,
                                             loopCount: loops, options: options)
            for (k, frame) in frames.enumerated() { try writer.add(frame, delay: delays[k]) }
            try writer.finish()
            let reader = try AnimationReader(.file(path))
            #expect(reader.animation.delays == delays)
            #expect(reader.animation.loopCount == loops)
            for (k, frame) in frames.enumerated() {
                let read = try reader.nextFrame()
                let want = read.format.channels.hasAlpha && !frame.format.channels.hasAlpha
                    ? stride(from: 0, to: frame.pixels.count, by: 3).flatMap { frame.pixels[$0..<($0 + 3)] + [255] } : frame.pixels
                #expect(read.pixels == want, "\(format) frame \(k), alpha \(alpha)")
            }
        }
    }

    /// A photograph's many colours: the palette (median cut, then k-means) against a plain
    /// uniform palette of 6 x 7 x 6 levels, which any palette made for the image must beat.
    @Test func manyColoursComeBackCloserThanAUniformPalette() throws {
        let image = try RasterImage(contentsOf: TestData.samples.appendingPathComponent("chelsea.png").path)
        let rgb = image.format.channels.hasAlpha ? stride(from: 0, to: image.pixels.count, by: 4).flatMap { image.pixels[$0..<($0 + 3)] } : image.pixels
        let frame = try RasterImage(width: image.width, height: image.height, format: PixelFormat(.rgb, .eight), pixels: rgb)
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try frame.write(to: folder + "/c.gif")
        let back = try RasterImage(contentsOf: folder + "/c.gif")
        func mse(_ a: [UInt8], _ b: [UInt8]) -> Double {
            zip(a, b).reduce(0.0) { $0 + pow(Double($1.0) - Double($1.1), 2) } / Double(a.count)
        }
        let levels = [6, 7, 6]
        let uniform = rgb.enumerated().map { k, v -> UInt8 in
            let n = Double(levels[k % 3] - 1)
            return UInt8((Double(v) / 255 * n).rounded() / n * 255)
        }
        let ours = mse(rgb, back.pixels), plain = mse(rgb, uniform)
        #expect(back.format == PixelFormat(.rgb, .eight))
        #expect(ours < plain / 2, "palette MSE \(ours), uniform \(plain)")
        #expect(10 * log10(255 * 255 / ours) > 30)
    }

    // MARK: Bad files

    @Test func aGIFCutInsideAFrameGivesTheFramesBefore() throws {
        let whole = TestGIF.make(width: 20, height: 15, global: Self.palette, frames: Self.frames)
        let first3 = TestGIF.make(width: 20, height: 15, global: Self.palette, frames: Array(Self.frames.prefix(3)), trailer: false)
        let cut = Array(whole.prefix(first3.count + 30))
        let reader = try AnimationReader(.bytes(cut, name: "cut.gif"))
        #expect(reader.animation.frameCount == 3)
        #expect(reader.harmlessDamage == ["cut.gif: the file ends inside frame 4 (truncated); the 3 frames before it were read"])
        let expected = TestGIF.composite(width: 20, height: 15, global: Self.palette, frames: Self.frames)
        // Those three frames never show a transparent pixel: RGB.
        #expect(reader.info.format == PixelFormat(.rgb, .eight))
        for k in 0..<3 {
            let rgb = stride(from: 0, to: expected[k].count, by: 4).flatMap { expected[k][$0..<($0 + 3)] }
            #expect(try reader.nextFrame().pixels == rgb)
        }
        let strict = DecodeOptions(strict: true)
        #expect(throws: CodecError.self) { _ = try AnimationReader(.bytes(cut, name: "cut.gif"), options: strict) }
        // A file that ends after whole frames, without its trailer, is whole.
        #expect(try AnimationReader(.bytes(first3, name: "t.gif"), options: strict).animation.frameCount == 3)
    }

    @Test func badGIFsAreRefusedWithOneReason() throws {
        func reason(_ bytes: [UInt8], maxFrames: Int = 10_000) -> String {
            do { _ = try AnimationReader(.bytes(bytes, name: "bad.gif"), maxFrames: maxFrames); return "no error" } catch { return "\(error)" }
        }
        let huge = TestGIF.make(width: 65535, height: 65535, global: Self.palette, frames: [Self.frames[4]])
        #expect(reason(huge).contains("65535 x 65535") && reason(huge).contains("over the limit"), "\(reason(huge))")
        let none = TestGIF.make(width: 20, height: 15, global: Self.palette, frames: [])
        #expect(reason(none) == "bad.gif: damaged GIF data: the file holds no frame", "\(reason(none))")
        let many = TestGIF.make(width: 20, height: 15, global: Self.palette, frames: Self.frames)
        #expect(reason(many, maxFrames: 4) == "bad.gif: an animation of more than 4 frames, over the limit (raise maxFrames; 0 for none)", "\(reason(many, maxFrames: 4))")
        let noTable = TestGIF.make(width: 20, height: 15, global: nil, frames: [Self.frames[0]])
        #expect(reason(noTable).contains("frame 1 has no colour table"), "\(reason(noTable))")
        // Damaged LZW data is found when the frame is decoded.
        var damaged = TestGIF.make(width: 20, height: 15, global: Self.palette, frames: [Self.frames[0]])
        let data = damaged.count - 60
        damaged.replaceSubrange(data..<(data + 20), with: [UInt8](repeating: 0xFF, count: 20))
        let reader = try AnimationReader(.bytes(damaged, name: "bad.gif"))
        #expect(throws: CodecError.self) { try reader.nextFrame() }
    }

    @Test func aFrameOutsideTheCanvasIsClipped() throws {
        let outside = [Self.frames[0], TestGIF.Frame(x: 15, y: 12, width: 10, height: 6, indices: Self.rect(0, 0, 10, 6, seed: 4))]
        let bytes = TestGIF.make(width: 20, height: 15, global: Self.palette, frames: outside)
        let reader = try AnimationReader(.bytes(bytes, name: "o.gif"))
        #expect(reader.harmlessDamage == ["o.gif: 1 frame reaches outside the 20 x 15 canvas; the part outside was dropped"])
        let expected = TestGIF.composite(width: 20, height: 15, global: Self.palette, frames: outside)
        for want in expected {
            let rgb = stride(from: 0, to: want.count, by: 4).flatMap { want[$0..<($0 + 3)] }
            #expect(try reader.nextFrame().pixels == rgb)
        }
        #expect(throws: CodecError.self) { _ = try AnimationReader(.bytes(bytes, name: "o.gif"), options: DecodeOptions(strict: true)) }
    }

    // MARK: A chain on every frame

    static func animation(in folder: String, frames: Int = 6) throws -> String {
        let path = folder + "/in.gif"
        let images = try movingFrames(frames, alpha: false)
        let writer = try AnimationWriter(.file(path), format: .gif, width: 40, height: 30, pixelFormat: images[0].format)
        for (k, image) in images.enumerated() { try writer.add(image, delay: 40 + 10 * k) }
        try writer.finish()
        return path
    }

    static func chain(ev: String) throws -> Chain {
        try Chain.parse(Array(#"{"version": 2, "filters": [{"id": "0E4B3B39-5C34-4E43-9E0C-6E0D8C0B7A01", "type": "exposure", "parameters": {"ev": "\#(ev)"}}]}"#.utf8), file: "chain.json")
    }

    @Test func everyFrameGoesThroughTheChainWithItsClock() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try Self.animation(in: folder)
        let renderer = Renderer(threads: 2)
        let result = try renderer.render(try Self.chain(ev: "=frame / 4 - time"), animation: .file(path),
                                         outputs: [AnimationOutput(step: 1, .memory())])
        #expect(result.images[0].count == 6 && result.frames == 0...5)
        // Each frame as a still, with the value its clock gives written as a number.
        let reader = try AnimationReader(.file(path))
        for k in 0..<6 {
            let frame = try reader.nextFrame()
            let ev = Double(k) / 4 - reader.animation.time(ofFrame: k)
            let literal = Chain([Exposure(ev: ev)])
            #expect(try renderer.apply(literal, to: frame) == result.images[0][k], "frame \(k)")
        }
        #expect(reader.animation.time(ofFrame: 3) == 0.04 + 0.05 + 0.06)
    }

    @Test func framesTakenLoopAndDelayAreWrittenSo() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try Self.animation(in: folder)
        let renderer = Renderer(threads: 2)
        let out = folder + "/out.webp", still = folder + "/still.png"
        let result = try renderer.render(Chain(), animation: .file(path),
                                         outputs: [AnimationOutput(step: 0, .file(.file(out), EncodeOptions(settings: ["lossless": .boolean(true)]))),
                                                   AnimationOutput(step: 0, .file(.file(still), EncodeOptions()), frame: 3)],
                                         frames: .range(2, 4), loopCount: 2, delay: 70)
        #expect(result.written == AnimationInfo(delays: [70, 70, 70], loopCount: 2))
        let back = try AnimationReader(.file(out))
        #expect(back.animation == result.written)
        let source = try AnimationReader(.file(path))
        let frames = try (0..<6).map { _ in try source.nextFrame() }
        for k in 2...4 {
            let rgba = stride(from: 0, to: frames[k].pixels.count, by: 3).flatMap { frames[k].pixels[$0..<($0 + 3)] + [255] }
            #expect(try back.nextFrame().pixels == rgba)
        }
        #expect(try RasterImage(contentsOf: still).pixels == frames[3].pixels)
        #expect(throws: RenderError.self) {
            try renderer.render(Chain(), animation: .file(path), outputs: [AnimationOutput(step: 0, .memory())], frames: .range(4, 6))
        }
    }

    @Test func aFrameThatFailsWritesNothing() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let path = try Self.animation(in: folder)
        let out = folder + "/out.gif", still = folder + "/still.png"
        try Data("precious".utf8).write(to: URL(fileURLWithPath: out))
        let renderer = Renderer(threads: 2)
        // Frame 2 divides by zero; frame 0's still would have been written first.
        #expect(throws: RenderError.self) {
            try renderer.render(try Self.chain(ev: "=1 / (frame - 2)"), animation: .file(path),
                                outputs: [AnimationOutput(step: 1, .file(.file(out), EncodeOptions())),
                                          AnimationOutput(step: 1, .file(.file(still), EncodeOptions()), frame: 0)])
        }
        #expect(try String(contentsOfFile: out, encoding: .utf8) == "precious")
        let left = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        #expect(left == ["in.gif", "out.gif"], "\(left)")
        // A chain whose size changes from frame to frame cannot make one animation.
        let growing = try Chain.parse(Array(#"{"version": 2, "filters": [{"id": "0E4B3B39-5C34-4E43-9E0C-6E0D8C0B7A02", "type": "resize", "parameters": {"width": "=20 + frame"}}]}"#.utf8), file: "grow.json")
        do {
            _ = try renderer.render(growing, animation: .file(path), outputs: [AnimationOutput(step: 1, .file(.file(out), EncodeOptions()))])
            Issue.record("a size that changes was accepted")
        } catch {
            #expect("\(error)".contains("every frame of an animation has one size"), "\(error)")
        }
        #expect(try String(contentsOfFile: out, encoding: .utf8) == "precious")
    }

    /// The first bytes say a still WebP or AVIF is one (not opened to find out); an animation
    /// of either, and any GIF, may hold frames.
    @Test func theFirstBytesTellAStillFromAnAnimation() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let frames = try Self.movingFrames(3)
        for format in [ImageFormat.webp, .avif, .gif] {
            let still = folder + "/still.\(format.preferredExtension)", animated = folder + "/anim.\(format.preferredExtension)"
            try frames[0].write(to: still, options: EncodeOptions(format: format))
            let writer = try AnimationWriter(.file(animated), format: format, width: 40, height: 30, pixelFormat: frames[0].format)
            for f in frames { try writer.add(f, delay: 50) }
            try writer.finish()
            #expect(AnimationReader.mayBeAnimation(.file(animated)), "\(format) animation")
            #expect(AnimationReader.mayBeAnimation(.file(still)) == (format == .gif), "\(format) still")
        }
        #expect(!AnimationReader.mayBeAnimation(.file(TestData.samples.appendingPathComponent("chelsea.png").path)))
    }

    @Test func aStillInputGoesTheStillWay() throws {
        let renderer = Renderer(threads: 2)
        let png = try RasterImage(contentsOf: TestData.samples.appendingPathComponent("chelsea.png").path)
        let result = try renderer.render(Chain(), animation: .file(TestData.samples.appendingPathComponent("chelsea.png").path),
                                         outputs: [AnimationOutput(step: 0, .memory())])
        #expect(result.images[0] == [png])
        #expect(result.frames == 0...0)
    }
}
