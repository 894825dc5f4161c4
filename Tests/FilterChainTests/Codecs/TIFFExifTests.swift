import Foundation
import Testing
@testable import FilterChain

/// EXIF, ICC, XMP and resolution from PNG, JPEG and WebP into a TIFF and back out, checked
/// with the tests' own walker: a TIFF holds EXIF as tags of its IFD0 and Exif and GPS
/// sub-IFDs (never as one block), and reading it gathers them into EXIF data again.
@Suite struct TIFFExifTests {
    /// A camera's EXIF, big-endian as many cameras write it: IFD0 with descriptive text,
    /// Orientation, resolution, YCbCrPositioning and a private tag (Rating), an Exif IFD
    /// (rationals, signed rationals, a maker note, a user comment and an Interoperability
    /// IFD), a GPS IFD, and IFD1 (a thumbnail's tags).
    static func cameraExif(orientation: UInt16 = 1) -> [UInt8] {
        var b = ExifBuilder(bigEndian: true)
        let interop = b.ifd([(0x0001, 2, b.ascii("R98")), (0x0002, 7, [0x30, 0x31, 0x30, 0x30])])
        let exif = b.ifd([
            (0x829A, 5, b.rational(1, 250)), (0x829D, 5, b.rational(28, 10)), (0x8827, 3, b.short(400)),
            (0x9000, 7, Array("0232".utf8)), (0x9003, 2, b.ascii("2024:05:06 07:08:09")),
            (0x9204, 10, b.rational(UInt32(bitPattern: -2), 3)), (0x920A, 5, b.rational(50, 1)),
            (0x927C, 7, (0..<40).map { UInt8($0) }), (0x9286, 7, Array("ASCII\0\0\0hello".utf8)),
            (0xA005, 4, b.long(interop)), (0xA420, 2, b.ascii("0123456789abcdef0123456789abcdef")),
        ])
        let gps = b.ifd([
            (0x0000, 1, [2, 3, 0, 0]), (0x0001, 2, b.ascii("N")),
            (0x0002, 5, b.rational(51, 1) + b.rational(30, 1) + b.rational(1234, 100)),
            (0x0005, 1, [0]), (0x0006, 5, b.rational(1000, 10)),
        ])
        let ifd1 = b.ifd([(0x0103, 3, b.short(6)), (0x0201, 4, b.long(0)), (0x0202, 4, b.long(0))])
        let ifd0 = b.ifd([
            (0x010F, 2, b.ascii("FilterChain Optics")), (0x0110, 2, b.ascii("FC1")), (0x0112, 3, b.short(orientation)),
            (0x011A, 5, b.rational(300, 1)), (0x011B, 5, b.rational(300, 1)), (0x0128, 3, b.short(2)),
            (0x0131, 2, b.ascii("fc test")), (0x0132, 2, b.ascii("2024:05:06 07:08:09")),
            (0x013B, 2, b.ascii("Zoë Ångström")), (0x0213, 3, b.short(1)), (0x4746, 3, b.short(4)),
            (0x8298, 2, b.ascii("(c) test")), (0x8769, 4, b.long(exif)), (0x8825, 4, b.long(gps)),
        ], next: ifd1)
        b.setFirstIFD(ifd0)
        return b.bytes
    }

