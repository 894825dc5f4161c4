#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Testing
@testable import FilterChain
import CRAW

/// Camera RAW through LibRaw, on DNGs written here byte by byte (TestDNG): every CFA pattern,
/// 12 and 14 bits, black levels and odd sizes develop to the scene the file was made from (the
/// DNG colour model, computed independently); orientations; half size as shrink-on-load;
/// white balance; metadata; sniffing; damaged and inconsistent files. rawpy's development is
/// the oracle in Tests/Oracle/test_raw.py.
@Suite struct RAWTests {
    static let available = RAWCodec.declaration.libraryProblem == nil

    /// Four patches of linear sRGB: grey, red, green, blue (in gamut, below the highlights).
    static let patches: [[Double]] = [[0.5, 0.5, 0.5], [0.6, 0.2, 0.1], [0.15, 0.5, 0.2], [0.1, 0.2, 0.6]]
    static func quadrants(_ width: Int, _ height: Int) -> (Int, Int) -> [Double] {
        { x, y in patches[(y < height / 2 ? 0 : 2) + (x < width / 2 ? 0 : 1)] }
    }

    static func linear(_ v: Double) -> Double { v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }

    /// Renders `dng` with `chain` to 16-bit sRGB in memory; the output after `step`.
    static func develop(_ dng: TestDNG, chain: Chain = Chain(), step: Int = 0, decode: DecodeOptions = .init(),
                        name: String = "test.dng") throws -> RenderResult {
        try Renderer(threads: 2).render(chain, source: .bytes(dng.bytes, name: name), decode: decode,
                                        outputs: [RenderOutput(step: step, .memory(depth: .sixteen))])
    }

    /// The linear sRGB colour at (x, y) of a 16-bit sRGB image.
    static func colour(_ image: RasterImage, _ x: Int, _ y: Int) throws -> [Double] {
        try (0..<3).map { linear(Double(try image.sample(x: x, y: y, channel: $0)) / 65535) }
    }

    /// Each quadrant's inside (4 pixels from its edges, where the demosaic sees one colour)
    /// against headroom * its scene colour.
    static func expectQuadrants(_ image: RasterImage, headroom: Double, tolerance: Double = 0.006,
                                _ comment: String) throws {
        let w = image.width, h = image.height
        for (q, patch) in patches.enumerated() {
            let x0 = q % 2 == 0 ? 0 : w / 2, y0 = q < 2 ? 0 : h / 2
            for y in stride(from: y0 + 4, to: y0 + h / 2 - 4, by: 3) {
                for x in stride(from: x0 + 4, to: x0 + w / 2 - 4, by: 3) {
                    let got = try colour(image, x, y)
                    for c in 0..<3 where abs(got[c] - headroom * patch[c]) > tolerance {
                        Issue.record("\(comment): patch \(q) at \(x),\(y) channel \(c): \(got[c]), expected \(headroom * patch[c])")
                        return
                    }
                }
            }
        }
    }

    @Test(.enabled(if: available), arguments: TestDNG.Pattern.allCases, [12, 14])
    func everyPatternDevelopsToItsScene(_ pattern: TestDNG.Pattern, _ bits: Int) throws {
        let (w, h) = (66, 50)
        let dng = TestDNG(width: w, height: h, pattern: pattern, bits: bits, black: bits == 12 ? 128 : 1024,
                          scene: Self.quadrants(w, h))
        let result = try Self.develop(dng)
        let image = try #require(result.images[0])
        #expect(image.width == w && image.height == h)
        #expect(result.info.sourceFormat == .raw)
        try Self.expectQuadrants(image, headroom: dng.headroom, "\(pattern) \(bits)-bit")
    }

    @Test(.enabled(if: available), arguments: [(3, "bottom right"), (6, "top right"), (8, "bottom left"), (1, "top left")])
    func orientationIsAppliedOnce(_ orientation: Int, _ corner: String) throws {
        let (w, h) = (40, 24)
        // A red block in the stored top-left corner, grey elsewhere.
        let dng = TestDNG(width: w, height: h, orientation: orientation) { x, y in
            x < 12 && y < 8 ? [0.6, 0.1, 0.1] : [0.3, 0.3, 0.3]
        }
        let image = try #require(try Self.develop(dng).images[0])
        let turned = orientation >= 5
        #expect(image.width == (turned ? h : w) && image.height == (turned ? w : h))
        let right = corner.contains("right"), bottom = corner.contains("bottom")
        let x = right ? image.width - 3 : 2, y = bottom ? image.height - 3 : 2
        let red = try Self.colour(image, x, y)
        #expect(red[0] > 3 * red[1], "orientation \(orientation): the red block should be \(corner), got \(red)")
        let opposite = try Self.colour(image, right ? 2 : image.width - 3, bottom ? 2 : image.height - 3)
        #expect(abs(opposite[0] - opposite[1]) < 0.01)
    }

