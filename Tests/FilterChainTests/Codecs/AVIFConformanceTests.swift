import Foundation
import Testing
@testable import FilterChain

/// ../shared/conformance/avif: every file meets its manifest. The references are libheif's
/// decodes (pyvips with Debian's libheif 1.15 and dav1d: nearest-neighbour chroma upsampling)
/// with clap, irot and imir applied in MIAF order, and avifdec's for the two monochrome fox
/// files. The README's cross-check of libavif against them is exact but for +-1 on the 10- and
/// 12-bit files and the two cropped kimono files: the decoder with its reference conversion
/// (libavif's own arithmetic, nearest chroma, as avifdec -u nearest) must meet exactly that.
/// What the tool uses (libyuv where libavif has it, bilinear chroma) is checked against that
/// decode: within 1 (libyuv's rounding) where chroma is not subsampled, and within the
/// README's quirk (bilinear differs from nearest by up to about 60 on chroma edges) where it
/// is. 10- and 12-bit samples are compared in their own units (the reference PNGs hold them in
/// the top bits; the decoder delivers full-scale 16 bits).
@Suite struct AVIFConformanceTests {
    static let folder = TestData.conformance.appendingPathComponent("avif")

    struct Entry: CustomStringConvertible, Sendable {
        var file: String
        var expect: String
        var reference: String
        var bits: Int
        var transforms: String
        var colour: String
        var description: String { file }
    }

    static let manifest: [Entry] = {
        let text = try! String(contentsOf: folder.appendingPathComponent("manifest.tsv"), encoding: .utf8)
        return text.split(separator: "\n").dropFirst().map { line in
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            return Entry(file: f[0], expect: f[2], reference: f[3], bits: Int(f[4]) ?? 8, transforms: f[5], colour: f[6])
        }
    }()

    static func path(_ file: String) -> String { folder.appendingPathComponent(file).path }