    static let texts: [UInt16: String] = [0x010F: "FilterChain Optics", 0x0110: "FC1", 0x0131: "fc test",
                                          0x0132: "2024:05:06 07:08:09", 0x013B: "Zoë Ångström", 0x8298: "(c) test"]
    static var icc: [UInt8] { RoundTripTests.outputICC }
    static let xmp = Array(#"<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF/></x:xmpmeta>"#.utf8)

    /// The same entries (pointers aside) and the same sub-directories, whatever the byte order.
    static func same(_ a: TestTIFFWalker.IFD, _ b: TestTIFFWalker.IFD) -> Bool {
        let pointers = TestTIFFWalker.pointers
        return a.entries.filter { !pointers.contains($0.key) } == b.entries.filter { !pointers.contains($0.key) }
            && Set(a.subIFDs.keys) == Set(b.subIFDs.keys)
            && a.subIFDs.allSatisfy { key, sub in same(sub, b.subIFDs[key]!) }
    }

    /// The EXIF data after a trip through TIFF: IFD0's text and Orientation, the Exif IFD (with
    /// the Interoperability IFD) and the GPS IFD, exactly as the camera wrote them.
    static func expectKept(_ exif: [UInt8]?, orientation: Int = 1, from original: [UInt8]) throws {
        let source = try #require(TestTIFFWalker(original)).ifd0
        let data = try #require(exif)
        let ifd0 = try #require(TestTIFFWalker(data)).ifd0
        for (tag, text) in texts { #expect(ifd0.text(tag) == text, "\(tag)") }
        #expect(ifd0.number(0x0112) == orientation)
        for tag: UInt16 in [0x8769, 0x8825] {
            let kept = try #require(ifd0.subIFDs[tag], "\(tag)")
            #expect(same(kept, source.subIFDs[tag]!), "\(tag)")
        }
        #expect(ifd0.subIFDs[0x8769]?.subIFDs[0xA005] != nil)
    }

    static func pixels() -> Pixels { Pixels.random(width: 33, height: 21, format: PixelFormat(.rgb, .eight), seed: 8) }

    /// A file of `format` holding the camera's EXIF, an ICC profile and XMP.
    static func source(_ format: ImageFormat, exif: [UInt8] = cameraExif()) throws -> [UInt8] {
        let buffer = OutputBuffer()
        try pixels().write(to: .memory(buffer), format: format,
                           metadata: ImageMetadata(iccProfile: icc, exif: exif, xmp: xmp))
        return buffer.bytes
    }

    /// Renders `input` (no steps) into `format`; the bytes and the render's notes.
    static func convert(_ input: [UInt8], to format: ImageFormat, options: EncodeOptions = .init(),
                        decode: DecodeOptions = .init()) throws -> ([UInt8], [String]) {
        let buffer = OutputBuffer()
        var options = options
        options.format = format
        let result = try Renderer(threads: 2).render(Chain(), source: .bytes(input, name: "in"), decode: decode,
                                                     outputs: [RenderOutput(step: 0, .file(.memory(buffer), options))])
        return (buffer.bytes, result.notes)
    }

    @Test(arguments: [ImageFormat.png, .jpeg, .webp])
    func exifIsSpreadOverTheTIFFsTagsAndGatheredBack(from format: ImageFormat) throws {
        let original = Self.cameraExif()
        let (tiff, notes) = try Self.convert(try Self.source(format), to: .tiff)
        #expect(notes == ["EXIF IFD0 tag 0x4746 has no place in a TIFF's IFD0; not written"], "\(notes)")

        // The TIFF, walked: IFD0's own tags, the Exif and GPS sub-IFDs, no EXIF block.
        let ifd0 = try #require(TestTIFFWalker(tiff)).ifd0
        for (tag, text) in Self.texts { #expect(ifd0.text(tag) == text, "\(tag)") }
        #expect(ifd0.number(0x0112) == 1)
        #expect(ifd0.entries[0x4746] == nil && ifd0.entries[0x0213] == nil)
        let source = try #require(TestTIFFWalker(original)).ifd0
        #expect(Self.same(try #require(ifd0.subIFDs[0x8769]), source.subIFDs[0x8769]!))
        #expect(Self.same(try #require(ifd0.subIFDs[0x8825]), source.subIFDs[0x8825]!))
        #expect(ifd0.subIFDs[0x8769]?.entries[0x829A]?.value == [1, 0, 0, 0, 250, 0, 0, 0])
        #expect(!tiff.indices.dropLast(6).contains { Array(tiff[$0..<$0 + 6]) == Array("Exif\0\0".utf8) })
        #expect(ifd0.entries[34675]?.value == Self.icc)
        #expect(ifd0.entries[700]?.value == Self.xmp)
        // The resolution came from the EXIF (PNG and WebP had none of their own), or JPEG's JFIF.
        if format != .jpeg { #expect(ifd0.rational(282).map { $0.0 / $0.1 } == 300 && ifd0.number(296) == 2) }

        // Read back, and on to every other format.
        let info = try ImageReader.open(.bytes(tiff, name: "t")).info
        try Self.expectKept(info.metadata.exif, from: original)
        #expect(info.metadata.iccProfile == Self.icc && info.metadata.xmp == Self.xmp)
        for out in [ImageFormat.png, .jpeg, .webp, .tiff] {
            let (bytes, _) = try Self.convert(tiff, to: out)
            let again = try ImageReader.open(.bytes(bytes, name: "x")).info.metadata
            try Self.expectKept(again.exif, from: original)
            #expect(again.iccProfile == Self.icc && again.xmp == Self.xmp, "\(out)")
        }
    }

    /// The pixels are turned upright on reading, so the TIFF says Orientation 1; with
    /// --no-auto-orient they are as stored and the TIFF keeps the camera's Orientation.
    @Test func orientationFollowsThePixels() throws {
        let jpeg = try Self.source(.jpeg, exif: Self.cameraExif(orientation: 6))
        let (upright, _) = try Self.convert(jpeg, to: .tiff)
        let info = try ImageReader.open(.bytes(upright, name: "u")).info
        #expect(info.width == 21 && info.height == 33 && info.appliedOrientation == nil)
        #expect(try #require(TestTIFFWalker(upright)).ifd0.number(0x0112) == 1)
        let (stored, _) = try Self.convert(jpeg, to: .tiff, decode: DecodeOptions(autoOrient: false))
        #expect(try #require(TestTIFFWalker(stored)).ifd0.number(0x0112) == 6)
        let turned = try ImageReader.open(.bytes(stored, name: "s")).info
        #expect(turned.width == 21 && turned.appliedOrientation == .right)
        try Self.expectKept(turned.metadata.exif, from: Self.cameraExif(orientation: 6))
    }

    /// Nothing is added that the input lacked; --strip keeps the ICC profile only.
    @Test func nothingIsAddedAndStripKeepsTheProfile() throws {
        let (plain, notes) = try Self.convert(try Self.pixels().encodedPNG(), to: .tiff)
        #expect(notes.isEmpty)
        let ifd0 = try #require(TestTIFFWalker(plain)).ifd0
        for tag: UInt16 in [0x010F, 0x0112, 282, 296, 700, 34665, 34853, 34675] { #expect(ifd0.entries[tag] == nil, "\(tag)") }
        let (stripped, _) = try Self.convert(try Self.source(.png), to: .tiff, options: EncodeOptions(stripMetadata: true))
        let s = try #require(TestTIFFWalker(stripped)).ifd0
        #expect(s.entries[34675]?.value == Self.icc)
        for tag: UInt16 in [0x010F, 700, 34665, 34853, 282] { #expect(s.entries[tag] == nil, "\(tag)") }
    }

    /// Damaged EXIF (offsets past the end, a loop of pointers, a type TIFF lacks) loses the
    /// entries that cannot be read and nothing else.
    @Test func damagedExifKeepsWhatCanBeRead() throws {
        var b = ExifBuilder(bigEndian: false)
        let exif = b.ifd([(0x829A, 5, b.rational(1, 60)), (0x9999, 99, [1, 2, 3, 4])])
        let ifd0 = b.ifd([(0x010F, 2, b.ascii("Maker")), (0x8769, 4, b.long(exif)), (0x8825, 4, b.long(0xFFFF_FF00))])
        b.setFirstIFD(ifd0)
        let bytes = b.bytes
        // IFD0 (at offset 8: its values fit its entries) is its own Exif IFD: a loop.
        var looped = ExifBuilder(bigEndian: false)
        let loopIFD0 = looped.ifd([(0x0110, 2, looped.ascii("Lp")), (0x8769, 4, looped.long(8))])
        #expect(loopIFD0 == 8)
        looped.setFirstIFD(loopIFD0)
        for data in [bytes, looped.bytes, Array(bytes.prefix(20)), [UInt8]("Exif".utf8)] {
            let (tiff, _) = try Self.convert(try Self.pixels().encodedPNG(exif: data), to: .tiff)
            let back = try ImageReader.open(.bytes(tiff, name: "t")).info
            #expect(back.width == 33)
            if data == bytes {
                let ifd = try #require(TestTIFFWalker(tiff)).ifd0
                #expect(ifd.text(0x010F) == "Maker" && ifd.subIFDs[0x8825] == nil)
                #expect(ifd.subIFDs[0x8769]?.entries.keys.sorted() == [0x829A])
            }
        }
    }
}

extension Pixels {
    func encodedPNG(exif: [UInt8]? = nil) throws -> [UInt8] {
        let buffer = OutputBuffer()
        try write(to: .memory(buffer), format: .png, metadata: ImageMetadata(exif: exif))
        return buffer.bytes
    }
}

/// Builds EXIF data (a TIFF structure) in either byte order, for the tests.
struct ExifBuilder {
    let bigEndian: Bool
    var bytes: [UInt8]

    init(bigEndian: Bool) {
        self.bigEndian = bigEndian
        bytes = (bigEndian ? [0x4D, 0x4D, 0x00, 0x2A] : [0x49, 0x49, 0x2A, 0x00]) + [0, 0, 0, 0]
    }

    func short(_ v: UInt16) -> [UInt8] { bigEndian ? [UInt8(v >> 8), UInt8(v & 0xFF)] : [UInt8(v & 0xFF), UInt8(v >> 8)] }
    func long(_ v: UInt32) -> [UInt8] { short(UInt16(bigEndian ? v >> 16 : v & 0xFFFF)) + short(UInt16(bigEndian ? v & 0xFFFF : v >> 16)) }
    func rational(_ n: UInt32, _ d: UInt32) -> [UInt8] { long(n) + long(d) }
    func ascii(_ s: String) -> [UInt8] { Array(s.utf8) + [0] }

    mutating func append(_ b: [UInt8]) -> UInt32 {
        if bytes.count % 2 == 1 { bytes.append(0) }
        let at = UInt32(bytes.count)
        bytes += b
        return at
    }

    /// An IFD of (tag, type, value bytes in this byte order); the count from the type's size.
    mutating func ifd(_ entries: [(UInt16, UInt16, [UInt8])], next: UInt32 = 0) -> UInt32 {
        let sizes: [UInt16: Int] = [1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 7: 1, 10: 8, 99: 1]
        var table = short(UInt16(entries.count))
        var fields: [[UInt8]] = []
        for (_, _, value) in entries {
            fields.append(value.count > 4 ? long(append(value)) : value + [UInt8](repeating: 0, count: 4 - value.count))
        }
        for ((tag, type, value), field) in zip(entries, fields) {
            table += short(tag) + short(type) + long(UInt32(value.count / sizes[type]!)) + field
        }
        return append(table + long(next))
    }

    mutating func setFirstIFD(_ offset: UInt32) { bytes.replaceSubrange(4..<8, with: long(offset)) }
}
