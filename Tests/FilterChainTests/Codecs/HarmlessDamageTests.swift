import Foundation
import Testing
@testable import FilterChain

/// Damage that touches no pixel decodes (strictly) to the same pixels as the undamaged file,
/// with one notice naming the file; damage to image data stays an error unless lenient.
/// Every damaged file is made here from a clean one.
@Suite struct HarmlessDamageTests {
    static let icc = RoundTripTests.test3ICC
    static let pixels = Pixels.random(width: 48, height: 40, format: PixelFormat(.rgb, .eight), seed: 4)

    /// The bytes of a clean file written with `metadata`.
    static func clean(_ format: ImageFormat, metadata: ImageMetadata = .none) throws -> [UInt8] {
        let path = TestData.temporaryFolder().appendingPathComponent("clean." + (format == .png ? "png" : "jpg")).path
        try pixels.write(to: .file(path), format: format, metadata: metadata)
        return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// JPEG segments before the scan: (offset of the marker, marker, whole length with marker).
    static func segments(_ jpeg: [UInt8]) -> [(offset: Int, marker: UInt8, length: Int)] {
        var result: [(Int, UInt8, Int)] = []
        var i = 2
        while i + 4 <= jpeg.count, jpeg[i] == 0xFF, jpeg[i + 1] != 0xDA {
            let length = Int(jpeg[i + 2]) << 8 | Int(jpeg[i + 3])
            result.append((i, jpeg[i + 1], length + 2))
            i += length + 2
        }
        result.append((i, 0xDA, 0))
        return result
    }

    static func decode(_ bytes: [UInt8], lenient: Bool = false) throws -> (ImageReader, [UInt8]) {
        let reader = try ImageReader.open(.bytes(bytes, name: "damaged.x"), options: DecodeOptions(lenient: lenient))
        return (reader, try reader.readAll())
    }

    @Test func strayBytesBetweenJPEGSegmentsAreANotice() throws {
        let jpeg = try Self.clean(.jpeg, metadata: ImageMetadata(exif: ExifFixture.make(orientation: 1)))
        let (_, expected) = try Self.decode(jpeg)
        // 16 bytes before the EXIF marker (APP1), as Photoshop writes them, and 5 before the
        // scan's own marker.
        let app1 = try #require(Self.segments(jpeg).first { $0.marker == 0xE1 })
        let sos = try #require(Self.segments(jpeg).last)
        var damaged = jpeg
        damaged.insert(contentsOf: [UInt8](repeating: 0x00, count: 5), at: sos.offset)
        damaged.insert(contentsOf: [UInt8](repeating: 0x20, count: 16), at: app1.offset)
        let (reader, pixels) = try Self.decode(damaged)
        #expect(pixels == expected, "pixels differ")
        #expect(reader.notices == ["damaged.x: stray bytes between JPEG segments were skipped (harmless damage)"])
        #expect(reader.info.metadata.exif == ExifFixture.make(orientation: 1))
        #expect(reader.warnings.isEmpty)
    }

    /// Strict decoding refuses a file for the harmless damage that is otherwise a notice (in
    /// JPEG and PNG, the same two kinds as above), naming the damage; the clean file and a
    /// notice that is no damage (an AVIF sequence read for its first frame) still decode.
    @Test func strictDecodingRefusesHarmlessDamage() throws {
        let jpeg = try Self.clean(.jpeg)
        var stray = jpeg
        stray.insert(contentsOf: [UInt8](repeating: 0x20, count: 16), at: try #require(Self.segments(jpeg).last).offset)
        let png = try Self.clean(.png, metadata: ImageMetadata(iccProfile: Self.icc))
        let iccp = try #require(Self.chunks(png).first { $0.type == "iCCP" })
        var badCRC = png
        badCRC[iccp.offset + iccp.length - 1] ^= 0x55
        let strict = DecodeOptions(strict: true)
        for (bytes, damage) in [(stray, "stray bytes between JPEG segments were skipped"),
                                (badCRC, "ancillary chunks with a bad CRC were dropped: iCCP")] {
            #expect(try Self.decode(bytes).0.notices.count == 1)
            let error = try #require(throws: CodecError.self) {
                _ = try ImageReader.open(.bytes(bytes, name: "damaged.x"), options: strict).readAll()
            }
            #expect(error.file == "damaged.x")
            #expect(error.message.contains(damage) && error.message.hasSuffix("(refused: strict decoding)"), "\(error)")
        }
        for clean in [jpeg, png] {
            #expect(try ImageReader.open(.bytes(clean, name: "clean.x"), options: strict).readAll().count == 48 * 40 * 3)
        }
        let sequence = try ImageReader.open(.file(AVIFTests.fixture("sequence-3.avif")), options: strict)
        _ = try sequence.readAll()
        #expect(sequence.notices.count == 1)
        let both = try #require(throws: RenderError.self) {
            _ = try ImageReader.open(.bytes(jpeg, name: "clean.x"), options: DecodeOptions(lenient: true, strict: true))
        }
        #expect("\(both)".contains("lenient and strict decoding cannot both be set"), "\(both)")
    }

