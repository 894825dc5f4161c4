import Foundation
import Testing
@testable import FilterChain

/// ../shared/conformance/heif: every file meets its manifest. Decodes are compared with the
/// references (pillow-heif, libheif 1.23, transformations applied in MIAF order) within the
/// README's tolerance: exact, except +-1 for 8-bit 4:2:0 colour (YCbCr rounding between
/// libheif versions). 10 and 12-bit references hold the sample in the top bits of a 16-bit
/// PNG (native = png >> (16 - bits)); filterchain delivers 16 bits scaled as its other
/// deep paths do, round(native * 65535 / (2^bits - 1)), so the reference is scaled so too.
@Suite struct HEIFConformanceTests {

    /// An AV1-coded image in a HEIF file without the avif brand is refused by name rather than
    /// handed to libheif's dav1d plugin, which leaks on damaged streams (the AVIF fuzzer's
    /// find, kept in Tests/Fixtures/fuzz/avif; CI's AddressSanitizer run checks for leaks).
    @Test func av1InAHEIFIsRefusedByName() throws {
        let path = TestData.fixtures.appendingPathComponent("fuzz/avif/av1-in-heif-dav1d-leak.heic").path
        for lenient in [false, true] {
            #expect { _ = try ImageReader.open(.file(path), options: DecodeOptions(lenient: lenient)).readAll() } throws: { error in
                "\(error)".contains("AV1-coded") && "\(error)".contains("libavif")
            }
        }
    }
    static let folder = TestData.conformance.appendingPathComponent("heif")

    struct Entry: CustomStringConvertible, Sendable {
        var file: String
        var kind: String
        var expect: String
        var reference: String
        var bits: Int
        var transforms: String
        var notes: String
        var description: String { file }
    }

    static let manifest: [Entry] = {
        let text = try! String(contentsOf: folder.appendingPathComponent("manifest.tsv"), encoding: .utf8)
        return text.split(separator: "\n").dropFirst().map { line in
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            return Entry(file: f[0], kind: f[1], expect: f[2], reference: f[3], bits: Int(f[4]) ?? 0,
                         transforms: f[5], notes: f[7])
        }
    }()

    static func path(_ file: String) -> String { folder.appendingPathComponent(file).path }

    /// The reference's samples at filterchain's depth: 8-bit as stored, deeper ones from the
    /// top bits, scaled to 16 bits.
    static func expected(_ reference: Pixels, bits: Int) -> [Int] {
        guard reference.format.depth == .sixteen else { return reference.samples }
        let maxIn = (1 << bits) - 1
        return reference.samples.map { v in
            let native = v >> (16 - bits)
            return (native * 65535 + maxIn / 2) / maxIn
        }
    }

    /// The README's tolerance: +-1 for 8-bit 4:2:0 colour, else exact.
    static func tolerance(_ entry: Entry, _ reference: Pixels) -> Int {
        let fourTwoZero = !entry.kind.contains("4:4:4") && !reference.format.channels.isGrey && !entry.notes.contains("limited range")
        return entry.bits == 8 && fourTwoZero ? 1 : 0
    }

    @Test func theManifestListsEveryFile() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.folder.appendingPathComponent("files").path)
        #expect(Set(files.map { "files/" + $0 }) == Set(Self.manifest.map(\.file)))
        #expect(Self.manifest.count == 56)
        #expect(Self.manifest.filter { $0.expect == "decode" }.count == 37)
        #expect(Self.manifest.filter { $0.expect == "reject" }.count == 18)
        #expect(Self.manifest.filter { $0.expect == "either" }.count == 1)
    }

    @Test(arguments: manifest.filter { $0.expect == "decode" })
    func decodesAsTheReference(entry: Entry) throws {
        let reader = try ImageReader.open(.file(Self.path(entry.file)))
        #expect(reader.info.sourceFormat == .heif)
        #expect(reader.info.appliedOrientation == nil, "HEIF never applies an EXIF Orientation")
        let decoded = Pixels(bytes: try reader.readAll(), width: reader.info.width, height: reader.info.height,
                             format: reader.info.format)
        let (reference, refInfo) = try Pixels.read(Self.path(entry.reference))
        #expect(decoded.width == reference.width && decoded.height == reference.height,
                "\(entry.file): \(decoded.width)x\(decoded.height), reference \(reference.width)x\(reference.height)")
        #expect(decoded.format == refInfo.format, "\(entry.file): \(decoded.format) vs \(refInfo.format)")
        guard decoded.samples.count == reference.samples.count else { return }
        let expected = Self.expected(reference, bits: entry.bits)
        let worst = zip(decoded.samples, expected).map { abs($0 - $1) }.max() ?? 0
        #expect(worst <= Self.tolerance(entry, reference), "\(entry.file): differs by up to \(worst)")
        if entry.file.contains("zPug_3") {
            #expect(reader.notices == ["\(Self.path(entry.file)): a file of 3 images: only the primary image was read"])
        } else {
            #expect(reader.notices.isEmpty, "\(reader.notices)")
        }
        #expect(reader.warnings.isEmpty, "\(reader.warnings)")
    }

    /// The same pixels with --no-auto-orient: irot and imir are part of the image (MIAF), not
    /// an orientation the user may keep, and the EXIF Orientation is never applied.
    @Test(arguments: manifest.filter { $0.expect == "decode" && ($0.transforms.contains("irot") || $0.transforms.contains("imir") || $0.file.contains("orient")) })
    func noAutoOrientChangesNothing(entry: Entry) throws {
        let (upright, _) = try Pixels.read(Self.path(entry.file))
        let (asStored, info) = try Pixels.read(Self.path(entry.file), options: DecodeOptions(autoOrient: false))
        #expect(upright == asStored)
        #expect(info.appliedOrientation == nil)
    }

    @Test(arguments: manifest.filter { $0.expect == "reject" })
    func refusesInvalidFiles(entry: Entry) throws {
        for lenient in [false, true] {
            #expect(throws: CodecError.self, "\(entry.file)") {
                _ = try ImageReader.open(.file(Self.path(entry.file)), options: DecodeOptions(lenient: lenient)).readAll()
            }
        }
    }

    /// `either`: a decode or an error, never a crash (libheif 1.15 refuses the truncated file).
    @Test(arguments: manifest.filter { $0.expect == "either" })
    func mayDecodeOrFail(entry: Entry) throws {
        for lenient in [false, true] {
            do {
                let reader = try ImageReader.open(.file(Self.path(entry.file)), options: DecodeOptions(lenient: lenient))
                let pixels = try reader.readAll()
                #expect(pixels.count == reader.info.rowBytes * reader.info.height)
            } catch let error as CodecError {
                #expect(error.message.hasPrefix("damaged HEIF data: "), "\(error)")
            }
        }
    }

    /// An AV1 image in a file whose brands are heic and mif1 but not avif: HEIF's by the
    /// sniffing rule, decoded by libheif's AV1 decoder; avif/'s manifest has it exact.
    @Test func anAV1ImageWithoutTheAVIFBrandIsReadAsHEIF() throws {
        let avif = TestData.conformance.appendingPathComponent("avif")
        let (decoded, info) = try Pixels.read(avif.appendingPathComponent("files/pillow_hopper.heif").path)
        let (reference, refInfo) = try Pixels.read(avif.appendingPathComponent("ref/pillow_hopper.heif.png").path)
        #expect(info.sourceFormat == .heif)
        #expect(info.format == refInfo.format)
        #expect(decoded.samples == reference.samples)
    }

    /// Two files with the same coded image (mdat), one saying its colour is premultiplied by
    /// alpha: that one is delivered straight, round(stored * 255 / alpha), where the other
    /// gives the stored samples (Tests/Fixtures/heif/README.md says how they were made).
    @Test func premultipliedAlphaIsUndone() throws {
        let fixtures = TestData.fixtures.appendingPathComponent("heif")
        func mdat(_ name: String) throws -> [UInt8] {
            let bytes = Array(try Data(contentsOf: fixtures.appendingPathComponent(name)))
            return Array(bytes[try #require(Self.find(Array("mdat".utf8), in: bytes))...])
        }
        #expect(try mdat("premultiplied.heic") == mdat("straight.heic"))
        let (decoded, info) = try Pixels.read(fixtures.appendingPathComponent("premultiplied.heic").path)
        let (stored, storedInfo) = try Pixels.read(fixtures.appendingPathComponent("straight.heic").path)
        #expect(info.format == PixelFormat(.rgba, .eight) && storedInfo.format == info.format)
        var expected = stored.samples
        for i in stride(from: 0, to: expected.count, by: 4) {
            let a = stored.samples[i + 3]
            for c in 0..<3 { expected[i + c] = a == 0 ? 0 : min(255, (stored.samples[i + c] * 255 + a / 2) / a) }
        }
        #expect(stored.samples.enumerated().contains { $0.offset % 4 == 3 && $0.element > 0 && $0.element < 255 })
        #expect(decoded.samples == expected)
    }

    /// Orientation boxes are applied once: the iPhone-like file (irot 270, EXIF Orientation 6)
    /// is shown 872 x 1000; the EXIF Orientation without irot is not applied at all. Either
    /// way the kept EXIF says 1, so nothing downstream turns the pixels, and is otherwise the
    /// file's own.
    @Test(arguments: ["files/gen_iphone_like_grid512_p3_irot.heic", "files/gen_exif_orient6_no_irot.heic",
                      "files/gen_irot_imir_orient2.heic", "files/gen_irot_imir_orient5.heic", "files/gen_irot_imir_orient8.heic"])
    func theExifOrientationIsResetAndTheRestKept(file: String) throws {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: Self.path(file))))
        let reader = try ImageReader.open(.file(Self.path(file)))
        let exif = try #require(reader.info.metadata.exif)
        #expect(Self.orientation(exif) == 1)
        // Found in the file's own bytes, its Orientation the one the file is named for.
        let at = try #require(Self.find(Array(exif.prefix(8)), in: bytes), "the TIFF header in the file")
        let stored = Array(bytes[at..<min(bytes.count, at + exif.count)])
        let named = file.contains("iphone") || file.contains("orient6") ? 6 : Int(String(file.dropLast(5).last!))!
        #expect(Self.orientation(stored) == named)
        #expect(zip(exif, stored).filter { $0 != $1 }.count == 1, "only the Orientation's value differs")
        if file.contains("iphone") {
            #expect(reader.info.width == 872 && reader.info.height == 1000)
        }
        if file.contains("no_irot") {
            #expect(reader.info.width == 150 && reader.info.height == 100)
        }
    }

    /// The Orientation (tag 0x0112, a SHORT) in IFD0 of EXIF data, read here.
    static func orientation(_ exif: [UInt8]) -> Int? {
        guard exif.count >= 8 else { return nil }
        let big = exif[0] == 0x4D
        func u16(_ o: Int) -> Int { big ? Int(exif[o]) << 8 | Int(exif[o + 1]) : Int(exif[o + 1]) << 8 | Int(exif[o]) }
        func u32(_ o: Int) -> Int { big ? u16(o) << 16 | u16(o + 2) : u16(o + 2) << 16 | u16(o) }
        let ifd = u32(4)
        guard ifd + 2 <= exif.count else { return nil }
        for i in 0..<u16(ifd) {
            let e = ifd + 2 + 12 * i
            guard e + 12 <= exif.count else { return nil }
            if u16(e) == 0x0112 { return u16(e + 8) }
        }
        return nil
    }

    static func find(_ needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard needle.count <= haystack.count else { return nil }
        return (0...(haystack.count - needle.count)).first { Array(haystack[$0..<$0 + needle.count]) == needle }
    }

    /// ICC (colr prof) is the profile the file was made with; nclx is read as H.273 numbers.
    @Test func colourDescriptionsAreKept() throws {
        let p3 = Array(try Data(contentsOf: TestData.conformance.appendingPathComponent("icc/profiles/DisplayP3-v4.icc")))
        let (_, icc) = try Pixels.read(Self.path("files/gen_icc_displayp3.heic"))
        #expect(icc.metadata.iccProfile == p3)
        #expect(icc.metadata.nclx == nil)
        let (_, limited) = try Pixels.read(Self.path("files/gen_nclx_bt709_limited.heic"))
        #expect(limited.metadata.nclx == NCLXColor(colourPrimaries: 1, transferCharacteristics: 13, matrixCoefficients: 1, fullRange: false))
        #expect(limited.metadata.iccProfile == nil)
        // The iPhone-like file's profile is in its colr box, as the bytes after "colrprof".
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: Self.path("files/gen_iphone_like_grid512_p3_irot.heic"))))
        let colr = try #require(Self.find(Array("colrprof".utf8), in: bytes))
        let boxSize = Int(bytes[colr - 4]) << 24 | Int(bytes[colr - 3]) << 16 | Int(bytes[colr - 2]) << 8 | Int(bytes[colr - 1])
        let (_, phone) = try Pixels.read(Self.path("files/gen_iphone_like_grid512_p3_irot.heic"))
        #expect(phone.metadata.iccProfile == Array(bytes[colr + 8..<colr - 4 + boxSize]))
    }

    /// EXIF and XMP of pillow-heif's file, as stored (the XMP packet is found in its bytes).
    @Test func exifAndXMPAreKept() throws {
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: Self.path("files/pillowheif_L_exif_xmp_iptc.heic"))))
        let (_, info) = try Pixels.read(Self.path("files/pillowheif_L_exif_xmp_iptc.heic"))
        let xmp = try #require(info.metadata.xmp)
        let at = try #require(Self.find(Array("<?xpacket".utf8), in: bytes))
        #expect(Array(bytes[at..<at + xmp.count]) == xmp)
        #expect(String(decoding: xmp, as: UTF8.self).contains("</x:xmpmeta>"))
        let exif = try #require(info.metadata.exif)
        let tiff = try #require(Self.find(Array(exif.prefix(8)), in: bytes))
        #expect(Self.orientation(exif) == Self.orientation(Array(bytes[tiff..<tiff + exif.count])).map { _ in 1 })
        #expect(zip(exif, bytes[tiff..<tiff + exif.count]).filter { $0 != $1 }.count <= 1)
    }

    /// The same pixels whether rows are asked for one at a time or all at once.
    @Test(arguments: ["files/gen_grid_3x2_256.heic", "files/pillowheif_RGBA_10__29x100.heif", "files/pillowheif_LA_8__29x100.heif"])
    func rowByRowEqualsWhole(file: String) throws {
        let whole = try ImageReader.open(.file(Self.path(file))).readAll()
        let reader = try ImageReader.open(.file(Self.path(file)))
        let rowBytes = reader.info.rowBytes
        var rows = [UInt8](repeating: 0, count: rowBytes * reader.info.height)
        try rows.withUnsafeMutableBytes { p in
            for y in 0..<reader.info.height { try reader.read(into: p.baseAddress! + y * rowBytes, stride: rowBytes, rows: 1) }
        }
        try reader.finish()
        #expect(rows == whole)
    }

    /// Decoding on two threads (libde265's worker threads, libheif's for a grid's tiles), as the
    /// renderer asks for an image alone with a fast resize, gives the same pixels.
    @Test(arguments: ["files/gen_10bit.heic", "files/gen_grid_3x2_256.heic", "files/gen_iphone_like_grid512_p3_irot.heic",
                      "files/pillowheif_LA_8__29x100.heif", "files/libheif_with-alpha-512x512.heic"])
    func aParallelDecodeGivesTheSamePixels(file: String) throws {
        let serial = try ImageReader.open(.file(Self.path(file))).readAll()
        let reader = try ImageReader.open(.file(Self.path(file)))
        #expect(reader.decodeInParallel())
        #expect(try reader.readAll() == serial)
    }

    /// Shrink-on-load for a fast resize: each delivered pixel is the rounded mean of its block
    /// of the full decode (colour weighted by alpha), ceil(size / n) on each axis.
    @Test(arguments: [("files/gen_grid_3x2_256.heic", 2), ("files/libheif_rainbow-451x461.heic", 4),
                      ("files/libheif_rainbow-451x461.heic", 8), ("files/pillowheif_RGBA_10__29x100.heif", 2),
                      ("files/libheif_with-alpha-512x512.heic", 4), ("files/pillowheif_L_12__29x100.heif", 8)])
    func shrinkAveragesBlocks(file: String, n: Int) throws {
        let (full, _) = try Pixels.read(Self.path(file))
        let reader = try ImageReader.open(.file(Self.path(file)))
        let w = (full.width + n - 1) / n, h = (full.height + n - 1) / n
        #expect(try reader.shrink(keepingAtLeast: ImageSize(width: w, height: h)) == n)
        #expect(reader.info.width == w && reader.info.height == h)
        let small = Pixels(bytes: try reader.readAll(), width: w, height: h, format: reader.info.format)
        let channels = full.format.channels.count, alpha = full.format.channels.hasAlpha
        let maxValue = Double(full.format.depth.maxValue)
        var worst = 0.0
        for y in 0..<h {
            for x in 0..<w {
                var sums = [Double](repeating: 0, count: channels), weighted = [Double](repeating: 0, count: channels)
                var count = 0.0
                for yy in y * n..<min(full.height, y * n + n) {
                    for xx in x * n..<min(full.width, x * n + n) {
                        let i = (yy * full.width + xx) * channels
                        let a = alpha ? Double(full.samples[i + channels - 1]) : maxValue
                        for c in 0..<channels {
                            sums[c] += Double(full.samples[i + c])
                            weighted[c] += Double(full.samples[i + c]) * a
                        }
                        count += 1
                    }
                }
                let alphaSum = alpha ? sums[channels - 1] : 0
                for c in 0..<channels {
                    let isColour = !alpha || c < channels - 1
                    let mean = isColour && alpha && alphaSum > 0 ? weighted[c] / alphaSum : sums[c] / count
                    worst = max(worst, abs(Double(small.samples[(y * w + x) * channels + c]) - mean))
                }
            }
        }
        // The shim averages the native samples before scaling them to 16 bits, the reference
        // the scaled ones: one rounding each, so within 1 of the exact mean.
        #expect(worst <= 1.0, "\(file) / \(n): \(worst) from the mean of the block")
    }

    /// A fast resize of the iPhone-like photograph (a grid, irot 270) alone on a renderer of two
    /// threads: decoded on two threads, reduced by 2 on load, and within 40 dB of the exact
    /// resize (filters.md's measure for shrink-on-load).
    @Test func aFastResizeShrinksOnLoadAndDecodesOnTwoThreads() throws {
        let source = ImageSource.file(Self.path("files/gen_iphone_like_grid512_p3_irot.heic"))
        let renderer = Renderer(threads: 2)
        func render(fast: Bool) throws -> RenderResult {
            try renderer.render(Chain([Resize(width: 200, height: 200, fit: .contain, fast: fast)]), source: source,
                                outputs: [RenderOutput(step: 1, .memory())])
        }
        let fast = try render(fast: true), exact = try render(fast: false)
        #expect(fast.shrunkOnLoad == 2 && fast.decodedInParallel)
        #expect(exact.shrunkOnLoad == 1 && !exact.decodedInParallel)
        let a = try #require(fast.images[0]), b = try #require(exact.images[0])
        #expect(a.width == 174 && a.height == 200 && b.width == 174 && b.height == 200)
        let squared = zip(a.samples, b.samples).map { Double(($0 - $1) * ($0 - $1)) }.reduce(0, +) / Double(a.samples.count)
        let psnr = 10 * log10(Double(a.format.depth.maxValue * a.format.depth.maxValue) / max(squared, 1e-12))
        #expect(psnr >= 40, "PSNR \(psnr) dB")
    }

    /// --max-pixels is checked against the header, before decoding.
    @Test func thePixelLimitIsCheckedFirst() throws {
        #expect(throws: CodecError(Self.path("files/gen_grid_3x2_256.heic"), .tooManyPixels(width: 600, height: 400, limit: 1000))) {
            _ = try ImageReader.open(.file(Self.path("files/gen_grid_3x2_256.heic")), options: DecodeOptions(maxPixels: 1000))
        }
        // The coded size, before the clean aperture crops it (452 x 462 shown as 451 x 461).
        #expect(throws: CodecError(Self.path("files/libheif_rainbow-451x461.heic"), .tooManyPixels(width: 452, height: 462, limit: 451 * 461))) {
            _ = try ImageReader.open(.file(Self.path("files/libheif_rainbow-451x461.heic")), options: DecodeOptions(maxPixels: 451 * 461))
        }
    }

    /// Sniffed from the ftyp box: AVIF's brands win over HEIF's (libavif reads those files).
    @Test func sniffingFollowsTheBrands() {
        func ftyp(_ major: String, _ compatible: [String]) -> [UInt8] {
            let size = 16 + 4 * compatible.count
            return [0, 0, 0, UInt8(size)] + Array("ftyp".utf8) + Array(major.utf8) + [0, 0, 0, 0] + compatible.flatMap { Array($0.utf8) }
        }
        #expect(HEIFCodec.isHEIF(HEIFCodec.ftypBrands(ftyp("heic", ["mif1", "heic"]))))
        #expect(HEIFCodec.isHEIF(HEIFCodec.ftypBrands(ftyp("mif1", ["heix"]))))
        #expect(HEIFCodec.isHEIF(HEIFCodec.ftypBrands(ftyp("msf1", []))))
        #expect(HEIFCodec.isHEIF(HEIFCodec.ftypBrands(ftyp("xxxx", ["hevc"]))))
        #expect(!HEIFCodec.isHEIF(HEIFCodec.ftypBrands(ftyp("avif", ["mif1", "miaf"]))))
        #expect(!HEIFCodec.isHEIF(HEIFCodec.ftypBrands(ftyp("mif1", ["avif"]))))
        #expect(!HEIFCodec.isHEIF(HEIFCodec.ftypBrands(ftyp("heic", ["mif1", "avis"]))))
        #expect(!HEIFCodec.isHEIF(HEIFCodec.ftypBrands(ftyp("xxxx", ["yyyy"]))))
        #expect(!HEIFCodec.isHEIF(HEIFCodec.ftypBrands(ftyp("mp42", ["isom"]))))
        #expect(!HEIFCodec.isHEIF(HEIFCodec.ftypBrands(Array("RIFF....WEBP".utf8))))
        // Brands past the box's end are not brands.
        #expect(!HEIFCodec.isHEIF(HEIFCodec.ftypBrands(ftyp("xxxx", []) + Array("heic".utf8))))
    }
}
