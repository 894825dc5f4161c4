import Foundation
import Testing
@testable import FilterChain

/// WebP writing: round trips, options, metadata through the mux chunks (checked with this
/// file's own RIFF walker), orientation, limits.
@Suite struct WebPTests {
    /// The chunks of a RIFF/WEBP file, walked here: (fourcc, payload).
    static func riffChunks(_ b: [UInt8]) -> [(fourcc: String, data: [UInt8])] {
        guard b.count >= 12, Array(b[0..<4]) == Array("RIFF".utf8), Array(b[8..<12]) == Array("WEBP".utf8) else { return [] }
        var chunks: [(String, [UInt8])] = []
        var i = 12
        while i + 8 <= b.count {
            let size = Int(b[i + 4]) | Int(b[i + 5]) << 8 | Int(b[i + 6]) << 16 | Int(b[i + 7]) << 24
            guard i + 8 + size <= b.count else { break }
            chunks.append((String(decoding: b[i..<i + 4], as: UTF8.self), Array(b[i + 8..<i + 8 + size])))
            i += 8 + size + (size & 1)
        }
        return chunks
    }

    static func decode(_ bytes: [UInt8], options: DecodeOptions = .init()) throws -> (Pixels, ImageInfo) {
        let reader = try ImageReader.open(.bytes(bytes, name: "x.webp"), options: options)
        let data = try reader.readAll()
        return (Pixels(bytes: data, width: reader.info.width, height: reader.info.height, format: reader.info.format), reader.info)
    }

    static func encode(_ p: Pixels, _ options: EncodeOptions = .init(), metadata: ImageMetadata = .none) throws -> [UInt8] {
        let buffer = OutputBuffer()
        try p.write(to: .memory(buffer), format: .webp, metadata: metadata, options: options)
        return buffer.bytes
    }

    /// Random RGBA with some fully transparent pixels (whose colour lossless keeps too).
    static func rgbaWithHoles(_ w: Int, _ h: Int) -> Pixels {
        var p = Pixels.random(width: w, height: h, format: PixelFormat(.rgba, .eight), seed: UInt64(w * 7 + h))
        for i in stride(from: 3, to: p.samples.count, by: 12) { p.samples[i] = 0 }
        return p
    }

    @Test(arguments: [(1, 1), (37, 23), (300, 200)])
    func losslessIsExact(size: (Int, Int)) throws {
        for original in [Pixels.random(width: size.0, height: size.1, format: PixelFormat(.rgb, .eight), seed: 5),
                         Self.rgbaWithHoles(size.0, size.1)] {
            for effort in [0, 4, 6] {
                let bytes = try Self.encode(original, EncodeOptions(settings: ["lossless": true, "effort": .integer(effort)]))
                #expect(Self.riffChunks(bytes).contains { $0.fourcc == "VP8L" })
                let (decoded, info) = try Self.decode(bytes)
                #expect(info.format == original.format)
                #expect(decoded == original, "\(original.format) effort \(effort)")
            }
        }
    }

    /// Lossy: a smooth picture comes back close (PSNR), higher quality closer and larger;
    /// alpha at --alpha-quality 100 (the default) is exact, lower is not.
    @Test func lossyQualityAndAlphaQuality() throws {
        let w = 96, h = 64
        var smooth = Pixels(width: w, height: h, format: PixelFormat(.rgba, .eight), samples: [])
        for y in 0..<h { for x in 0..<w { smooth.samples += [x * 255 / w, y * 255 / h, (x + y) * 255 / (w + h), (x * 3 + y * 5) % 256] } }
        func psnr(_ a: Pixels, _ b: Pixels, channels: [Int]) -> Double {
            var sum = 0.0, n = 0.0
            for i in stride(from: 0, to: a.samples.count, by: 4) { for c in channels { let d = Double(a.samples[i + c] - b.samples[i + c]); sum += d * d; n += 1 } }
            return sum == 0 ? .infinity : 10 * log10(255 * 255 / (sum / n))
        }
        let low = try Self.encode(smooth, EncodeOptions(quality: 10))
        let high = try Self.encode(smooth, EncodeOptions(quality: 95))
        #expect(Self.riffChunks(high).contains { $0.fourcc == "VP8 " } && Self.riffChunks(high).contains { $0.fourcc == "ALPH" })
        let (lowPixels, _) = try Self.decode(low), (highPixels, info) = try Self.decode(high)
        #expect(info.format == PixelFormat(.rgba, .eight))
        #expect(high.count > low.count)
        #expect(psnr(highPixels, smooth, channels: [0, 1, 2]) > 38)
        #expect(psnr(highPixels, smooth, channels: [0, 1, 2]) > psnr(lowPixels, smooth, channels: [0, 1, 2]))
        #expect(psnr(highPixels, smooth, channels: [3]) == .infinity)
        let (quantised, _) = try Self.decode(try Self.encode(smooth, EncodeOptions(settings: ["alphaQuality": 0])))
        #expect(psnr(quantised, smooth, channels: [3]) < .infinity)
        // The default quality is 80, whatever a JPEG source had.
        #expect(try Self.encode(smooth) == Self.encode(smooth, EncodeOptions(quality: 80)))
        #expect(try Self.encode(smooth) != Self.encode(smooth, EncodeOptions(settings: ["effort": 0])))
    }