    @Test func strayBytesInsideTheScanStayAnError() throws {
        let jpeg = try Self.clean(.jpeg)
        #expect(Array(jpeg.suffix(2)) == [0xFF, 0xD9])
        var damaged = jpeg
        damaged.insert(contentsOf: [UInt8](repeating: 0x12, count: 16), at: jpeg.count - 2)
        let error = try #require(throws: CodecError.self) { _ = try Self.decode(damaged) }
        #expect(error.message.contains("extraneous bytes before marker 0xd9"), "\(error)")
        let (reader, _) = try Self.decode(damaged, lenient: true)
        #expect(reader.notices.isEmpty && !reader.warnings.isEmpty)
    }

    @Test func duplicatedICCSegmentsDropTheProfile() throws {
        let jpeg = try Self.clean(.jpeg, metadata: ImageMetadata(iccProfile: Self.icc))
        let (clean, expected) = try Self.decode(jpeg)
        #expect(clean.info.metadata.iccProfile == Self.icc, "the clean file's profile")
        // A second APP2 segment that also claims to be "1 of 1".
        let app2 = try #require(Self.segments(jpeg).first { $0.marker == 0xE2 })
        var damaged = jpeg
        damaged.insert(contentsOf: jpeg[app2.offset..<(app2.offset + app2.length)], at: app2.offset)
        let (reader, pixels) = try Self.decode(damaged)
        #expect(pixels == expected, "pixels differ")
        #expect(reader.info.metadata.iccProfile.map { _ in "a profile" } == nil)
        #expect(reader.notices.count == 1 && reader.notices[0].hasPrefix("damaged.x: ")
                && reader.notices[0].contains("colours may look different"), "\(reader.notices)")
    }

    @Test func badAndDuplicatedEXIFBlocksAreDropped() throws {
        let exif = ExifFixture.make(orientation: 6)
        let jpeg = try Self.clean(.jpeg, metadata: ImageMetadata(exif: exif))
        let app1 = try #require(Self.segments(jpeg).first { $0.marker == 0xE1 })
        let segment = Array(jpeg[app1.offset..<(app1.offset + app1.length)])
        // A bad block first (no TIFF header), then the good one, then a copy of it.
        let bad: [UInt8] = [0xFF, 0xE1, 0x00, 0x10] + Array("Exif".utf8) + [0, 0] + Array("garbage!".utf8)
        var damaged = jpeg
        damaged.insert(contentsOf: segment, at: app1.offset + app1.length)
        damaged.insert(contentsOf: bad, at: app1.offset)
        let (reader, _) = try Self.decode(damaged)
        // The good block is kept and still turns the image.
        #expect(reader.info.appliedOrientation == .right)
        #expect(reader.notices == ["damaged.x: a damaged EXIF block was dropped",
                                   "damaged.x: a second EXIF block was dropped (the first is kept)"])
    }

    /// PNG chunks: (offset, type, whole length with length, type and CRC).
    static func chunks(_ png: [UInt8]) -> [(offset: Int, type: String, length: Int)] {
        var result: [(Int, String, Int)] = []
        var i = 8
        while i + 12 <= png.count {
            let length = Int(png[i]) << 24 | Int(png[i + 1]) << 16 | Int(png[i + 2]) << 8 | Int(png[i + 3])
            result.append((i, String(decoding: png[(i + 4)..<(i + 8)], as: UTF8.self), length + 12))
            i += length + 12
        }
        return result
    }

    @Test func anAncillaryPNGChunkWithABadCRCIsDropped() throws {
        let png = try Self.clean(.png, metadata: ImageMetadata(iccProfile: Self.icc))
        let (_, expected) = try Self.decode(png)
        let iccp = try #require(Self.chunks(png).first { $0.type == "iCCP" })
        var damaged = png
        damaged[iccp.offset + iccp.length - 1] ^= 0x55
        let (reader, pixels) = try Self.decode(damaged)
        #expect(pixels == expected, "pixels differ")
        #expect(reader.info.metadata.iccProfile.map { _ in "a profile" } == nil)
        #expect(reader.notices == ["damaged.x: ancillary chunks with a bad CRC were dropped: iCCP; without the ICC profile colours may look different"])
        #expect(reader.warnings.isEmpty)
    }

    @Test func aCriticalPNGChunkWithABadCRCStaysAnError() throws {
        let png = try Self.clean(.png)
        let idat = try #require(Self.chunks(png).first { $0.type == "IDAT" })
        var damaged = png
        damaged[idat.offset + idat.length - 1] ^= 0x55
        let error = try #require(throws: CodecError.self) { _ = try Self.decode(damaged) }
        #expect(error.message.contains("CRC"), "\(error)")
        // Leniently the data is used as it is (only its CRC was damaged).
        let (_, pixels) = try Self.decode(damaged, lenient: true)
        #expect(pixels == (try Self.decode(png)).1, "pixels differ")
    }

    @Test func bytesStartingWith0xFFAreNotText() throws {
        for bytes: [UInt8] in [[0xFF, 0xFF, 0x41, 0x42], [0xFF, 0x00, 0x20, 0x20, 0x20], Array("caf\u{E9} ok".utf8)] {
            let error = try #require(throws: CodecError.self) { _ = try ImageReader.open(.bytes(bytes, name: "x")) }
            guard case .unsupportedFormat(let what) = error.reason else { Issue.record("\(error)"); continue }
            #expect((what == "text") == (bytes[0] != 0xFF), "\(bytes): \(what)")
        }
    }
}