    /// The file's bytes claim AVIF (an avif or avis brand); the one that does not is HEIF's.
    static func isAVIF(_ e: Entry) throws -> Bool {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path(e.file))).prefix(32))
        return (try? ImageFormat.sniff(bytes).get()) == .avif
    }

    /// A reader over the AVIF decoder with the conversion asked for.
    static func read(_ file: String, conversion: AVIFDecoder.Conversion, options: DecodeOptions = .init()) throws -> (Pixels, ImageReader) {
        let input = try OpenedInput.open(.file(path(file)))
        let decoder = try AVIFDecoder(input, options: options, conversion: conversion)
        let reader = ImageReader(name: input.name, decoder: decoder, sourceFormat: .avif, options: options)
        let bytes = try reader.readAll()
        return (Pixels(bytes: bytes, width: reader.info.width, height: reader.info.height, format: reader.info.format), reader)
    }

    /// Samples in the file's own units: 16-bit decodes (full scale) rounded to `bits`.
    static func native(_ p: Pixels, bits: Int) -> [Int] {
        guard p.format.depth == .sixteen else { return p.samples }
        let top = (1 << bits) - 1
        return p.samples.map { ($0 * top + 32767) / 65535 }
    }

    /// The reference's samples in the file's units (10/12-bit references hold them in the top bits).
    static func referenceSamples(_ e: Entry) throws -> (Pixels, [Int]) {
        let (reference, _) = try Pixels.read(path(e.reference))
        let samples = reference.format.depth == .sixteen ? reference.samples.map { $0 >> (16 - e.bits) } : reference.samples
        return (reference, samples)
    }

    /// Every `colr` box of type `nclx` in a file, read from its bytes: primaries, transfer,
    /// matrix (16 bits each, big-endian) and the full-range flag (the top bit of the next byte).
    static func nclxBoxes(_ file: String) throws -> [NCLXColor] {
        let b = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path(file))))
        let tag = Array("colrnclx".utf8)
        var found: [NCLXColor] = []
        var i = 0
        while i + tag.count + 7 <= b.count {
            if Array(b[i..<i + tag.count]) == tag {
                let v = { (k: Int) in UInt16(b[i + 8 + 2 * k]) << 8 | UInt16(b[i + 9 + 2 * k]) }
                found.append(NCLXColor(colourPrimaries: v(0), transferCharacteristics: v(1), matrixCoefficients: v(2),
                                       fullRange: b[i + 14] & 0x80 != 0))
            }
            i += 1
        }
        return found
    }

    static func largestDifference(_ a: [Int], _ b: [Int]) -> Int {
        zip(a, b).reduce(0) { max($0, abs($1.0 - $1.1)) }
    }

    @Test func theManifestListsEveryFile() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.folder.appendingPathComponent("files").path)
        #expect(Set(files.map { "files/" + $0 }) == Set(Self.manifest.map(\.file)))
        #expect(Self.manifest.count == 38)
        #expect(Self.manifest.filter { $0.expect == "decode" }.count == 33)
        #expect(Self.manifest.filter { $0.expect == "reject" }.count == 5)
    }

    /// Every file to decode that is AVIF by its brands, with the reference conversion: within
    /// the README's cross-check of libavif (exact; +-1 for 10/12 bits and the kimono crops).
    @Test(arguments: manifest.filter { $0.expect == "decode" && (try? isAVIF($0)) == true })
    func decodesAsTheReference(entry: Entry) throws {
        let (decoded, reader) = try Self.read(entry.file, conversion: .reference)
        let (reference, expected) = try Self.referenceSamples(entry)
        #expect(reader.info.sourceFormat == .avif)
        #expect(decoded.width == reference.width && decoded.height == reference.height,
                "\(entry.file): \(decoded.width) x \(decoded.height), reference \(reference.width) x \(reference.height)")
        #expect(decoded.format.channels == reference.format.channels, "\(entry.file): \(decoded.format) vs \(reference.format)")
        #expect(decoded.format.depth == (entry.bits > 8 ? .sixteen : .eight))
        guard decoded.width == reference.width && decoded.height == reference.height,
              decoded.format.channels == reference.format.channels else { return }
        let tolerance = entry.bits > 8 || entry.file.contains("kimono") ? 1 : 0
        let worst = Self.largestDifference(Self.native(decoded, bits: entry.bits), expected)
        #expect(worst <= tolerance, "\(entry.file): differs by up to \(worst) (allowed \(tolerance))")
        #expect(reader.notices.isEmpty, "\(reader.notices)")
        // Nothing is turned again by an orientation kept in the metadata.
        if let exif = reader.info.metadata.exif { #expect(Exif.orientation(in: exif) ?? .up == .up) }
        if let xmp = reader.info.metadata.xmp {
            #expect(!String(decoding: xmp, as: UTF8.self).contains("tiff:Orientation=\"3\""))
        }
        #expect(reader.info.appliedOrientation == nil)
        // The colour boxes the manifest names.
        #expect((reader.info.metadata.iccProfile != nil) == entry.colour.contains("prof"), "\(entry.file): \(entry.colour)")
        // The nclx box's code points, found by this test's own scan, are kept when they
        // describe a colour (primaries or transfer specified).
        let boxes = try Self.nclxBoxes(entry.file)
        #expect(boxes.isEmpty != entry.colour.contains("nclx"), "\(entry.file): \(entry.colour)")
        if let box = boxes.first, box.colourPrimaries != 2 || box.transferCharacteristics != 2 {
            #expect(reader.info.metadata.nclx == box, "\(entry.file)")
        } else {
            #expect(reader.info.metadata.nclx == nil, "\(entry.file)")
        }
    }

    /// What the tool decodes (libyuv, bilinear chroma) against the reference conversion:
    /// within 1 where chroma is full size, within the README's bound on chroma edges where it
    /// is subsampled; the same size, layout and metadata.
    @Test(arguments: manifest.filter { $0.expect == "decode" && (try? isAVIF($0)) == true })
    func theToolsConversionIsCloseToTheReference(entry: Entry) throws {
        let (fast, reader) = try Self.read(entry.file, conversion: .fast)
        let (reference, referenceReader) = try Self.read(entry.file, conversion: .reference)
        #expect(fast.format == reference.format && fast.width == reference.width && fast.height == reference.height)
        #expect(reader.info.metadata == referenceReader.info.metadata)
        let decoder = try AVIFDecoder(try OpenedInput.open(.file(Self.path(entry.file))), options: .init())
        let a = Self.native(fast, bits: entry.bits), b = Self.native(reference, bits: entry.bits)
        let worst = Self.largestDifference(a, b)
        if decoder.info.yuv_format == 444 || decoder.info.yuv_format == 400 {
            #expect(worst <= 1, "\(entry.file): up to \(worst)")
        } else {
            let scale = 1 << (entry.bits - 8)
            let mean = Double(zip(a, b).reduce(0) { $0 + abs($1.0 - $1.1) }) / Double(max(1, a.count)) / Double(scale)
            #expect(worst <= 64 * scale, "\(entry.file): up to \(worst)")
            #expect(mean < 2, "\(entry.file): \(mean) on average (8-bit units)")
        }
    }

    /// An AV1 image in a file without the avif brand (major brand mif1) is HEIF's (libheif),
    /// not AVIF's: libavif refuses such files. Read by whichever registered format claims it.
    @Test func anAV1ImageWithoutTheAVIFBrandIsHEIFs() throws {
        let entry = try #require(Self.manifest.first { $0.file == "files/pillow_hopper.heif" })
        #expect(try !Self.isAVIF(entry))
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.path(entry.file))))
        #expect(!AVIFCodec.isAVIF(Array(bytes.prefix(32))))
        switch ImageFormat.sniff(Array(bytes.prefix(32))) {
        case .success(let format):
            // The HEIF reader, once registered, must meet the reference.
            let (decoded, info) = try Pixels.read(Self.path(entry.file))
            let (reference, expected) = try Self.referenceSamples(entry)
            #expect(info.sourceFormat == format && format != .avif)
            #expect(decoded.width == reference.width && decoded.height == reference.height)
            #expect(Self.largestDifference(decoded.samples, expected) <= 1)
        case .failure(let failure):
            #expect(failure.looksLike == "HEIF")
        }
    }

    @Test(arguments: manifest.filter { $0.expect == "reject" })
    func refusesInvalidFiles(entry: Entry) throws {
        for lenient in [false, true] {
            #expect(throws: CodecError.self, "\(entry.file)") {
                _ = try ImageReader.open(.file(Self.path(entry.file)), options: DecodeOptions(lenient: lenient)).readAll()
            }
        }
    }

    /// The same pixels whether rows are asked for one at a time or all at once, through every
    /// transformation.
    @Test(arguments: ["files/linku_kimono.mirror-vertical.rotate270.crop.avif", "files/pillow_rot1mir1.avif",
                      "files/gen_avifenc_10bit_444_alpha.avif", "files/gen_avifenc_grey_400.avif"])
    func rowByRowEqualsWhole(file: String) throws {
        let path = Self.path(file)
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