    @Test func qualityWithLosslessIsRefused() throws {
        let p = Pixels.random(width: 4, height: 4, format: PixelFormat(.rgb, .eight))
        #expect(throws: RenderError.self) { _ = try Self.encode(p, EncodeOptions(quality: 90, settings: ["lossless": true])) }
        #expect(throws: RenderError.self) { _ = try Self.encode(p, EncodeOptions(settings: ["effort": 7])) }
    }

    /// Grey and 16-bit images are written as 8-bit RGB(A) (WebP holds neither): the decode
    /// is the renderer's own 8-bit conversion, grey spread to R = G = B.
    @Test func greyAndSixteenBitBecomeEightBitRGB() throws {
        let grey = try RasterImage(width: 20, height: 10, format: PixelFormat(.greyAlpha, .sixteen),
                                   samples: (0..<400).map { $0 % 2 == 1 ? ($0 * 97) % 65536 : ($0 * 331) % 65536 })
        let bytes = try grey.encoded(as: .webp, options: EncodeOptions(settings: ["lossless": true]))
        let (decoded, info) = try Self.decode(bytes)
        #expect(info.format == PixelFormat(.rgba, .eight))
        let expected = try Renderer(threads: 1).apply(Chain(), to: grey, depth: .eight)
        #expect(expected.format == PixelFormat(.greyAlpha, .eight))
        var mismatches = 0
        for i in 0..<200 {
            let v = Int(expected.pixels[i * 2]), a = Int(expected.pixels[i * 2 + 1])
            if !decoded.samples[i * 4..<i * 4 + 4].elementsEqual([v, v, v, a]) { mismatches += 1 }
        }
        #expect(mismatches == 0)
    }

    /// A grey image through a chain that may not keep it neutral (a luminosity blend of a
    /// colour layer: the result is grey again) is written to WebP in RGB. The renderer's pass
    /// that decides grey or colour made it grey, which WebP does not hold: the render failed
    /// ("WebP does not hold grey 8-bit rows"), found with samples/chains/blend-modes.json on
    /// samples/camera.png.
    @Test func aGreyInputThatStaysNeutralIsWrittenInRGB() throws {
        let grey = try RasterImage(width: 24, height: 16, format: PixelFormat(.grey, .eight),
                                   samples: (0..<(24 * 16)).map { ($0 * 37) % 256 })
        let layer = try RasterImage(width: 24, height: 16, format: PixelFormat(.rgb, .eight),
                                    samples: (0..<(24 * 16 * 3)).map { ($0 * 53) % 256 })
        let chain = Chain(images: [ChainImage(name: "layer", file: "layer.png", image: layer)],
                          steps: [Step(filter: Blend(layer: "layer", mode: .luminosity))])
        let out = TestData.temporaryFolder().appendingPathComponent("out.webp").path
        _ = try Renderer(threads: 2).render(chain, image: grey,
                                            outputs: [RenderOutput(step: 1, .file(.file(out), EncodeOptions(settings: ["lossless": true])))])
        let (decoded, info) = try Pixels.read(out)
        #expect(info.format == PixelFormat(.rgb, .eight))
        // Grey again: R = G = B everywhere.
        let s = decoded.samples
        var coloured = 0
        for i in stride(from: 0, to: s.count, by: 3) where s[i] != s[i + 1] || s[i + 1] != s[i + 2] { coloured += 1 }
        #expect(coloured == 0)
    }

