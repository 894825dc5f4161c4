import Foundation
import Testing
@testable import FilterChain

/// A little-endian TIFF written by hand, for the tests: IFDs of (tag, type, count, value)
/// entries, values over 4 bytes stored out of line.
struct TestTIFFBuilder {
    var bytes: [UInt8] = [0x49, 0x49, 0x2A, 0x00, 0, 0, 0, 0]
    typealias Entry = (tag: UInt16, type: UInt16, count: UInt32, value: [UInt8])

    static func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
    static func le32(_ v: UInt32) -> [UInt8] { (0..<4).map { UInt8((v >> (8 * UInt32($0))) & 0xFF) } }

    mutating func append(_ b: [UInt8]) -> UInt32 {
        if bytes.count % 2 == 1 { bytes.append(0) }
        let at = UInt32(bytes.count)
        bytes += b
        return at
    }

    mutating func ifd(_ entries: [Entry]) -> UInt32 {
        let resolved = entries.sorted { $0.tag < $1.tag }.map { e -> Entry in
            e.value.count > 4 ? (e.tag, e.type, e.count, Self.le32(append(e.value)))
                              : (e.tag, e.type, e.count, e.value + [UInt8](repeating: 0, count: 4 - e.value.count))
        }
        var table = Self.le16(UInt16(resolved.count))
        for e in resolved { table += Self.le16(e.tag) + Self.le16(e.type) + Self.le32(e.count) + e.value }
        return append(table + Self.le32(0))
    }

    mutating func setFirstIFD(_ offset: UInt32) { bytes.replaceSubrange(4..<8, with: Self.le32(offset)) }

    static func short(_ tag: UInt16, _ v: UInt16) -> Entry { (tag, 3, 1, le16(v)) }
    static func long(_ tag: UInt16, _ v: UInt32) -> Entry { (tag, 4, 1, le32(v)) }
}

/// The test's own reader of EXIF data (a TIFF structure): IFD0's Exif pointer and the Exif
/// IFD's entries, as (type, count, value bytes).
func testExifEntries(_ exif: [UInt8]) -> [UInt16: (type: UInt16, count: UInt32, value: [UInt8])]? {
    guard exif.count >= 8, exif[0] == 0x49 || exif[0] == 0x4D else { return nil }
    let big = exif[0] == 0x4D
    func u16(_ o: Int) -> UInt16 { big ? UInt16(exif[o]) << 8 | UInt16(exif[o + 1]) : UInt16(exif[o + 1]) << 8 | UInt16(exif[o]) }
    func u32(_ o: Int) -> UInt32 { big ? UInt32(u16(o)) << 16 | UInt32(u16(o + 2)) : UInt32(u16(o + 2)) << 16 | UInt32(u16(o)) }
    let sizes: [UInt16: Int] = [1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 7: 1, 9: 4, 10: 8]
    func entries(at offset: Int) -> [UInt16: (type: UInt16, count: UInt32, value: [UInt8])]? {
        guard offset + 2 <= exif.count else { return nil }
        var out: [UInt16: (type: UInt16, count: UInt32, value: [UInt8])] = [:]
        for i in 0..<Int(u16(offset)) {
            let e = offset + 2 + 12 * i
            guard e + 12 <= exif.count else { return nil }
            let type = u16(e + 2), count = u32(e + 4)
            let length = (sizes[type] ?? 1) * Int(count)
            let at = length > 4 ? Int(u32(e + 8)) : e + 8
            guard at + length <= exif.count else { return nil }
            out[u16(e)] = (type, count, Array(exif[at..<at + length]))
        }
        return out
    }
    guard let ifd0 = entries(at: Int(u32(4))), let pointer = ifd0[34665] else { return nil }
    let p = pointer.value
    let exifOffset = big ? Int(p[0]) << 24 | Int(p[1]) << 16 | Int(p[2]) << 8 | Int(p[3])
                         : Int(p[3]) << 24 | Int(p[2]) << 16 | Int(p[1]) << 8 | Int(p[0])
    return entries(at: exifOffset)
}

@Suite struct TIFFMetadataTests {
    static let icc = (0..<300).map { UInt8($0 % 251) }
    static let xmp = Array(#"<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF/></x:xmpmeta>"#.utf8)
    static let date = Array("2024:01:02 03:04:05".utf8) + [0]

    static func file(orientation: UInt16 = 1) -> [UInt8] {
        var b = TestTIFFBuilder()
        let pixels = b.append([10, 20, 30, 40, 50, 60])  // 3 x 2 grey
        let exif = b.ifd([
            (36867, 2, UInt32(date.count), date),                                     // DateTimeOriginal
            (33434, 5, 1, TestTIFFBuilder.le32(1) + TestTIFFBuilder.le32(125)),       // ExposureTime 1/125
            TestTIFFBuilder.short(34855, 200),                                        // ISO
        ])
        let ifd0 = b.ifd([
            TestTIFFBuilder.long(256, 3), TestTIFFBuilder.long(257, 2), TestTIFFBuilder.short(258, 8),
            TestTIFFBuilder.short(259, 1), TestTIFFBuilder.short(262, 1), TestTIFFBuilder.long(273, pixels),
            TestTIFFBuilder.short(274, orientation), TestTIFFBuilder.short(277, 1), TestTIFFBuilder.long(278, 2),
            TestTIFFBuilder.long(279, 6), (700, 1, UInt32(xmp.count), xmp), (34675, 7, UInt32(icc.count), icc),
            TestTIFFBuilder.long(34665, exif),
        ])
        b.setFirstIFD(ifd0)
        return b.bytes
    }

    func read(_ bytes: [UInt8], autoOrient: Bool = true) throws -> (ImageInfo, [UInt8]) {
        let path = NSTemporaryDirectory() + "tiff-meta-\(UUID().uuidString).tif"
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let reader = try ImageReader.open(.file(path), options: DecodeOptions(autoOrient: autoOrient))
        return (reader.info, try reader.readAll())
    }

    @Test func iccXMPAndTheExifSubIFDAreRead() throws {
        let (info, pixels) = try read(Self.file())
        #expect(info.sourceFormat == .tiff && info.format == PixelFormat(.grey, .eight))
        #expect(pixels == [10, 20, 30, 40, 50, 60])
        #expect(info.metadata.iccProfile == Self.icc)
        #expect(info.metadata.xmp == Self.xmp)
        let exif = try #require(info.metadata.exif)
        let entries = try #require(testExifEntries(exif))
        #expect(entries[36867]?.value == Self.date)
        #expect(entries[33434]?.value == TestTIFFBuilder.le32(1) + TestTIFFBuilder.le32(125))
        #expect(entries[34855]?.value == TestTIFFBuilder.le16(200))
        #expect(entries.count == 3)
    }

    /// Orientation 3 (180 degrees) turns the pixels; --no-auto-orient keeps them as stored.
    @Test func theOrientationTagTurnsThePixels() throws {
        let (info, pixels) = try read(Self.file(orientation: 3))
        #expect(info.appliedOrientation == .down && pixels == [60, 50, 40, 30, 20, 10])
        let (kept, stored) = try read(Self.file(orientation: 3), autoOrient: false)
        #expect(kept.appliedOrientation == nil && stored == [10, 20, 30, 40, 50, 60])
    }
}
