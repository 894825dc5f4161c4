import Foundation
import Testing
@testable import FilterChain

/// ../shared/conformance/tiff: every file meets its manifest. Decodes are compared with the
/// references (libvips/libtiff, tifffile for associated alpha) exactly, with the README's
/// stated exceptions: associated alpha is delivered unpremultiplied, so it is premultiplied
/// again and compared within 1 (the README's tolerance); CMYK references hold the inks, which
/// are turned into RGB here as JPEG's CMYK is; 32-bit float is read as floats and
/// compared after the reference's round(clip(v, 0, 1) * 65535). Invalid files are refused.
@Suite struct TIFFConformanceTests {
    static let folder = TestData.conformance.appendingPathComponent("tiff")

    struct Entry: CustomStringConvertible, Sendable {
        var file: String
        var expect: String
        var references: [String]
        var kind: String
        var description: String { file }
    }

    static let manifest: [Entry] = {
        let text = try! String(contentsOf: folder.appendingPathComponent("manifest.tsv"), encoding: .utf8)
        return text.split(separator: "\n").dropFirst().map { line in
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            return Entry(file: f[0], expect: f[2], references: f[3].split(separator: ",").map(String.init), kind: f[1])
        }
    }()

    static func isFloat(_ e: Entry) -> Bool { e.kind.contains("float32") }

