import Foundation
import Testing
@testable import FilterChain

/// A HEIC's ICC profile, EXIF (its Orientation reset to 1: the pixels are shown as the file
/// says, irot and imir applied) and XMP reach JPEG, PNG and WebP outputs whole, checked with
/// the tests' own segment, chunk and RIFF walkers against the bytes found in the HEIC file.
@Suite struct HEIFMetadataTests {
    static let folder = TestData.conformance.appendingPathComponent("heif/files")

    struct Expected {
        var icc: [UInt8]?
        var exif: [UInt8]
        var xmp: [UInt8]?
    }

    /// What the file holds, found in its bytes here: the ICC profile after "colrprof", the
    /// EXIF's TIFF structure (Orientation set to 1) and the XMP packet.
    static func expected(_ name: String, exifLength: Int, xmpLength: Int?) throws -> Expected {
        let bytes = Array(try Data(contentsOf: folder.appendingPathComponent(name)))
        var icc: [UInt8]?
        if let colr = HEIFConformanceTests.find(Array("colrprof".utf8), in: bytes) {
            let size = Int(bytes[colr - 4]) << 24 | Int(bytes[colr - 3]) << 16 | Int(bytes[colr - 2]) << 8 | Int(bytes[colr - 1])
            icc = Array(bytes[colr + 8..<colr - 4 + size])
        }
        let tiff = try #require(HEIFConformanceTests.find(Array("MM\0*".utf8), in: bytes)
                                ?? HEIFConformanceTests.find(Array("II*\0".utf8), in: bytes))
        var exif = Array(bytes[tiff..<tiff + exifLength])
        // Orientation (IFD0, tag 0x0112) set to 1 by hand.
        let big = exif[0] == 0x4D
        func u16(_ o: Int) -> Int { big ? Int(exif[o]) << 8 | Int(exif[o + 1]) : Int(exif[o + 1]) << 8 | Int(exif[o]) }
        let ifd = big ? u16(4) << 16 | u16(6) : u16(6) << 16 | u16(4)
        for i in 0..<u16(ifd) where u16(ifd + 2 + 12 * i) == 0x0112 {
            let value = ifd + 2 + 12 * i + 8
            exif[value] = big ? 0 : 1
            exif[value + 1] = big ? 1 : 0
        }
        var xmp: [UInt8]?
        if let xmpLength, let at = HEIFConformanceTests.find(Array("<?xpacket".utf8), in: bytes) {
            xmp = Array(bytes[at..<at + xmpLength])
        }
        return Expected(icc: icc, exif: exif, xmp: xmp)
    }

    static func convert(_ name: String, to format: ImageFormat) throws -> (input: ImageMetadata, output: [UInt8]) {
        let bytes = Array(try Data(contentsOf: folder.appendingPathComponent(name)))
        let image = try RasterImage(decoding: bytes)
        return (image.metadata, try image.encoded(as: format))
    }

    @Test(arguments: ["gen_iphone_like_grid512_p3_irot.heic", "pillowheif_L_exif_xmp_iptc.heic"])
    func toJPEG(name: String) throws {
        let (input, jpeg) = try Self.convert(name, to: .jpeg)
        let want = try Self.expected(name, exifLength: try #require(input.exif).count, xmpLength: input.xmp?.count)
        let segments = MetadataTests.jpegSegments(jpeg)
        let exif = segments.filter { $0.marker == 0xE1 && $0.payload.starts(with: Array("Exif\0\0".utf8)) }
        #expect(exif.map { Array($0.payload.dropFirst(6)) } == [want.exif])
        let icc = segments.filter { $0.marker == 0xE2 && $0.payload.starts(with: Array("ICC_PROFILE\0".utf8)) }
        #expect((icc.isEmpty ? nil : icc.flatMap { $0.payload.dropFirst(14) }) == want.icc)
        let xmp = segments.filter { $0.marker == 0xE1 && $0.payload.starts(with: MetadataTests.xmpPrefix) }
        #expect((xmp.isEmpty ? nil : Array(xmp[0].payload.dropFirst(MetadataTests.xmpPrefix.count))) == want.xmp)
        if name.contains("exif_xmp") { #expect(want.xmp != nil && xmp.count == 1) }
        if name.contains("iphone") { #expect(want.icc != nil && !icc.isEmpty) }
    }

    @Test(arguments: ["gen_iphone_like_grid512_p3_irot.heic", "pillowheif_L_exif_xmp_iptc.heic"])
    func toPNG(name: String) throws {
        let (input, png) = try Self.convert(name, to: .png)
        let want = try Self.expected(name, exifLength: try #require(input.exif).count, xmpLength: input.xmp?.count)
        let chunks = MetadataTests.pngChunks(png)
        #expect(chunks.filter { $0.type == "eXIf" }.map(\.data) == [want.exif])
        let keyword = Array("XML:com.adobe.xmp\0".utf8)
        let itxt = chunks.filter { $0.type == "iTXt" && $0.data.starts(with: keyword) }
        // iTXt: keyword, compression flag 0 and method, empty language and translated keyword.
        #expect((itxt.isEmpty ? nil : Array(itxt[0].data.dropFirst(keyword.count + 4))) == want.xmp)
        // iCCP is deflated: its presence here, its bytes read back by the PNG decoder.
        #expect(chunks.contains { $0.type == "iCCP" } == (want.icc != nil))
        #expect(try RasterImage(decoding: png).metadata.iccProfile == want.icc)
    }

    @Test(arguments: ["gen_iphone_like_grid512_p3_irot.heic", "pillowheif_L_exif_xmp_iptc.heic"])
    func toWebP(name: String) throws {
        let (input, webp) = try Self.convert(name, to: .webp)
        let want = try Self.expected(name, exifLength: try #require(input.exif).count, xmpLength: input.xmp?.count)
        let chunks = WebPTests.riffChunks(webp)
        #expect(chunks.filter { $0.fourcc == "EXIF" }.map(\.data) == [want.exif])
        #expect(chunks.first { $0.fourcc == "ICCP" }?.data == want.icc)
        #expect(chunks.first { $0.fourcc == "XMP " }?.data == want.xmp)
    }
}
