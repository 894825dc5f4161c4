import Foundation
import Testing
@testable import FilterChain

/// HEIC writing (libheif's x265 through fc_heif): every layout comes back in its own layout
/// and close, read by our decoder (libheif with our libde265 plugin) and by libheif's own
/// `heif-convert` (its built-in libde265 plugin) when installed; 16 bits as 10-bit HEVC;
/// ICC, EXIF and XMP kept; options; sizes x265 refuses are one clear error that writes
/// nothing. Tests/Oracle/test_heic_output.py reads the files with libvips too.
@Suite struct HEIFWriteTests {
    static func encode(_ p: Pixels, _ options: EncodeOptions = .init(), metadata: ImageMetadata = .none) throws -> [UInt8] {
        let buffer = OutputBuffer()
        try p.write(to: .memory(buffer), format: .heif, metadata: metadata, options: options)
        return buffer.bytes
    }

    static func decode(_ bytes: [UInt8]) throws -> (Pixels, ImageInfo) {
        let reader = try ImageReader.open(.bytes(bytes, name: "x.heic"))
        let data = try reader.readAll()
        return (Pixels(bytes: data, width: reader.info.width, height: reader.info.height, format: reader.info.format), reader.info)
    }

    @Test(arguments: AVIFTests.layouts)
    func everyLayoutRoundTripsClosely(format: PixelFormat) throws {
        let original = AVIFTests.smooth(67, 45, format)
        for chroma in [ChromaSubsampling.yuv420, .yuv444] {
            let bytes = try Self.encode(original, EncodeOptions(quality: 90, chroma: chroma))
            let (decoded, info) = try Self.decode(bytes)
            #expect(info.format == format && info.width == 67 && info.height == 45)
            // Colour: 4:2:0 loses some chroma; alpha is its own HEVC image at the same quality.
            let colour = Self.channels(format, alpha: false), alpha = Self.channels(format, alpha: true)
            let quality = AVIFTests.psnr(decoded, original, channels: colour)
            #expect(quality > (chroma == .yuv444 ? 40 : 36), "\(format) \(chroma.rawValue): \(quality) dB")
            if !alpha.isEmpty {
                let a = AVIFTests.psnr(decoded, original, channels: alpha)
                #expect(a > 40, "\(format) alpha: \(a) dB")
            }
            #expect(HEIFConformanceTests.find(Array("ftypheic".utf8), in: bytes) != nil)
        }
    }

    static func channels(_ format: PixelFormat, alpha: Bool) -> [Int] {
        let n = format.channels.count
        return format.channels.hasAlpha ? (alpha ? [n - 1] : Array(0..<(n - 1))) : (alpha ? [] : Array(0..<n))
    }

    /// 16-bit rows are 10-bit HEVC: a 16-bit image comes back 16-bit, within what 10 bits
    /// and the codec keep; its steps finer than 8 bits hold.
    @Test func sixteenBitIsTenBitHEVC() throws {
        let original = AVIFTests.smooth(64, 48, PixelFormat(.rgb, .sixteen))
        let bytes = try Self.encode(original, EncodeOptions(quality: 95, chroma: .yuv444))
        let (decoded, info) = try Self.decode(bytes)
        #expect(info.format.depth == .sixteen)
        #expect(AVIFTests.psnr(decoded, original) > 45)
        // The hvcC box says 10 bits: bit depth luma minus 8 is 2.
        let hvcC = try #require(HEIFConformanceTests.find(Array("hvcC".utf8), in: bytes))
        #expect(bytes[hvcC + 4 + 17] & 7 == 2 && bytes[hvcC + 4 + 18] & 7 == 2)
    }