    static let thumbnail = """
        {"version": 1, "filters": [{"id": "6C7C50D4-39A8-4C4B-9C1E-0A0F1B7E2A11", "type": "resize",
          "parameters": {"width": 24, "height": 24, "fit": "contain", "fast": true}}]}
        """

    @Test(.enabled(if: available), arguments: ["srgb", "linear"])
    func halfSizeIsShrinkOnLoadInAnyWorkingSpace(_ space: String) throws {
        let (w, h) = (96, 64)
        let dng = TestDNG(width: w, height: h, pattern: .grbg, scene: Self.quadrants(w, h))
        var text = Self.thumbnail
        text = text.replacingOccurrences(of: "{\"version\": 1,", with: "{\"version\": 1, \"workingSpace\": \"\(space)\",")
        let chain = try Chain.parse(Array(text.utf8), file: "thumb.json")
        let result = try Self.develop(dng, chain: chain, step: 1)
        #expect(result.shrunkOnLoad == 2)
        let image = try #require(result.images[0])
        #expect(image.width == 24 && image.height == 16)
        // The patches' middles, away from the resize's reach across patch edges.
        for (q, patch) in Self.patches.enumerated() {
            let x = q % 2 == 0 ? 6 : 18, y = q < 2 ? 4 : 12
            let got = try Self.colour(image, x, y)
            for c in 0..<3 { #expect(abs(got[c] - dng.headroom * patch[c]) < 0.01, "patch \(q) channel \(c): \(got[c])") }
        }
        // An output before the resize takes the whole development.
        let full = try Self.develop(dng, chain: chain, step: 0)
        #expect(full.shrunkOnLoad == 1 && full.images[0]?.width == w)
    }

    @Test(.enabled(if: available))
    func thePreviewServesAThumbnailWhenLargeEnough() throws {
        let (w, h) = (96, 64)
        // The camera's own rendering: a flat blue-grey JPEG, easy to tell from the development.
        let look = try RasterImage(width: 48, height: 32, format: PixelFormat(.rgb, .eight),
                                   pixels: [UInt8]((0..<(48 * 32)).flatMap { _ in [40, 90, 200] as [UInt8] }))
        let path = NSTemporaryDirectory() + "fc-raw-preview-\(UUID().uuidString).jpg"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try look.write(to: path, options: EncodeOptions(settings: ["quality": .integer(95)]))
        let jpeg = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        var dng = TestDNG(width: w, height: h, orientation: 6, scene: Self.quadrants(w, h))
        dng.preview = (jpeg, 48, 32)
        let camera = try #require(try ImageReader.open(.bytes(dng.bytes, name: "p.dng")).info.metadata.cameraRAW)
        #expect(camera.previewWidth == 48 && camera.previewHeight == 32 && camera.previewIsJPEG)
        let chain = try Chain.parse(Array(Self.thumbnail.utf8), file: "thumb.json")
        var options = DecodeOptions()
        options.raw.preview = true
        let result = try Self.develop(dng, chain: chain, step: 1, decode: options)
        let image = try #require(result.images[0])
        // Turned by the RAW's orientation (6: a quarter turn), 32 x 48 upright, to fit 24 x 24.
        #expect(image.width == 16 && image.height == 24)
        let blue = try (0..<3).map { try image.sample(x: 8, y: 12, channel: $0) }
        #expect(abs(blue[0] - 40 * 257) < 6 * 257 && abs(blue[2] - 200 * 257) < 6 * 257, "\(blue)")
        // Too small for the chain: the RAW is developed.
        let big = try Chain.parse(Array(Self.thumbnail.replacingOccurrences(of: "24", with: "60").utf8), file: "big.json")
        let developed = try Self.develop(dng, chain: big, step: 1, decode: options)
        let pixel = try (0..<3).map { try developed.images[0]!.sample(x: 2, y: 2, channel: $0) }
        #expect(!(abs(pixel[0] - 40 * 257) < 6 * 257 && abs(pixel[2] - 200 * 257) < 6 * 257))
        // Without --raw-preview, never.
        let plain = try Self.develop(dng, chain: chain, step: 1)
        #expect(try plain.images[0]!.sample(x: 8, y: 12, channel: 2) != blue[2])
    }

    @Test(.enabled(if: available))
    func theEditorsSessionOpensARawAtHalfSize() throws {
        let (w, h) = (128, 96)
        let dng = TestDNG(width: w, height: h, pattern: .bggr, scene: Self.quadrants(w, h))
        let session = try PreviewSession(source: .bytes(dng.bytes, name: "e.dng"), maxSize: 32, renderer: Renderer(threads: 2))
        #expect(session.fullSize == ImageSize(width: w, height: h))
        let base = try #require(try session.render(Chain(), at: [0]).first)
        #expect(base.width == 32 && base.height == 24)
        // Each patch's middle keeps its colour (the half-size development, then the scaling).
        for (q, patch) in Self.patches.enumerated() {
            let x = q % 2 == 0 ? 8 : 24, y = q < 2 ? 6 : 18
            let got = try (0..<3).map { c in Self.linear(Double(try base.sample(x: x, y: y, channel: c)) / Double(base.format.depth == .sixteen ? 65535 : 255)) }
            for c in 0..<3 { #expect(abs(got[c] - dng.headroom * patch[c]) < 0.02, "patch \(q) channel \(c): \(got[c])") }
        }
    }

    /// A render's output is in the output's colour: it no longer says it is a RAW's linear
    /// ProPhoto, so rendering it again (the editor's previews do) changes nothing.
    @Test(.enabled(if: available))
    func anOutputIsNoLongerARawsDevelopment() throws {
        let (w, h) = (64, 48)
        let dng = TestDNG(width: w, height: h, scene: Self.quadrants(w, h))
        let first = try #require(try Self.develop(dng).images[0])
        #expect(first.metadata.cameraRAW == nil)
        let again = try #require(try Renderer(threads: 1).render(Chain(), image: first, outputs: [RenderOutput(step: 0, .memory(depth: .sixteen))]).images[0])
        let same = again.pixels == first.pixels
        #expect(same, "rendering the output again changed its pixels")
    }

    @Test(.enabled(if: available))
    func whiteBalances() throws {
        let (w, h) = (40, 30)
        let dng = TestDNG(width: w, height: h) { _, _ in [0.4, 0.4, 0.4] }
        func mean(_ wb: RAWDevelopment.WhiteBalance) throws -> [Double] {
            var options = DecodeOptions()
            options.raw.whiteBalance = wb
            let image = try #require(try Self.develop(dng, decode: options).images[0])
            return try Self.colour(image, w / 2, h / 2)
        }
        let camera = try mean(.camera)
        #expect(camera.allSatisfy { abs($0 - 0.4 * dng.headroom) < 0.005 }, "as shot, grey stays grey: \(camera)")
        // Grey world on a grey scene is the light's own balance.
        let auto = try mean(.auto)
        #expect(abs(auto[0] - auto[2]) < 0.01 && abs(auto[0] - auto[1]) < 0.01, "auto: \(auto)")
        // 6500 K is the matrix's D65 (LibRaw's daylight), computed by another route.
        let daylight = try mean(.daylight), d6500 = try mean(.kelvin(6500))
        for c in 0..<3 { #expect(abs(daylight[c] - d6500[c]) < 0.01 * max(daylight[c], 0.05), "daylight \(daylight) 6500 K \(d6500)") }
        // The scene's light is warm: daylight leaves it orange; a lower temperature takes more of it away.
        #expect(daylight[0] > daylight[2] * 1.5)
        let warm = try mean(.kelvin(3000))
        #expect(warm[2] / warm[0] > daylight[2] / daylight[0])
    }

    @Test(.enabled(if: available))
    func noAsShotBalanceIsSaid() throws {
        let dng = TestDNG(width: 32, height: 32, asShot: false) { _, _ in [0.3, 0.3, 0.3] }
        let result = try Self.develop(dng)
        #expect(result.warnings.contains { $0.contains("test.dng") && $0.contains("no as-shot white balance") })
    }

    @Test(.enabled(if: available))
    func exifAndCameraAreKept() throws {
        let dng = TestDNG(width: 32, height: 32, make: "Acme", model: "Sensor 9") { _, _ in [0.3, 0.3, 0.3] }
        let reader = try ImageReader.open(.bytes(dng.bytes, name: "a.dng"))
        let camera = try #require(reader.info.metadata.cameraRAW)
        #expect(camera.make == "Acme" && camera.model == "Sensor 9" && camera.pattern == "RGGB")
        #expect(camera.blackLevel == 512 && camera.whiteLevel == 16383 && camera.dngVersion == "1.4.0.0")
        #expect(abs(camera.asShot[0] - dng.neutral[1] / dng.neutral[0]) < 0.001)
        // The EXIF of a JPEG written from it names the camera.
        let folder = NSTemporaryDirectory() + "fc-raw-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        _ = try Renderer(threads: 1).render(Chain(), source: .bytes(dng.bytes, name: "a.dng"),
                                            outputs: [RenderOutput(step: 0, .file(.file(folder + "/a.jpg"), EncodeOptions()))])
        let exif = try #require(try ImageReader.open(.file(folder + "/a.jpg")).info.metadata.exif)
        let text = String(decoding: exif, as: UTF8.self)
        #expect(text.contains("Acme") && text.contains("Sensor 9"))
    }

    /// A RAW that is not TIFF-structured (CR3, RAF, ...) gets EXIF made from LibRaw's fields.
    @Test func exifIsMadeFromLibRawsFieldsWhereTheFileHasNoBlock() throws {
        var info = fc_raw_info()
        withUnsafeMutableBytes(of: &info.make) { b in b.copyBytes(from: Array("Canon".utf8)) }
        withUnsafeMutableBytes(of: &info.model) { b in b.copyBytes(from: Array("EOS R5".utf8)) }
        withUnsafeMutableBytes(of: &info.lens) { b in b.copyBytes(from: Array("RF24-105mm F4 L IS USM".utf8)) }
        info.shutter = 1.0 / 250
        info.aperture = 5.6
        info.iso = 400
        info.focal_length = 50
        info.timestamp = 1_700_000_000
        info.gps = 1
        info.gps_latitude = (48, 51, 29.5)
        info.gps_longitude = (2, 17, 40.2)
        info.gps_altitude = 35
        info.gps_latitude_ref = CChar(UInt8(ascii: "N"))
        info.gps_longitude_ref = CChar(UInt8(ascii: "E"))
        let exif = try #require(RAWCodec.exif(info))
        let ifd0 = try #require(TIFFDirectory(exif: exif))
        #expect(ifd0.text(271) == "Canon" && ifd0.text(272) == "EOS R5")
        #expect(ifd0.text(306)?.count == 19)
        let shot = try #require(ifd0[TIFFDirectory.exifPointer]?.directory)
        #expect(shot.integer(34855) == 400)
        #expect(shot.text(42036) == "RF24-105mm F4 L IS USM")
        func rational(_ d: TIFFDirectory, _ tag: UInt16, _ i: Int = 0) -> Double? {
            guard let e = d[tag], e.type == 5 else { return nil }
            let v = e.value, at = 8 * i
            let n = UInt32(v[at]) | UInt32(v[at + 1]) << 8 | UInt32(v[at + 2]) << 16 | UInt32(v[at + 3]) << 24
            let m = UInt32(v[at + 4]) | UInt32(v[at + 5]) << 8 | UInt32(v[at + 6]) << 16 | UInt32(v[at + 7]) << 24
            return Double(n) / Double(m)
        }
        #expect(rational(shot, 33434) == 1.0 / 250)
        #expect(abs((rational(shot, 33437) ?? 0) - 5.6) < 0.001 && rational(shot, 37386) == 50)
        let gps = try #require(ifd0[TIFFDirectory.gpsPointer]?.directory)
        #expect(gps.text(1) == "N" && gps.text(3) == "E")
        #expect(rational(gps, 2, 0) == 48 && rational(gps, 2, 1) == 51 && abs((rational(gps, 2, 2) ?? 0) - 29.5) < 0.001)
        #expect(abs((rational(gps, 4, 2) ?? 0) - 40.2) < 0.001 && rational(gps, 6) == 35)
        // Nothing known: no EXIF.
        #expect(RAWCodec.exif(fc_raw_info()) == nil)
    }

    @Test(.enabled(if: available))
    func aDNGIsARawWhateverItsNameAndACamerasTIFFStaysATIFF() throws {
        let dng = TestDNG(width: 32, height: 32) { _, _ in [0.3, 0.3, 0.3] }
        #expect(try ImageReader.open(.bytes(dng.bytes, name: "photo.tif")).info.sourceFormat == .raw)
        // A TIFF with a camera maker's Make (what a camera's own TIFF or a converter writes).
        var metadata = ImageMetadata()
        metadata.exif = Self.exif(make: "NIKON CORPORATION")
        let image = try RasterImage(width: 8, height: 8, format: PixelFormat(.rgb, .eight), metadata: metadata,
                                    pixels: [UInt8](repeating: 90, count: 8 * 8 * 3))
        let path = NSTemporaryDirectory() + "fc-raw-\(UUID().uuidString).tif"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try image.write(to: path)
        let reader = try ImageReader.open(.file(path))
        #expect(reader.info.sourceFormat == .tiff)
        #expect(reader.info.metadata.exif.map { String(decoding: $0, as: UTF8.self).contains("NIKON") } == true)
    }

    /// A little EXIF block with IFD0's Make.
    static func exif(make: String) -> [UInt8] {
        let text = Array(make.utf8) + [0]
        var b: [UInt8] = [0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0, 1, 0]
        b += [0x0F, 0x01, 2, 0] + [UInt8(text.count), 0, 0, 0] + [26, 0, 0, 0] + [0, 0, 0, 0]
        return b + text
    }

    @Test(.enabled(if: available))
    func damagedAndInconsistentFilesAreRefusedByName() throws {
        let good = TestDNG(width: 64, height: 48) { _, _ in [0.3, 0.3, 0.3] }
        // Truncated inside the raw data: refused; lenient reads what there is, with a warning.
        let cut = Array(good.bytes.prefix(good.bytes.count - 64 * 20 * 2))
        let error = try #require(throws: CodecError.self) {
            _ = try Renderer(threads: 1).render(Chain(), source: .bytes(cut, name: "cut.dng"), outputs: [RenderOutput(step: 0, .memory())])
        }
        #expect(error.file == "cut.dng")
        #expect("\(error)".contains("truncated"), "\(error)")
        // LibRaw stops at the end of the data (it throws, leaving no image), so lenient
        // decoding refuses it the same way.
        #expect(throws: CodecError.self) {
            _ = try Renderer(threads: 1).render(Chain(), source: .bytes(cut, name: "cut.dng"), decode: DecodeOptions(lenient: true),
                                                outputs: [RenderOutput(step: 0, .memory())])
        }
        // A white level of 0, or one below the black level.
        for white in [0, 100] {
            var bad = good
            bad.whiteLevelTag = white
            let e = try #require(throws: CodecError.self) { _ = try ImageReader.open(.bytes(bad.bytes, name: "white.dng")) }
            #expect(e.file == "white.dng" && "\(e)".contains("white level"), "\(e)")
        }
        // A sensor smaller than its 2x2 pattern, and one under LibRaw's 22 pixels: refused by name.
        for side in [1, 21] {
            let tiny = TestDNG(width: side, height: side) { _, _ in [0.3, 0.3, 0.3] }
            let e = try #require(throws: CodecError.self) {
                _ = try Renderer(threads: 1).render(Chain(), source: .bytes(tiny.bytes, name: "tiny.dng"), outputs: [RenderOutput(step: 0, .memory())])
            }
            #expect(e.file == "tiny.dng" && "\(e)".contains("LibRaw"), "\(e)")
        }
        // Header only.
        let header = Array(good.bytes.prefix(200))
        #expect(throws: CodecError.self) { _ = try Renderer(threads: 1).render(Chain(), source: .bytes(header, name: "h.dng"), outputs: [RenderOutput(step: 0, .memory())]) }
    }

    @Test(.enabled(if: available))
    func thePixelLimitIsCheckedBeforeDeveloping() throws {
        let dng = TestDNG(width: 64, height: 48) { _, _ in [0.3, 0.3, 0.3] }
        let error = try #require(throws: CodecError.self) {
            _ = try ImageReader.open(.bytes(dng.bytes, name: "big.dng"), options: DecodeOptions(maxPixels: 1000))
        }
        #expect(error.reason == .tooManyPixels(width: 64, height: 48, limit: 1000))
    }
}