    @Test func theManifestListsEveryFile() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.folder.appendingPathComponent("files").path)
        #expect(Set(files.map { "files/" + $0 }) == Set(Self.manifest.map(\.file)))
        #expect(Self.manifest.count == 61)
        #expect(Self.manifest.filter { $0.expect == "decode" }.count == 54)
        #expect(Self.manifest.filter { $0.expect == "reject" }.count == 7)
    }

    @Test(arguments: manifest.filter { $0.expect == "decode" && !isFloat($0) })
    func decodesAsTheReference(entry: Entry) throws {
        let path = Self.folder.appendingPathComponent(entry.file).path
        // The references are as stored: the Orientation tag is not applied.
        let reader = try ImageReader.open(.file(path), options: DecodeOptions(autoOrient: false))
        #expect(reader.info.sourceFormat == .tiff)
        let decoded = Pixels(bytes: try reader.readAll(), width: reader.info.width, height: reader.info.height,
                             format: reader.info.format)
        let (reference, refInfo) = try Pixels.read(Self.folder.appendingPathComponent(entry.references[0]).path)
        #expect(decoded.width == reference.width && decoded.height == reference.height, "\(entry.file)")
        if entry.references.count > 1 {
            #expect(reader.notices.contains { $0.contains("pages: only the first page was read") }, "\(reader.notices)")
        }
        if entry.file.contains("ifd_loop") {
            #expect(reader.notices.contains { $0.contains("directory chain loops back") }, "\(reader.notices)")
        }
        if entry.references.count == 1 && !entry.file.contains("ifd_loop") {
            #expect(reader.notices.isEmpty, "\(reader.notices)")
        }
        if entry.kind.hasPrefix("CMYK") {
            // The reference holds C, M, Y, K (0 = no ink); RGB = (1 - C)(1 - K), as JPEG's CMYK.
            #expect(refInfo.format.channels == .rgba && decoded.format == PixelFormat(.rgb, .eight))
            var expected: [Int] = []
            for i in stride(from: 0, to: reference.samples.count, by: 4) {
                let k = 255 - reference.samples[i + 3]
                for c in 0..<3 { expected.append(((255 - reference.samples[i + c]) * k + 127) / 255) }
            }
            #expect(decoded.samples == expected, "\(entry.file)")
        } else if entry.kind.contains("associated") && !entry.kind.contains("unassociated") {
            // The reference holds the stored (premultiplied) samples; premultiplied again, the
            // unpremultiplied decode is within 1 of them.
            #expect(decoded.format == refInfo.format, "\(entry.file): \(decoded.format) vs \(refInfo.format)")
            let channels = decoded.format.channels.count, maxValue = decoded.format.depth.maxValue
            var worst = 0
            for i in stride(from: 0, to: decoded.samples.count, by: channels) {
                let a = decoded.samples[i + channels - 1]
                #expect(a == reference.samples[i + channels - 1])
                for c in 0..<channels - 1 {
                    let again = (decoded.samples[i + c] * a + maxValue / 2) / maxValue
                    worst = max(worst, abs(again - reference.samples[i + c]))
                }
            }
            #expect(worst <= 1, "\(entry.file): premultiplied again, differs by \(worst)")
        } else {
            #expect(decoded.format == refInfo.format, "\(entry.file): \(decoded.format) vs \(refInfo.format)")
            #expect(decoded.samples == reference.samples, "\(entry.file)")
        }
    }

    /// 32-bit float: read unclamped as floats; the reference is round(clip(v, 0, 1) * 65535)
    /// as 16-bit, which is also what an output of no steps writes at 16 bits.
    @Test(arguments: manifest.filter(isFloat))
    func floatDecodesAsTheReference(entry: Entry) throws {
        let path = Self.folder.appendingPathComponent(entry.file).path
        let image = try RasterImage(contentsOf: path)
        #expect(image.format.depth == .float32)
        let (reference, refInfo) = try Pixels.read(Self.folder.appendingPathComponent(entry.references[0]).path)
        #expect(refInfo.format.depth == .sixteen && image.format.channels == refInfo.format.channels)
        let levels = image.values.map { v in Int((Double(min(max(v, 0), 1)) * 65535).rounded()) }
        #expect(levels == reference.samples, "\(entry.file)")
        let written = try Renderer(threads: 2).images(Chain(), source: .file(path), depth: .sixteen).final
        #expect(written.samples == reference.samples, "\(entry.file) through the pipeline")
    }

    @Test(arguments: manifest.filter { $0.expect == "reject" })
    func refusesInvalidFiles(entry: Entry) throws {
        let path = Self.folder.appendingPathComponent(entry.file).path
        for lenient in [false, true] {
            #expect(throws: CodecError.self, "\(entry.file)") {
                _ = try ImageReader.open(.file(path), options: DecodeOptions(lenient: lenient)).readAll()
            }
        }
    }

    /// A regular file is read with pread as libtiff asks; bytes in memory (standard input,
    /// pipes) are read from memory. Every file of the suite gives the same through both:
    /// pixels, metadata (EXIF and resolution come from the directory walk of each), notices
    /// and warnings, or the same error.
    @Test(arguments: manifest)
    func aFileReadInPlaceEqualsItsBytesInMemory(entry: Entry) throws {
        let path = Self.folder.appendingPathComponent(entry.file).path
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        func read(_ source: ImageSource) -> Result<(ImageInfo, [UInt8], [String], [String]), CodecError> {
            Result {
                let reader = try ImageReader.open(source, options: DecodeOptions(lenient: true))
                let pixels = try reader.readAll()
                return (reader.info, pixels, reader.notices, reader.warnings)
            }.mapError { $0 as! CodecError }
        }
        switch (read(.file(path)), read(.bytes(bytes, name: path))) {
        case (.success(let a), .success(let b)):
            #expect(a.0 == b.0 && a.1 == b.1 && a.2 == b.2 && a.3 == b.3, "\(entry.file)")
        case (.failure(let a), .failure(let b)):
            // Both refuse it as damaged, naming the file once; libtiff's words may differ (its
            // reads of a mapped file check sizes before it reads, its reads through a
            // descriptor after).
            for e in [a, b] {
                #expect(e.description.hasPrefix(path + ": damaged TIFF data: ") && !e.description.dropFirst(path.count).contains(path),
                        "\(entry.file): \(e)")
            }
        case (let a, let b):
            Issue.record("\(entry.file): from the file \(a), from memory \(b)")
        }
    }

    /// Orientation 6 (turn 90 degrees clockwise) is applied as JPEG's EXIF orientation is.
    @Test func theOrientationTagIsApplied() throws {
        let path = Self.folder.appendingPathComponent("files/pillow_g4_orientation_6.tif").path
        let (stored, _) = try Pixels.read(Self.folder.appendingPathComponent("ref/pillow_g4_orientation_6.png").path)
        let reader = try ImageReader.open(.file(path))
        #expect(reader.info.appliedOrientation == .right)
        let upright = Pixels(bytes: try reader.readAll(), width: reader.info.width, height: reader.info.height,
                             format: reader.info.format)
        #expect(upright.width == stored.height && upright.height == stored.width)
        var expected: [Int] = []
        for y in 0..<upright.height {
            for x in 0..<upright.width { expected.append(stored.samples[(stored.height - 1 - x) * stored.width + y]) }
        }
        #expect(upright.samples == expected)
    }

    /// The same pixels whether rows are asked for one at a time or all at once (strips and
    /// tiles are decoded as the rows need them).
    @Test(arguments: ["files/gen_rgb8_lzw_rowsperstrip7.tif", "files/gen_rgb16_deflate_tiles.tif",
                      "files/gen_rgb8_deflate_planar_separate.tif", "files/libtiff_quad-tile.jpg.tiff",
                      // libtiff reports errors in its CCITT strip but delivers it: read on, row by row too.
                      "files/pillow_crash-0da013a13571cc8eb457a39fee8db18f8a3c7127.tif"])
    func rowByRowEqualsWhole(file: String) throws {
        let path = Self.folder.appendingPathComponent(file).path
        let whole = try ImageReader.open(.file(path)).readAll()
        let reader = try ImageReader.open(.file(path))
        let rowBytes = reader.info.rowBytes
        var rows = [UInt8](repeating: 0, count: rowBytes * reader.info.height)
        try rows.withUnsafeMutableBytes { p in
            for y in 0..<reader.info.height { try reader.read(into: p.baseAddress! + y * rowBytes, stride: rowBytes, rows: 1) }
        }
        try reader.finish()
        #expect(rows == whole)
    }
}