    @Test func metadataIsKept() throws {
        let p = AVIFTests.smooth(40, 30, PixelFormat(.rgb, .eight))
        let icc = try #require(ColorProfile.displayP3.iccData)
        let exif = ExifFixture.make(orientation: 1, extra: Array("filterchain heic test".utf8))
        let xmp = Array(#"<?xpacket begin=""?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF/></x:xmpmeta><?xpacket end="w"?>"#.utf8)
        let bytes = try Self.encode(p, metadata: ImageMetadata(iccProfile: icc, exif: exif, xmp: xmp))
        let (_, info) = try Self.decode(bytes)
        #expect(info.metadata.iccProfile == icc)
        #expect(info.metadata.exif == exif)
        #expect(info.metadata.xmp == xmp)
    }

    @Test func qualityChromaAndEffortDoWhatTheySay() throws {
        let p = AVIFTests.smooth(96, 64, PixelFormat(.rgb, .eight))
        let low = try Self.encode(p, EncodeOptions(quality: 20)), high = try Self.encode(p, EncodeOptions(quality: 90))
        #expect(low.count < high.count)
        #expect(AVIFTests.psnr(try Self.decode(low).0, p) < AVIFTests.psnr(try Self.decode(high).0, p))
        let c444 = try Self.encode(p, EncodeOptions(quality: 90, chroma: .yuv444))
        #expect(c444 != high)
        // hvcC's chroma_format_idc: 1 for 4:2:0, 3 for 4:4:4.
        func chroma(_ bytes: [UInt8]) throws -> UInt8 { bytes[try #require(HEIFConformanceTests.find(Array("hvcC".utf8), in: bytes)) + 4 + 16] & 3 }
        #expect(try chroma(high) == 1 && chroma(c444) == 3)
        let fast = try Self.encode(p, EncodeOptions(quality: 50, settings: ["effort": .integer(0)]))
        #expect(try Self.decode(fast).1.width == 96)
        #expect(throws: RenderError.self) { _ = try Self.encode(p, EncodeOptions(settings: ["effort": .integer(10)])) }
    }

    @Test func sizesX265RefusesAreOneClearErrorAndWriteNothing() throws {
        let folder = NSTemporaryDirectory() + "fc-heic-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        // Thin pictures: HEVC's levels cannot hold them.
        let thin = Pixels.random(width: 8192, height: 16, format: PixelFormat(.rgb, .eight))
        do {
            try thin.write(to: .file(folder + "/thin.heic"), format: .heif)
            Issue.record("8192 x 16 was written")
        } catch {
            #expect("\(error)" == "\(folder)/thin.heic: cannot write: x265 cannot encode a 8192 x 16 picture at effort 5 (HEVC's size limits)", "\(error)")
        }
        // Tiny pictures encode, but not with the placebo preset.
        let tiny = Pixels.random(width: 3, height: 5, format: PixelFormat(.rgba, .eight))
        try tiny.write(to: .file(folder + "/tiny.heic"), format: .heif)
        #expect(try Self.decode(Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/tiny.heic")))).1.width == 3)
        #expect(throws: CodecError.self) {
            try tiny.write(to: .file(folder + "/placebo.heic"), format: .heif, options: EncodeOptions(settings: ["effort": .integer(9)]))
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["tiny.heic"])
    }

    /// libheif's own decoder (heif-convert, libheif-examples) reads what we write, to the
    /// pixels ours reads.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/heif-convert")))
    func libheifsOwnDecoderAgrees() throws {
        let folder = NSTemporaryDirectory() + "fc-heic-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let p = AVIFTests.smooth(67, 45, PixelFormat(.rgba, .eight))
        try p.write(to: .file(folder + "/a.heic"), format: .heif, options: EncodeOptions(quality: 80))
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/heif-convert")
        process.arguments = [folder + "/a.heic", folder + "/a.png"]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        let theirs = try RasterImage(contentsOf: folder + "/a.png")
        let ours = try Self.decode(Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/a.heic")))).0
        #expect(theirs.width == 67 && theirs.height == 45 && theirs.format == ours.format)
        // The same HEVC stream, the same YCbCr to RGB: equal, or a level apart in places.
        let diff = zip(theirs.pixels, ours.bytes).map { abs(Int($0) - Int($1)) }
        #expect(diff.max()! <= 2, "max difference \(diff.max()!)")
    }
}
