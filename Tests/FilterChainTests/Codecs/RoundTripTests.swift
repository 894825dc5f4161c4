import Foundation
import Testing
@testable import FilterChain

@Suite struct RoundTripTests {
    static let layouts: [PixelFormat] = Channels.allCases.flatMap { c in BitDepth.stored.map { PixelFormat(c, $0) } }

    @Test(arguments: layouts, [(1, 1), (37, 23), (300, 900)])
    func pngIsLossless(format: PixelFormat, size: (Int, Int)) throws {
        let folder = TestData.temporaryFolder()
        let path = folder.appendingPathComponent("out.png").path
        let original = Pixels.random(width: size.0, height: size.1, format: format, seed: UInt64(size.0 * 31 + format.bytesPerPixel))
        try original.write(to: .file(path), format: .png)
        let (decoded, info) = try Pixels.read(path)
        #expect(info.format == format)
        #expect(decoded == original)
    }

    @Test(arguments: 0...9)
    func pngCompressionLevelsAreLossless(level: Int) throws {
        let folder = TestData.temporaryFolder()
        let path = folder.appendingPathComponent("out.png").path
        let original = Pixels.random(width: 64, height: 40, format: PixelFormat(.rgb, .eight), seed: 7)
        try original.write(to: .file(path), format: .png, options: EncodeOptions(compressionLevel: level))
        #expect(try Pixels.read(path).0 == original)
    }

    static var test3ICC: [UInt8] { [UInt8](try! Data(contentsOf: TestData.jpegImages.appendingPathComponent("test3.icc"))) }
    /// A profile a render writes back with its output (Display P3, matrix/TRC), for tests of
    /// a profile carried through a render. (test3.icc, a colour space profile of 8-bit
    /// tables, comes back up to 49 levels off through its own tables: a render writes sRGB
    /// in its place, see ColorProfile.servesAsOutput.)
    static var outputICC: [UInt8] {
        [UInt8](try! Data(contentsOf: TestData.conformance.appendingPathComponent("icc/profiles/DisplayP3-v4.icc")))
    }

    @Test func pngKeepsICCAndColourChunks() throws {
        let folder = TestData.temporaryFolder()
        let path = folder.appendingPathComponent("icc.png").path
        let pixels = Pixels.random(width: 8, height: 8, format: PixelFormat(.rgb, .eight))
        try pixels.write(to: .file(path), format: .png, metadata: ImageMetadata(iccProfile: Self.test3ICC))
        #expect(try ImageReader.open(.file(path)).info.metadata.iccProfile == Self.test3ICC)

        let srgbPath = folder.appendingPathComponent("srgb.png").path
        let chunks = PNGColorChunks(srgbIntent: 0, gamma: 45455, chromaticities: [31270, 32900, 64000, 33000, 30000, 60000, 15000, 6000])
        try pixels.write(to: .file(srgbPath), format: .png, metadata: ImageMetadata(pngColor: chunks))
        #expect(try ImageReader.open(.file(srgbPath)).info.metadata.pngColor == chunks)
    }

    @Test func iccForAnotherColourSpaceIsNotWritten() throws {
        let folder = TestData.temporaryFolder()
        let path = folder.appendingPathComponent("grey.png").path
        let pixels = Pixels.random(width: 8, height: 8, format: PixelFormat(.grey, .eight))
        let writer = try ImageWriter(.file(path), format: .png,
                                     header: EncodeHeader(width: 8, height: 8, format: pixels.format, metadata: ImageMetadata(iccProfile: Self.test3ICC)))
        try pixels.bytes.withUnsafeBytes { try writer.writeNow(rows: $0.baseAddress!, stride: 8, count: 8) }
        try writer.finish()
        #expect(writer.notes.count == 1)
        #expect(try ImageReader.open(.file(path)).info.metadata.iccProfile == nil)
    }

    @Test func jpegKeepsICCAndEXIF() throws {
        let folder = TestData.temporaryFolder()
        let path = folder.appendingPathComponent("meta.jpg").path
        let exif = ExifFixture.make(orientation: 1, extra: Array("filterchain test camera".utf8))
        let pixels = Pixels.random(width: 16, height: 16, format: PixelFormat(.rgb, .eight))
        try pixels.write(to: .file(path), format: .jpeg, metadata: ImageMetadata(iccProfile: Self.test3ICC, exif: exif))
        let info = try ImageReader.open(.file(path)).info
        #expect(info.metadata.iccProfile == Self.test3ICC)
        #expect(info.metadata.exif == exif)
    }

    @Test func jpegKeepsAProfileSpanningSeveralSegments() throws {
        let folder = TestData.temporaryFolder()
        let path = folder.appendingPathComponent("bigicc.jpg").path
        // A made-up 150 kB RGB profile: three APP2 segments.
        var profile = Self.test3ICC
        var rng = SeededRandom(3)
        while profile.count < 150_000 { profile.append(UInt8.random(in: 0...255, using: &rng)) }
        let pixels = Pixels.random(width: 16, height: 16, format: PixelFormat(.rgb, .eight))
        try pixels.write(to: .file(path), format: .jpeg, metadata: ImageMetadata(iccProfile: profile))
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let segments = (0..<(bytes.count - 14)).filter { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xE2 && Array(bytes[($0 + 4)..<($0 + 15)]) == Array("ICC_PROFILE".utf8) }
        #expect(segments.count == 3)
        #expect(try ImageReader.open(.file(path)).info.metadata.iccProfile == profile)
    }

