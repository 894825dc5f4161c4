import Foundation
import Testing
@testable import FilterChain

/// AVIF writing: every layout through AVIF (lossless at quality 100: exact at 8 bits, exact at
/// 10 bits for 16-bit images), options, the colour description (nclx or ICC), metadata across
/// PNG and JPEG both ways (checked with this suite's own container walker, AVIFContainer),
/// orientation, limits; and reading what needs a file of its own (premultiplied alpha, a
/// sequence, sizes past the limits).
@Suite struct AVIFTests {
    static func decode(_ bytes: [UInt8], options: DecodeOptions = .init()) throws -> (Pixels, ImageInfo, [String]) {
        let reader = try ImageReader.open(.bytes(bytes, name: "x.avif"), options: options)
        let data = try reader.readAll()
        return (Pixels(bytes: data, width: reader.info.width, height: reader.info.height, format: reader.info.format),
                reader.info, reader.notices)
    }

    static func encode(_ p: Pixels, _ options: EncodeOptions = .init(), metadata: ImageMetadata = .none) throws -> [UInt8] {
        let buffer = OutputBuffer()
        try p.write(to: .memory(buffer), format: .avif, metadata: metadata, options: options)
        return buffer.bytes
    }

    /// A smooth picture (gradients, a soft disc), as photographs are, in any layout.
    static func smooth(_ w: Int, _ h: Int, _ format: PixelFormat) -> Pixels {
        let top = Double(format.depth.maxValue)
        var samples: [Int] = []
        samples.reserveCapacity(w * h * format.channels.count)
        for y in 0..<h {
            for x in 0..<w {
                let fx = Double(x) / Double(max(1, w - 1)), fy = Double(y) / Double(max(1, h - 1))
                let d = ((fx - 0.5) * (fx - 0.5) + (fy - 0.4) * (fy - 0.4)).squareRoot()
                let disc = max(0, min(1, (0.35 - d) * 8))
                let rgb = [0.2 + 0.6 * fx, 0.3 + 0.5 * fy * (1 - disc), 0.25 + 0.5 * disc]
                let alpha = 0.3 + 0.7 * (1 - fx * fy)
                var pixel: [Double]
                switch format.channels {
                case .grey: pixel = [0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2]]
                case .greyAlpha: pixel = [0.299 * rgb[0] + 0.587 * rgb[1] + 0.114 * rgb[2], alpha]
                case .rgb: pixel = rgb
                case .rgba: pixel = rgb + [alpha]
                }
                samples += pixel.map { Int(($0 * top).rounded()) }
            }
        }
        return Pixels(width: w, height: h, format: format, samples: samples)
    }

    /// PSNR over the given channels, in units of the format's full scale.
    static func psnr(_ a: Pixels, _ b: Pixels, channels: [Int]? = nil) -> Double {
        let n = a.format.channels.count, top = Double(a.format.depth.maxValue)
        let wanted = channels ?? Array(0..<n)
        var sum = 0.0, count = 0.0
        for i in stride(from: 0, to: a.samples.count, by: n) {
            for c in wanted { let d = Double(a.samples[i + c] - b.samples[i + c]); sum += d * d; count += 1 }
        }
        return sum == 0 ? .infinity : 10 * log10(top * top / (sum / count))
    }

    static let layouts: [PixelFormat] = Channels.allCases.flatMap { c in BitDepth.stored.map { PixelFormat(c, $0) } }

    /// Every layout comes back in its own layout (grey as grey, alpha kept, 16 bits as 16)
    /// and close: PSNR over 40 dB at quality 90, 4:4:4 and 4:2:0.
    /// An HDR AVIF carries a clli box (which libavif 0.11 cannot write: put in after it,
    /// AVIFContentLight), associated with the primary item; the items stored after the meta
    /// box (the image, its alpha, the EXIF) are still where iloc says, and it decodes.
    @Test func anHDROutputSaysItsContentLight() throws {
        let p = Self.smooth(40, 30, PixelFormat(.rgba, .sixteen))
        let exif = ExifFixture.make(orientation: 1, extra: Array("filterchain test camera".utf8))
        var options = EncodeOptions()
        options.hdr = HDROutput(.pq)
        let image = try RasterImage(width: p.width, height: p.height, format: p.format, metadata: ImageMetadata(exif: exif), pixels: p.bytes)
        let bytes = try image.encoded(as: .avif, options: options)
        let container = try AVIFContainer(bytes)
        let clli = try #require(container.primaryProperties("clli").first)
        #expect(clli.count == 4)
        let maxCLL = Int(clli[0]) << 8 | Int(clli[1]), maxFALL = Int(clli[2]) << 8 | Int(clli[3])
        // The smooth picture is SDR (white at 203 cd/m²), its brightest component 0.8: about
        // 0.6 linear, 120 cd/m²; its mean below that.
        #expect(maxCLL > 80 && maxCLL <= 203 && maxFALL > 10 && maxFALL < maxCLL, "\(maxCLL) \(maxFALL)")
        #expect(container.exif == exif && container.nclx == .init(primaries: 9, transfer: 16, matrix: 9, fullRange: true))
        let (decoded, info, _) = try Self.decode(bytes)
        #expect(info.width == 40 && info.height == 30 && decoded.format.channels == .rgba)
        // Read back as the file's content light (a PQ source's peak), and from any cut of the
        // file either that or nothing, never a crash.
        #expect(info.metadata.contentLightLevel == ContentLightLevel(maxCLL: maxCLL, maxFALL: maxFALL))
        for end in stride(from: 0, to: bytes.count, by: 7) {
            let found = bytes.prefix(end).withUnsafeBytes { AVIFContentLight.read($0) }
            #expect(found == nil || found == ContentLightLevel(maxCLL: maxCLL, maxFALL: maxFALL))
        }
        // An SDR AVIF has none.
        #expect(try AVIFContainer(Self.encode(p)).primaryProperties("clli").isEmpty)
    }

    @Test(arguments: layouts)
    func everyLayoutRoundTripsClosely(format: PixelFormat) throws {
        let original = Self.smooth(67, 45, format)
        for chroma in [ChromaSubsampling.yuv444, .yuv420] {
            let bytes = try Self.encode(original, EncodeOptions(quality: 90, chroma: chroma))
            let (decoded, info, notices) = try Self.decode(bytes)
            #expect(info.format == format && info.width == 67 && info.height == 45)
            #expect(notices.isEmpty)
            let quality = Self.psnr(decoded, original)
            #expect(quality > 40, "\(format) \(chroma.rawValue): \(quality) dB")
            let container = try AVIFContainer(bytes)
            #expect(container.bitsPerChannel?.first == (format.depth == .sixteen ? 10 : 8))
            #expect(container.hasAlphaItem == format.channels.hasAlpha)
            #expect(container.brands.contains("avif"))
        }
    }

    /// Tiny and odd sizes, in every layout and chroma, 8 and 10 bits: libaom is never asked
    /// for what it cannot do (no process abort), and the size comes back.
    @Test(arguments: layouts)
    func tinyAndOddSizesEncode(format: PixelFormat) throws {
        for size in [(1, 1), (1, 7), (7, 1), (3, 3), (2, 5)] {
            for chroma in [ChromaSubsampling.yuv444, .yuv420] {
                let original = Pixels.random(width: size.0, height: size.1, format: format, seed: 9)
                let (decoded, info, _) = try Self.decode(try Self.encode(original, EncodeOptions(quality: 70, chroma: chroma)))
                #expect(info.format == format && decoded.width == size.0 && decoded.height == size.1, "\(format) \(size) \(chroma.rawValue)")
            }
        }
    }

    /// Quality 100 is lossless: 8-bit images exactly (RGB through the identity matrix, grey
    /// as luma), alpha too; 16-bit images exactly at 10 bits (each sample the 10-bit value
    /// nearest the source's).
    @Test(arguments: layouts)
    func qualityHundredIsLossless(format: PixelFormat) throws {
        for size in [(1, 1), (37, 23)] {
            let original = Pixels.random(width: size.0, height: size.1, format: format, seed: UInt64(size.0 + format.bytesPerPixel))
            let bytes = try Self.encode(original, EncodeOptions(quality: 100))
            let (decoded, info, _) = try Self.decode(bytes)
            #expect(info.format == format)
            if format.depth == .eight {
                #expect(decoded == original, "\(format) \(size)")
            } else {
                // The 10-bit samples are exact; scaled back to 16 bits they are within 1 of
                // v * 65535 / 1023 (libavif's float arithmetic rounds a few the other way).
                let tenBits = { (v: Int) in (v * 1023 + 32767) / 65535 }
                #expect(decoded.samples.map(tenBits) == original.samples.map(tenBits), "\(format) \(size)")
                let expected = original.samples.map { (tenBits($0) * 65535 + 511) / 1023 }
                #expect(zip(decoded.samples, expected).allSatisfy { abs($0 - $1) <= 1 }, "\(format) \(size)")
            }
            let nclx = try AVIFContainer(bytes).nclx
            // The identity matrix for colour, BT.601 luma for grey; sRGB's primaries and transfer.
            #expect(nclx == .init(primaries: 1, transfer: 13, matrix: format.channels.isGrey ? 6 : 0, fullRange: true))
        }
    }

    /// Higher quality: larger and closer; effort changes the file; alpha at --alpha-quality
    /// 100 (the default) is exact, lower is not; the default quality is 50, whatever a JPEG
    /// source had.
    @Test func qualityEffortChromaAndAlphaQuality() throws {
        let original = Self.smooth(96, 64, PixelFormat(.rgba, .eight))
        let low = try Self.encode(original, EncodeOptions(quality: 10))
        let high = try Self.encode(original, EncodeOptions(quality: 90))
        let (lowPixels, _, _) = try Self.decode(low), (highPixels, _, _) = try Self.decode(high)
        #expect(high.count > low.count)
        #expect(Self.psnr(highPixels, original, channels: [0, 1, 2]) > Self.psnr(lowPixels, original, channels: [0, 1, 2]))
        #expect(Self.psnr(highPixels, original, channels: [3]) == .infinity)
        let (quantised, _, _) = try Self.decode(try Self.encode(original, EncodeOptions(settings: ["alphaQuality": 0])))
        #expect(Self.psnr(quantised, original, channels: [3]) < .infinity)
        let source = ImageMetadata(sourceJPEGQuality: 95)
        #expect(try Self.encode(original, metadata: source) == Self.encode(original, EncodeOptions(quality: 50)))
        #expect(try Self.encode(original) != Self.encode(original, EncodeOptions(settings: ["effort": 9])))
        // 4:4:4 by default; 4:2:0 when asked.
        let header = { (bytes: [UInt8]) throws -> Int32 in
            try AVIFDecoder(try OpenedInput.open(.bytes(bytes, name: "x.avif")), options: .init()).info.yuv_format
        }
        #expect(try header(Self.encode(original)) == 444)
        #expect(try header(Self.encode(original, EncodeOptions(chroma: .yuv420))) == 420)
        #expect(try header(Self.encode(Self.smooth(8, 8, PixelFormat(.grey, .eight)))) == 400)
    }

    @Test func optionsOutOfRangeOrTogetherWrongAreRefused() throws {
        let p = Pixels.random(width: 4, height: 4, format: PixelFormat(.rgb, .eight))
        for options in [EncodeOptions(settings: ["effort": 10]), EncodeOptions(quality: 101),
                        EncodeOptions(chroma: .yuv422), EncodeOptions(quality: 100, chroma: .yuv420)] {
            #expect(throws: RenderError.self, "\(options.settings)") { _ = try Self.encode(p, options) }
        }
        #expect(throws: Never.self) { _ = try Self.encode(p, EncodeOptions(quality: 0, settings: ["effort": 9])) }
    }

    /// 16-bit images are 10-bit AVIF; `depth` 8 makes them 8-bit.
    @Test func sixteenBitIsTenBitAVIF() throws {
        let original = Self.smooth(20, 10, PixelFormat(.rgb, .sixteen))
        #expect(try AVIFContainer(Self.encode(original)).bitsPerChannel == [10, 10, 10])
        let image = try RasterImage(width: 20, height: 10, format: original.format, samples: original.samples)
        let eight = try image.encoded(as: .avif, options: EncodeOptions(depth: .eight))
        let (decoded, info, _) = try Self.decode(eight)
        #expect(info.format == PixelFormat(.rgb, .eight) && decoded.width == 20)
        #expect(try AVIFContainer(eight).bitsPerChannel == [8, 8, 8])
    }

    /// The colour description written: an nclx of sRGB (1/13/6, full range) for an image
    /// without one; the ICC profile with an nclx of unspecified primaries and transfer when
    /// there is one; a source's nclx primaries and transfer (its matrix when libavif converts
    /// with it), read back as such.
    @Test func colourIsDescribedByNCLXOrICC() throws {
        let p = Self.smooth(16, 16, PixelFormat(.rgb, .eight))
        let plain = try AVIFContainer(Self.encode(p))
        #expect(plain.nclx == .init(primaries: 1, transfer: 13, matrix: 6, fullRange: true) && plain.icc == nil)

        let icc = RoundTripTests.test3ICC
        let tagged = try AVIFContainer(Self.encode(p, metadata: ImageMetadata(iccProfile: icc)))
        #expect(tagged.icc == icc && tagged.nclx == .init(primaries: 2, transfer: 2, matrix: 6, fullRange: true))

        var pq = ImageMetadata()
        pq.nclx = NCLXColor(colourPrimaries: 9, transferCharacteristics: 16, matrixCoefficients: 9, fullRange: false)
        let hdr = try Self.encode(p, metadata: pq)
        #expect(try AVIFContainer(hdr).nclx == .init(primaries: 9, transfer: 16, matrix: 9, fullRange: true))
        #expect(try Self.decode(hdr).1.metadata.nclx == NCLXColor(colourPrimaries: 9, transferCharacteristics: 16, matrixCoefficients: 9, fullRange: true))
        // An AVIF's own nclx, through the tool: the conformance file's BT.2020 PQ stays PQ
        // (an HDR source is written as HDR where the format holds it), full range.
        let source = AVIFConformanceTests.path("files/gen_avifenc_10bit_422_pq_limited.avif")
        let again = try RasterImage(contentsOf: source).encoded(as: .avif)
        #expect(try AVIFContainer(again).nclx == .init(primaries: 9, transfer: 16, matrix: 9, fullRange: true))
        // --strip and --strip-all keep it: without it the samples would be read as SDR.
        let stripped = try RasterImage(contentsOf: source).encoded(as: .avif, options: EncodeOptions(stripMetadata: true))
        #expect(try AVIFContainer(stripped).nclx == .init(primaries: 9, transfer: 16, matrix: 9, fullRange: true))
        let all = try RasterImage(contentsOf: source).encoded(as: .avif, options: EncodeOptions(stripMetadata: true, stripColorProfile: true))
        #expect(try AVIFContainer(all).nclx == .init(primaries: 9, transfer: 16, matrix: 9, fullRange: true))
        // SDR when asked: tone-mapped, described as Display P3 by ICC (nclx unspecified).
        var sdr = EncodeOptions()
        sdr.standardDynamicRange = true
        let toned = try AVIFContainer(RasterImage(contentsOf: source).encoded(as: .avif, options: sdr))
        #expect(toned.nclx?.transfer != 16 && toned.icc == ColorProfile.displayP3.iccData)
        // A matrix libavif does not convert with is replaced by BT.601.
        pq.nclx?.matrixCoefficients = 14
        #expect(try AVIFContainer(Self.encode(p, metadata: pq)).nclx?.matrix == 6)
    }

    /// ICC, EXIF and XMP into AVIF and back, across PNG and JPEG both ways.
    @Test func metadataCrossesPNGAndJPEGBothWays() throws {
        let icc = RoundTripTests.outputICC
        let exif = ExifFixture.make(orientation: 1, extra: Array("filterchain test camera".utf8))
        let xmp = MetadataTests.xmpPacket()
        let metadata = ImageMetadata(iccProfile: icc, exif: exif, xmp: xmp)
        let image = try RasterImage(width: 24, height: 16, format: PixelFormat(.rgb, .eight),
                                    samples: (0..<24 * 16 * 3).map { ($0 * 37) % 256 }, metadata: metadata)
        for source in [ImageFormat.png, .jpeg] {
            let avif = try MetadataTests.reencoded(try image.encoded(as: source), as: .avif)
            let container = try AVIFContainer(avif)
            #expect(container.icc == icc && container.exif == exif && container.xmp == xmp, "from \(source.id)")
            #expect(container.rotation == nil && container.mirror == nil)
            // And back out of the AVIF, read by the other formats' own walkers.
            let png = try MetadataTests.reencoded(avif, as: .png)
            let pngChunks = MetadataTests.pngChunks(png)
            #expect(pngChunks.first { $0.type == "eXIf" }?.data == exif)
            #expect(pngChunks.contains { $0.type == "iTXt" && $0.data.suffix(xmp.count).elementsEqual(xmp) })
            #expect(try RasterImage(decoding: png).metadata.iccProfile == icc)
            let jpeg = try MetadataTests.reencoded(avif, as: .jpeg)
            let segments = MetadataTests.jpegSegments(jpeg)
            #expect(segments.contains { $0.marker == 0xE1 && $0.payload == XMP.jpegPrefix + xmp })
            #expect(segments.contains { $0.marker == 0xE1 && $0.payload == WebPDecoder.exifPrefix + exif })
            #expect(try RasterImage(decoding: jpeg).metadata.iccProfile == icc)
        }
        // AVIF to AVIF keeps them too; --strip-all drops them all, and the sRGB nclx says the colour.
        let avif = try image.encoded(as: .avif)
        #expect(try RasterImage(decoding: try MetadataTests.reencoded(avif, as: .avif)).metadata.iccProfile == icc)
        let stripped = try AVIFContainer(MetadataTests.reencoded(avif, as: .avif, EncodeOptions(stripMetadata: true, stripColorProfile: true)))
        #expect(stripped.icc == nil && stripped.exif == nil && stripped.xmp == nil)
        #expect(stripped.nclx == .init(primaries: 1, transfer: 13, matrix: 6, fullRange: true))
        // Comments have no place in AVIF: said in a note.
        var commented = metadata
        commented.comments = [Array("a comment".utf8)]
        let writer = try ImageWriter(.memory(OutputBuffer()), format: .avif,
                                     header: EncodeHeader(width: 2, height: 2, format: PixelFormat(.rgb, .eight), metadata: commented))
        #expect(writer.notes == ["AVIF has no place for comments; not written"])
        // EXIF data that is not TIFF data (libavif would refuse the file) is left out, said in a note.
        let buffer = OutputBuffer()
        let bad = try ImageWriter(.memory(buffer), format: .avif,
                                  header: EncodeHeader(width: 2, height: 2, format: PixelFormat(.rgb, .eight),
                                                       metadata: ImageMetadata(exif: [1, 2, 3, 4, 5, 6, 7, 8], xmp: xmp)))
        #expect(bad.notes == ["the EXIF data does not start with a TIFF header; not written"])
        try bad.writeNow(rows: [UInt8](repeating: 128, count: 12), stride: 6, count: 2)
        try bad.finish()
        let written = try AVIFContainer(buffer.bytes)
        #expect(written.exif == nil && written.xmp == xmp)
    }

    /// An EXIF Orientation kept in the metadata (the pixels as stored, --no-auto-orient) is
    /// written by libavif as irot/imir, so AVIF readers show the picture as EXIF said; reading
    /// it back turns it and resets the tag, so it is turned once. Orientation 1: no boxes.
    @Test func exifOrientationBecomesIrotAndIsAppliedOnce() throws {
        let stored = Pixels.random(width: 6, height: 4, format: PixelFormat(.rgb, .eight), seed: 3)
        let bytes = try Self.encode(stored, EncodeOptions(quality: 100), metadata: ImageMetadata(exif: ExifFixture.make(orientation: 6)))
        let container = try AVIFContainer(bytes)
        #expect(container.rotation == 3 && container.mirror == nil, "orientation 6: 90 degrees clockwise")
        let (upright, info, _) = try Self.decode(bytes)
        #expect(info.width == 4 && info.height == 6)
        #expect(Exif.orientation(in: info.metadata.exif!) == .up)
        // Orientation 6: the stored top-left pixel ends at the top right.
        #expect(upright.samples[(4 - 1) * 3..<4 * 3].elementsEqual(stored.samples[0..<3]))
        // And the tool writes what it read with orientation 1: no irot, nothing turned again.
        let again = try RasterImage(decoding: bytes).encoded(as: .avif, options: EncodeOptions(quality: 100))
        let c2 = try AVIFContainer(again)
        #expect(c2.rotation == nil && c2.mirror == nil)
        #expect(try Self.decode(again).0 == upright)
    }

    /// Over 65536 on a side is refused before any work, with that limit in the message.
    @Test func overTheSideLimitIsRefusedBeforeWriting() throws {
        let header = EncodeHeader(width: 65537, height: 1, format: PixelFormat(.rgb, .eight))
        #expect { _ = try ImageWriter(.memory(OutputBuffer()), format: .avif, header: header) } throws: { error in
            "\(error)".contains("65536")
        }
    }

    /// An ftyp box naming avif or avis, as major or compatible brand, is AVIF's; one that
    /// names neither (heic, mif1 alone) is not (HEIF's rule, issue 21).
    @Test func sniffedByTheFtypBrands() {
        func ftyp(_ major: String, _ compatible: [String]) -> [UInt8] {
            let body = Array(major.utf8) + [0, 0, 0, 0] + compatible.flatMap { Array($0.utf8) }
            return MetadataTests.be32(UInt32(8 + body.count)) + Array("ftyp".utf8) + body + [0, 0, 0, 8] + Array("meta".utf8)
        }
        #expect(AVIFCodec.isAVIF(ftyp("avif", ["mif1", "miaf"])))
        #expect(AVIFCodec.isAVIF(ftyp("avis", [])))
        #expect(AVIFCodec.isAVIF(ftyp("mif1", ["miaf", "MA1B", "avif"])))
        #expect(AVIFCodec.isAVIF(ftyp("heic", ["mif1", "avif"])))
        #expect(!AVIFCodec.isAVIF(ftyp("heic", ["mif1", "heic"])))
        #expect(!AVIFCodec.isAVIF(ftyp("mif1", ["mif1", "miaf"])))
        // The minor version is not a brand; a brand past the box's end is not one either.
        #expect(!AVIFCodec.isAVIF(ftyp("mif1", []).prefix(12) + Array("avif".utf8) + [0, 0, 0, 0]))
        var short = ftyp("mif1", ["miaf"])
        short += Array("avif".utf8)
        #expect(!AVIFCodec.isAVIF(short))
        #expect(!AVIFCodec.isAVIF(Array("RIFF\0\0\0\0WEBPavif".utf8)))
        #expect((try? ImageFormat.sniff(Array(ftyp("mif1", ["avif"]).prefix(32))).get()) == .avif)
    }

    // MARK: Reading

    static func fixture(_ name: String) -> String { TestData.fixtures.appendingPathComponent("avif/" + name).path }

    /// A file stored with premultiplied alpha (avifenc --premultiply, lossless) is delivered
    /// unpremultiplied, with either conversion: close to the source where alpha is large
    /// enough to hold the colour (within 255 / alpha + 1: the premultiplied samples keep
    /// alpha / 255 of the precision), and, premultiplied again, within 2 of the source
    /// premultiplied (avifenc premultiplies through libyuv's approximate attenuation, 1 off
    /// round(c * a / 255) at most, and the way back rounds once more).
    @Test(arguments: [AVIFDecoder.Conversion.reference, .fast])
    func premultipliedAlphaIsUnpremultiplied(conversion: AVIFDecoder.Conversion) throws {
        let input = try OpenedInput.open(.file(Self.fixture("premultiplied.avif")))
        let decoder = try AVIFDecoder(input, options: .init(), conversion: conversion)
        #expect(decoder.info.premultiplied == 1)
        let reader = ImageReader(name: input.name, decoder: decoder, sourceFormat: .avif, options: .init())
        let decoded = Pixels(bytes: try reader.readAll(), width: reader.info.width, height: reader.info.height, format: reader.info.format)
        let (source, _) = try Pixels.read(Self.fixture("premultiplied-source.png"))
        #expect(decoded.format == PixelFormat(.rgba, .eight) && source.format == decoded.format)
        let partial = stride(from: 3, to: source.samples.count, by: 4).filter { (16..<255).contains(source.samples[$0]) }.count
        #expect(partial > 100, "the fixture has partly transparent pixels")
        var worstAgain = 0, outside = 0
        for i in stride(from: 0, to: source.samples.count, by: 4) {
            let a = source.samples[i + 3]
            #expect(decoded.samples[i + 3] == a)
            for c in 0..<3 {
                worstAgain = max(worstAgain, abs((decoded.samples[i + c] * a + 127) / 255 - (source.samples[i + c] * a + 127) / 255))
                if a >= 16 && abs(decoded.samples[i + c] - source.samples[i + c]) > 255 / a + 1 { outside += 1 }
            }
        }
        #expect(worstAgain <= 2)
        #expect(outside == 0)
    }

    /// A sequence (avis) gives its first frame, with a notice saying so.
    @Test func aSequenceGivesItsFirstFrame() throws {
        let (first, info) = try Pixels.read(Self.fixture("sequence-3.avif"))
        let reader = try ImageReader.open(.file(Self.fixture("sequence-3.avif")))
        #expect(reader.notices.count == 1 && reader.notices[0].contains("a sequence of 3 frames: only the first frame was read"),
                "\(reader.notices)")
        let (frame0, _) = try Pixels.read(Self.fixture("sequence-frame0.png"))
        #expect(info.width == frame0.width && info.height == frame0.height)
        // (The sequence has alpha, as one of its frames does; the first frame is opaque.)
        let rgba = { (p: Pixels) in Pixels(width: p.width, height: p.height, format: PixelFormat(.rgba, .eight), samples: p.rgba) }
        #expect(Self.psnr(rgba(first), rgba(frame0), channels: [0, 1, 2]) > 30)
    }

    /// The pixel limit is checked from the container, before decoding; a size over libavif's
    /// own limit (16384 x 16384) is refused as such.
    @Test func limitsAreCheckedBeforeDecoding() throws {
        let path = AVIFConformanceTests.path("files/pillow_hopper.avif")
        #expect { _ = try ImageReader.open(.file(path), options: DecodeOptions(maxPixels: 1000)) } throws: { error in
            (error as? CodecError)?.reason == .tooManyPixels(width: 128, height: 128, limit: 1000)
        }
        // The ispe box says another size: 15000 x 15000 is over the tool's default limit, and
        // 20000 x 20000 over libavif's.
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let ispe = try #require(Self.find(Array("ispe".utf8), in: bytes))
        func sized(_ side: UInt32) -> [UInt8] {
            var b = bytes
            for k in 0..<2 { b.replaceSubrange(ispe + 8 + 4 * k..<ispe + 12 + 4 * k, with: MetadataTests.be32(side)) }
            return b
        }
        #expect { _ = try ImageReader.open(.bytes(sized(15000), name: "big.avif")) } throws: { error in
            (error as? CodecError)?.reason == .tooManyPixels(width: 15000, height: 15000, limit: DecodeOptions.defaultMaxPixels)
        }
        #expect { _ = try ImageReader.open(.bytes(sized(20000), name: "huge.avif")) } throws: { error in
            "\(error)".contains("over libavif's limit of 268435456 pixels")
        }
        // The AV1 decoder is held to the limit too: an ispe of 64 x 64 over a 128 x 128
        // frame is refused under a limit of 5000 pixels (libavif scales the frame to the ispe
        // size otherwise).
        let liar = sized(64)
        #expect { _ = try ImageReader.open(.bytes(liar, name: "liar.avif"), options: DecodeOptions(maxPixels: 5000)).readAll() } throws: { error in
            "\(error)".hasPrefix("liar.avif: damaged AVIF data: decoding:")
        }
        let (scaled, info, _) = try Self.decode(liar)
        #expect(info.width == 64 && info.height == 64 && scaled.samples.count == 64 * 64 * 3)
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        return (0...haystack.count - needle.count).first { haystack[$0..<$0 + needle.count].elementsEqual(needle) }
    }
}

extension ImageMetadata {
    /// Metadata of a JPEG source of the given quality (which only JPEG outputs follow).
    init(sourceJPEGQuality quality: Int) {
        self.init()
        sourceJPEG = JPEGEncoding(quality: quality, chroma: .yuv420)
    }
}
