#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
@testable import FilterChain

/// JPEG XL: files made here by cjxl (libjxl-tools) in every mode (lossy, lossless, 16-bit,
/// grey, alpha, odd sizes, progressive, an animation from a GIF) decode to djxl's pixels;
/// what we write, djxl reads to ours; lossless is exact; metadata; damaged files.
@Suite struct JXLTests {
    static let tools = FileManager.default.isExecutableFile(atPath: "/usr/bin/cjxl") && FileManager.default.isExecutableFile(atPath: "/usr/bin/djxl")

    static func folder() throws -> String {
        let folder = NSTemporaryDirectory() + "fc-jxl-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        return folder
    }

    static func run(_ tool: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/" + tool)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    static func decode(_ path: String) throws -> RasterImage { try RasterImage(contentsOf: path) }

    @Test(.enabled(if: tools), arguments: [
        ("lossy", "rgb", ["-d", "1"]), ("lossless", "rgb", ["-d", "0"]), ("progressive", "rgb", ["-d", "2", "-p"]),
        ("effort 3", "rgba", ["-d", "1.5", "-e", "3"]), ("lossless alpha", "rgba", ["-d", "0"]),
        ("grey", "grey", ["-d", "0"]), ("16-bit", "rgb16", ["-d", "0"]), ("16-bit lossy", "rgb16", ["-d", "1"]),
    ])
    func cjxlsFilesDecodeAsDjxlDecodesThem(_ label: String, _ kind: String, _ options: [String]) throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let format: PixelFormat = switch kind {
        case "rgba": PixelFormat(.rgba, .eight)
        case "grey": PixelFormat(.grey, .eight)
        case "rgb16": PixelFormat(.rgb, .sixteen)
        default: PixelFormat(.rgb, .eight)
        }
        let source = AVIFTests.smooth(67, 45, format)
        try source.write(to: .file(folder + "/in.png"), format: .png)
        #expect(try Self.run("cjxl", [folder + "/in.png", folder + "/a.jxl"] + options) == 0)
        #expect(try Self.run("djxl", [folder + "/a.jxl", folder + "/djxl.png"]) == 0)
        let ours = try Self.decode(folder + "/a.jxl"), theirs = try Self.decode(folder + "/djxl.png")
        #expect(ours.width == 67 && ours.height == 45 && ours.format == format, "\(label): \(ours.format)")
        if ours.format == theirs.format {
            #expect(ours.pixels == theirs.pixels, "\(label): our decode differs from djxl's")
        } else {
            Issue.record("\(label): djxl wrote \(theirs.format), we read \(ours.format)")
        }
        if options.contains("0") && options.first == "-d" {
            #expect(ours.pixels == source.bytes, "\(label): lossless is not exact")
        }
    }