    @Test func jpegQualityAndSubsamplingOptions() throws {
        let folder = TestData.temporaryFolder()
        // A smooth image: JPEG keeps it close; higher quality is closer and larger.
        let w = 64, h = 48
        var samples: [Int] = []
        for y in 0..<h { for x in 0..<w { samples += [x * 4, y * 5, (x + y) * 2] } }
        let smooth = Pixels(width: w, height: h, format: PixelFormat(.rgb, .eight), samples: samples)
        var sizes: [Int] = []
        var errors: [Int] = []
        for (i, options) in [EncodeOptions(quality: 30), EncodeOptions(quality: 95), EncodeOptions(quality: 95, progressive: true, chroma: .yuv444)].enumerated() {
            let path = folder.appendingPathComponent("q\(i).jpg").path
            try smooth.write(to: .file(path), format: .jpeg, options: options)
            let (decoded, info) = try Pixels.read(path)
            #expect(info.width == w && info.height == h)
            sizes.append(try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int)
            errors.append(zip(decoded.samples, smooth.samples).map { abs($0 - $1) }.max()!)
        }
        #expect(sizes[0] < sizes[1])
        #expect(errors[1] <= errors[0])
        #expect(errors[1] <= 6)
        #expect(errors[2] <= 4)
    }

    @Test func greyJPEGStaysGrey() throws {
        let folder = TestData.temporaryFolder()
        let path = folder.appendingPathComponent("grey.jpg").path
        let pixels = Pixels(width: 16, height: 16, format: PixelFormat(.grey, .eight), samples: (0..<256).map { $0 })
        try pixels.write(to: .file(path), format: .jpeg, options: EncodeOptions(quality: 100))
        let (decoded, info) = try Pixels.read(path)
        #expect(info.format == PixelFormat(.grey, .eight))
        #expect(zip(decoded.samples, pixels.samples).allSatisfy { abs($0 - $1) <= 2 })
    }

    /// Patches of known ink; R = 255 (1 - C)(1 - K), G from M, B from Y.
    @Test(arguments: ["cmyk-adobe.jpg", "ycck-adobe.jpg", "cmyk-plain.jpg"])
    func cmykComesOutAsRGB(name: String) throws {
        let ink: [[Double]] = [[0, 0, 0, 0], [100, 0, 0, 0], [0, 100, 0, 0], [0, 0, 100, 0],
                               [0, 0, 0, 100], [20, 40, 60, 10], [75, 25, 50, 30], [50, 50, 50, 50]]
        let (pixels, info) = try Pixels.read(TestData.fixtures.appendingPathComponent(name).path)
        #expect(info.format == PixelFormat(.rgb, .eight))
        for (i, p) in ink.enumerated() {
            let (cx, cy) = ((i % 4) * 16 + 8, (i / 4) * 16 + 8)
            let k = p[3] / 100
            let expected = (0..<3).map { 255 * (1 - p[$0] / 100) * (1 - k) }
            let got = (0..<3).map { Double(pixels.samples[(cy * 64 + cx) * 3 + $0]) }
            for c in 0..<3 { #expect(abs(got[c] - expected[c]) <= 3, "patch \(i): \(got) vs \(expected)") }
        }
    }
}

/// Minimal EXIF data: a little-endian TIFF header and IFD0 with Orientation and, optionally,
/// an ImageDescription.
enum ExifFixture {
    static func make(orientation: Int, extra: [UInt8] = [], bigEndian: Bool = false) -> [UInt8] {
        func u16(_ v: Int) -> [UInt8] { bigEndian ? [UInt8(v >> 8), UInt8(v & 255)] : [UInt8(v & 255), UInt8(v >> 8)] }
        func u32(_ v: Int) -> [UInt8] { bigEndian ? [UInt8(v >> 24), UInt8(v >> 16 & 255), UInt8(v >> 8 & 255), UInt8(v & 255)] : [UInt8(v & 255), UInt8(v >> 8 & 255), UInt8(v >> 16 & 255), UInt8(v >> 24)] }
        var d: [UInt8] = (bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]) + u16(42) + u32(8)
        let entries = extra.isEmpty ? 1 : 2
        d += u16(entries)
        if !extra.isEmpty {
            let text = extra + [0]
            d += u16(0x010E) + u16(2) + u32(text.count) + u32(8 + 2 + entries * 12 + 4)
        }
        d += u16(0x0112) + u16(3) + u32(1) + u16(orientation) + u16(0)
        d += u32(0)
        if !extra.isEmpty { d += extra + [0] }
        return d
    }
}