    /// ICC, EXIF and XMP into WebP chunks and back, and across PNG and JPEG both ways.
    @Test func metadataCrossesPNGAndJPEGBothWays() throws {
        let icc = RoundTripTests.outputICC
        let exif = MetadataTests.exifOrientation6.enumerated().map { $0.offset == 19 ? UInt8(1) : $0.element }  // Orientation 1
        let xmp = MetadataTests.xmpPacket()
        let metadata = ImageMetadata(iccProfile: icc, exif: exif, xmp: xmp)
        let image = try RasterImage(width: 24, height: 16, format: PixelFormat(.rgb, .eight),
                                    samples: (0..<24 * 16 * 3).map { ($0 * 37) % 256 }, metadata: metadata)
        for source in [ImageFormat.png, .jpeg] {
            let input = try image.encoded(as: source)
            let webp = try MetadataTests.reencoded(input, as: .webp)
            let chunks = Dictionary(Self.riffChunks(webp).map { ($0.fourcc, $0.data) }, uniquingKeysWith: { a, _ in a })
            #expect(chunks["ICCP"] == icc && chunks["EXIF"] == exif && chunks["XMP "] == xmp, "from \(source.id)")
            #expect(chunks["VP8X"] != nil)
            // And back out of the WebP, read by the other formats' own walkers.
            let png = try MetadataTests.reencoded(webp, as: .png)
            let pngChunks = MetadataTests.pngChunks(png)
            #expect(pngChunks.first { $0.type == "eXIf" }?.data == exif)
            #expect(pngChunks.contains { $0.type == "iTXt" && $0.data.suffix(xmp.count).elementsEqual(xmp) })
            #expect(try RasterImage(decoding: png).metadata.iccProfile == icc)
            let jpeg = try MetadataTests.reencoded(webp, as: .jpeg)
            let segments = MetadataTests.jpegSegments(jpeg)
            #expect(segments.contains { $0.marker == 0xE1 && $0.payload == XMP.jpegPrefix + xmp })
            #expect(segments.contains { $0.marker == 0xE1 && $0.payload == WebPDecoder.exifPrefix + exif })
            #expect(try RasterImage(decoding: jpeg).metadata.iccProfile == icc)
        }
        // WebP to WebP keeps them too; --strip-all drops them all (and the VP8X header).
        let webp = try image.encoded(as: .webp)
        #expect(try RasterImage(decoding: try MetadataTests.reencoded(webp, as: .webp)).metadata == metadata)
        let stripped = try MetadataTests.reencoded(webp, as: .webp, EncodeOptions(stripMetadata: true, stripColorProfile: true))
        #expect(Self.riffChunks(stripped).map(\.fourcc) == ["VP8 "])
    }

    /// An EXIF Orientation is applied as JPEG's is: pixels turned, the tag reset to 1.
    @Test func exifOrientationIsApplied() throws {
        let path = WebPConformanceTests.folder.appendingPathComponent("files/meta_lossless_exif_orient6.webp").path
        let (stored, storedInfo) = try Pixels.read(path, options: DecodeOptions(autoOrient: false))
        let (upright, info) = try Pixels.read(path)
        #expect(info.appliedOrientation == .right && storedInfo.appliedOrientation == nil)
        #expect(info.width == storedInfo.height && info.height == storedInfo.width)
        #expect(Exif.orientation(in: info.metadata.exif!) == .up && Exif.orientation(in: storedInfo.metadata.exif!) == .right)
        // Orientation 6: the stored top-left pixel ends at the top right.
        let n = stored.format.channels.count
        #expect(upright.samples[(info.width - 1) * n..<info.width * n].elementsEqual(stored.samples[0..<n]))
    }

    /// Over 16383 on a side is refused before any work, with the limit in the message.
    @Test func overTheSideLimitIsRefusedBeforeWriting() throws {
        let buffer = OutputBuffer()
        let header = EncodeHeader(width: 16384, height: 1, format: PixelFormat(.rgb, .eight))
        #expect { _ = try ImageWriter(.memory(buffer), format: .webp, header: header) } throws: { error in
            "\(error)".contains("16383")
        }
        #expect(throws: Never.self) { _ = try ImageWriter(.memory(buffer), format: .webp, header: EncodeHeader(width: 16383, height: 1, format: PixelFormat(.rgb, .eight))) }
    }
}