    @Test(.enabled(if: tools))
    func anAnimationFromAGIFComesFrameByFrame() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let frames = try AnimationTests.movingFrames(5, alpha: false)
        let gif = folder + "/in.gif"
        let writer = try AnimationWriter(.file(gif), format: .gif, width: 40, height: 30, pixelFormat: frames[0].format, loopCount: 0)
        for f in frames { try writer.add(f, delay: 60) }
        try writer.finish()
        #expect(try Self.run("cjxl", [gif, folder + "/a.jxl", "-d", "0"]) == 0)
        let reader = try AnimationReader(.file(folder + "/a.jxl"))
        #expect(reader.animation.frameCount == 5 && reader.animation.delays == [60, 60, 60, 60, 60])
        for f in frames {
            let got = try reader.nextFrame()
            let rgb = got.format.channels.hasAlpha ? Swift.stride(from: 0, to: got.pixels.count, by: 4).flatMap { got.pixels[$0..<($0 + 3)] } : got.pixels
            #expect(rgb == f.pixels)
        }
    }

    /// Float samples (issue 39): kept as floats both ways, values above 1 and below 0 too.
    /// Lossless is bit-exact; djxl's PFM of our file holds the same floats; and a render to a
    /// .jxl file writes what the same render keeps in memory (float, unclamped).
    @Test(arguments: [Channels.grey, .greyAlpha, .rgb, .rgba])
    func floatSamplesAreKept(channels: Channels) throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let w = 37, h = 23, n = channels.count
        var values = [Float](repeating: 0, count: w * h * n)
        for y in 0..<h {
            for x in 0..<w {
                for c in 0..<n {
                    let alpha = channels.hasAlpha && c == n - 1
                    values[(y * w + x) * n + c] = alpha ? Float(x) / Float(w - 1)
                        : -0.25 + 2.25 * Float((x * 7 + y * 13 + c * 29) % 97) / 96
                }
            }
        }
        let bytes = values.withUnsafeBytes { Array($0) }
        let source = try RasterImage(width: w, height: h, format: PixelFormat(channels, .float32), pixels: bytes)
        let path = folder + "/float.jxl"
        try source.write(to: path, options: EncodeOptions(settings: ["lossless": .boolean(true)]))
        let back = try Self.decode(path)
        #expect(back.format == source.format && back.pixels == source.pixels, "\(channels): not bit-exact")
        if Self.tools && channels == .rgb {
            // PFM: "PF", width height, a scale whose sign says the byte order (negative: little-
            // endian; djxl writes 1.0, big-endian), then rows bottom to top.
            #expect(try Self.run("djxl", [path, folder + "/djxl.pfm"]) == 0)
            let pfm = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder + "/djxl.pfm")))
            let lines = pfm.split(separator: 0x0A, maxSplits: 3, omittingEmptySubsequences: false)
            let bigEndian = !String(decoding: lines[2], as: UTF8.self).hasPrefix("-")
            let raw = Array(lines[3])
            let floats = Swift.stride(from: 0, to: raw.count - 3, by: 4).map { i -> Float in
                let b = bigEndian ? [raw[i + 3], raw[i + 2], raw[i + 1], raw[i]] : Array(raw[i..<(i + 4)])
                return Float(bitPattern: UInt32(b[0]) | UInt32(b[1]) << 8 | UInt32(b[2]) << 16 | UInt32(b[3]) << 24)
            }
            #expect(floats.count == w * h * 3)
            var flipped = [Float](repeating: 0, count: w * h * 3)
            for y in 0..<h { for i in 0..<(w * 3) { flipped[y * w * 3 + i] = floats[(h - 1 - y) * w * 3 + i] } }
            let worst = zip(flipped, values).map { abs($0 - $1) }.max() ?? 1
            #expect(worst < 1e-6, "djxl's floats differ by \(worst)")
        }
        // Through a chain: the file holds what memory holds.
        let chain = Chain([Exposure(ev: 0.5)])
        let renderer = Renderer(threads: 2)
        let out = folder + "/out.jxl"
        let result = try renderer.render(chain, source: .file(path),
                                         outputs: [RenderOutput(step: 1, .file(.file(out), EncodeOptions(settings: ["lossless": .boolean(true)]))),
                                                   RenderOutput(step: 1, .memory())])
        let memory = try #require(result.images[1])
        let written = try Self.decode(out)
        #expect(memory.format.depth == .float32 && written.format == memory.format)
        #expect(written.pixels == memory.pixels, "\(channels): the file differs from the render in memory")
        #expect(written.values.contains { $0 > 1.5 }, "values above 1 were clipped")
    }

    @Test(arguments: AVIFTests.layouts)
    func ourFilesRoundTrip(format: PixelFormat) throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = AVIFTests.smooth(67, 45, format)
        try source.write(to: .file(folder + "/lossless.jxl"), format: .jxl, options: EncodeOptions(settings: ["lossless": .boolean(true)]))
        let lossless = try Self.decode(folder + "/lossless.jxl")
        #expect(lossless.format == format && lossless.pixels == source.bytes)
        try source.write(to: .file(folder + "/lossy.jxl"), format: .jxl, options: EncodeOptions(quality: 90))
        let lossy = try Self.decode(folder + "/lossy.jxl")
        let quality = AVIFTests.psnr(Pixels(bytes: lossy.pixels, width: 67, height: 45, format: lossy.format), source)
        #expect(lossy.format == format && quality > 38, "\(format): \(quality) dB")
        if Self.tools {
            #expect(try Self.run("djxl", [folder + "/lossy.jxl", folder + "/djxl.png"]) == 0)
            let theirs = try Self.decode(folder + "/djxl.png")
            #expect(theirs.pixels == lossy.pixels || theirs.format != lossy.format)
        }
    }

    @Test func metadataAndAnimationsAreKept() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let p = AVIFTests.smooth(40, 30, PixelFormat(.rgb, .eight))
        let icc = try #require(ColorProfile.displayP3.iccData)
        let exif = ExifFixture.make(orientation: 1, extra: Array("filterchain jxl test".utf8))
        let xmp = Array(#"<?xpacket begin=""?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF/></x:xmpmeta><?xpacket end="w"?>"#.utf8)
        try p.write(to: .file(folder + "/m.jxl"), format: .jxl, metadata: ImageMetadata(iccProfile: icc, exif: exif, xmp: xmp),
                    options: EncodeOptions(settings: ["lossless": .boolean(true)]))
        let reader = try ImageReader.open(.file(folder + "/m.jxl"))
        #expect(reader.info.metadata.iccProfile == icc && reader.info.metadata.exif == exif && reader.info.metadata.xmp == xmp)
        // Frames, delays and the loop count.
        let frames = try AnimationTests.movingFrames(4, alpha: true)
        let writer = try AnimationWriter(.file(folder + "/a.jxl"), format: .jxl, width: 40, height: 30, pixelFormat: frames[0].format,
                                         loopCount: 3, options: EncodeOptions(settings: ["lossless": .boolean(true)]))
        for (k, f) in frames.enumerated() { try writer.add(f, delay: 30 + 10 * k) }
        try writer.finish()
        let back = try AnimationReader(.file(folder + "/a.jxl"))
        #expect(back.animation == AnimationInfo(delays: [30, 40, 50, 60], loopCount: 3))
        for f in frames { #expect(try back.nextFrame().pixels == f.pixels) }
    }

    /// A JPEG through a chain of no steps becomes its lossless transcode (a jbrd box keeps what
    /// rebuilds its bytes; djxl gives them back), smaller; a step, or jpegReconstruction off,
    /// encodes its pixels.
    @Test func aJPEGThroughNoStepsIsTranscodedLosslessly() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let jpeg = TestData.samples.appendingPathComponent("rocket.jpg").path
        let original = Array(try Data(contentsOf: URL(fileURLWithPath: jpeg)))
        let renderer = Renderer(threads: 2)
        _ = try renderer.render(Chain(), source: .file(jpeg), outputs: [RenderOutput(step: 0, .file(.file(folder + "/t.jxl"), EncodeOptions()))])
        let transcoded = Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/t.jxl")))
        #expect(HEIFConformanceTests.find(Array("jbrd".utf8), in: transcoded) != nil)
        #expect(transcoded.count < original.count * 9 / 10, "\(transcoded.count) against the JPEG's \(original.count)")
        if Self.tools {
            #expect(try Self.run("djxl", [folder + "/t.jxl", folder + "/back.jpg"]) == 0)
            #expect(Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/back.jpg"))) == original, "djxl did not give the JPEG's bytes back")
        }
        let image = try RasterImage(contentsOf: folder + "/t.jxl")
        #expect(image.width == 640 && image.height == 427)
        // Off, or with a step: the pixels.
        _ = try renderer.render(Chain(), source: .file(jpeg), outputs: [RenderOutput(step: 0, .file(.file(folder + "/p.jxl"),
                                                                                                    EncodeOptions(settings: ["jpegReconstruction": .boolean(false)])))])
        _ = try renderer.render(Chain([Exposure(ev: 0.5)]), source: .file(jpeg), outputs: [RenderOutput(step: 1, .file(.file(folder + "/s.jxl"), EncodeOptions()))])
        for name in ["p.jxl", "s.jxl"] {
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name)))
            #expect(HEIFConformanceTests.find(Array("jbrd".utf8), in: bytes) == nil, "\(name) is a transcode")
        }
    }

    /// `distance` as cjxl's `-d`: the same bytes as cjxl's file at that distance and effort
    /// from the same pixels; given with quality, or with lossless, refused.
    @Test func distanceIsCjxlsDistance() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let p = AVIFTests.smooth(67, 45, PixelFormat(.rgb, .eight))
        try p.write(to: .file(folder + "/d.jxl"), format: .jxl, options: EncodeOptions(settings: ["distance": .number(2.5)]))
        let near = Pixels(bytes: try Self.decode(folder + "/d.jxl").pixels, width: 67, height: 45, format: p.format)
        try p.write(to: .file(folder + "/q.jxl"), format: .jxl, options: EncodeOptions(quality: 50))
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/d.jxl"))) != Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/q.jxl"))))
        #expect(AVIFTests.psnr(near, p) > 35)
        #expect(throws: RenderError.self) { try p.write(to: .file(folder + "/x.jxl"), format: .jxl, options: EncodeOptions(quality: 80, settings: ["distance": .number(2)])) }
        #expect(throws: RenderError.self) { try p.write(to: .file(folder + "/x.jxl"), format: .jxl, options: EncodeOptions(settings: ["distance": .number(26)])) }
        if Self.tools {
            try p.write(to: .file(folder + "/in.png"), format: .png)
            #expect(try Self.run("cjxl", [folder + "/in.png", folder + "/c.jxl", "-d", "2.5", "-e", "7"]) == 0)
            #expect(try Self.run("djxl", [folder + "/c.jxl", folder + "/c.png"]) == 0)
            // The same encoder at the same distance and effort: the same pixels.
            #expect(try Self.decode(folder + "/c.png").pixels == near.bytes)
        }
    }

    @Test func qualityMapsToDistanceAsCjxlDoes() {
        #expect(abs(JXLCodec.distance(quality: 90) - 1.0) < 1e-6)
        #expect(abs(JXLCodec.distance(quality: 30) - 6.4) < 1e-5)
        #expect(abs(JXLCodec.distance(quality: 29) - (6.24 + powf(2.5, 0.2) / 6.25)) < 1e-5)
    }

    @Test func damagedFilesAreOneClearError() throws {
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let p = AVIFTests.smooth(40, 30, PixelFormat(.rgb, .eight))
        let buffer = OutputBuffer()
        try p.write(to: .memory(buffer), format: .jxl)
        let bytes = buffer.bytes
        for cut in [bytes.count / 2, 40, 3] {
            do {
                _ = try ImageReader.open(.bytes(Array(bytes.prefix(cut)), name: "cut.jxl")).readAll()
                Issue.record("a file cut at \(cut) bytes was read")
            } catch let error as CodecError {
                #expect(error.description.hasPrefix("cut.jxl: "), "\(error)")
            }
        }
        var garbage = bytes
        for i in Swift.stride(from: 20, to: garbage.count, by: 7) { garbage[i] ^= 0x5A }
        #expect(throws: CodecError.self) { _ = try ImageReader.open(.bytes(garbage, name: "bad.jxl")).readAll() }
    }
}
