import Foundation
import Testing
@testable import FilterChain

/// Metadata kept whole from input to output, in both directions where the other format
/// has a place for it, and nothing added. Files are built and read here with their own
/// small chunk and segment walkers (and their own CRC), not with the code under test.
@Suite struct MetadataTests {
    // MARK: File surgery, independent of the library

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            crc ^= UInt32(b)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    static func be16(_ v: Int) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        be32(UInt32(data.count)) + Array(type.utf8) + data + be32(crc32(Array(type.utf8) + data))
    }

    /// Every chunk of a PNG, in order.
    static func pngChunks(_ png: [UInt8]) -> [(type: String, data: [UInt8])] {
        var out: [(String, [UInt8])] = []
        var i = 8
        while i + 12 <= png.count {
            let n = Int(png[i]) << 24 | Int(png[i + 1]) << 16 | Int(png[i + 2]) << 8 | Int(png[i + 3])
            out.append((String(decoding: png[i + 4..<i + 8], as: UTF8.self), Array(png[i + 8..<i + 8 + n])))
            i += 12 + n
        }
        return out
    }

    /// A PNG with `before` chunks inserted after IHDR and `after` chunks after the last IDAT.
    static func png(_ base: [UInt8], before: [[UInt8]], after: [[UInt8]] = []) -> [UInt8] {
        var out = Array(base[0..<33])  // signature and IHDR
        for c in before { out += c }
        let chunks = pngChunks(base)
        for c in chunks.dropFirst() where c.type != "IEND" { out += chunk(c.type, c.data) }
        for c in after { out += c }
        return out + chunk("IEND", [])
    }

    /// The segments of a JPEG up to the first scan: marker and payload.
    static func jpegSegments(_ jpeg: [UInt8]) -> [(marker: UInt8, payload: [UInt8])] {
        var out: [(UInt8, [UInt8])] = []
        var i = 2
        while i + 4 <= jpeg.count, jpeg[i] == 0xFF {
            let marker = jpeg[i + 1]
            if marker == 0xDA { break }
            let n = Int(jpeg[i + 2]) << 8 | Int(jpeg[i + 3])
            out.append((marker, Array(jpeg[i + 4..<i + 2 + n])))
            i += 2 + n
        }
        return out
    }

    /// A JPEG with `segments` inserted after SOI and the JFIF APP0 (whose density is set
    /// when `density` is given).
    static func jpeg(_ base: [UInt8], segments: [(UInt8, [UInt8])], density: (unit: UInt8, x: Int, y: Int)? = nil) -> [UInt8] {
        var out: [UInt8] = [0xFF, 0xD8]
        var i = 2
        if base[2] == 0xFF, base[3] == 0xE0 {
            let n = Int(base[4]) << 8 | Int(base[5])
            var app0 = Array(base[2..<4 + n])
            if let density {
                app0[4 + 7] = density.unit
                app0.replaceSubrange(4 + 8..<4 + 12, with: be16(density.x) + be16(density.y))
            }
            out += app0
            i = 4 + n
        }
        for (marker, payload) in segments { out += [0xFF, marker] + be16(payload.count + 2) + payload }
        return out + base[i...]
    }

    static let xmpPrefix = Array("http://ns.adobe.com/xap/1.0/\0".utf8)
    static let extensionPrefix = Array("http://ns.adobe.com/xmp/extension/\0".utf8)

    static func xmpPacket(orientation: Int = 1, extra: String = "") -> [UInt8] {
        Array("""
        <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF \
        xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" \
        xmlns:tiff="http://ns.adobe.com/tiff/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/" \
        tiff:Orientation="\(orientation)"><dc:creator>Zoë Ångström</dc:creator>\(extra)</rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>
        """.utf8)
    }

    static func image(_ width: Int = 24, _ height: Int = 16) throws -> RasterImage {
        try RasterImage(width: width, height: height, format: PixelFormat(.rgb, .eight),
                        samples: (0..<width * height * 3).map { ($0 * 37) % 256 })
    }

    static func reencoded(_ bytes: [UInt8], as format: ImageFormat, _ options: EncodeOptions = .init()) throws -> [UInt8] {
        try RasterImage(decoding: bytes).encoded(as: format, options: options)
    }

    // MARK: JPEG in

    /// A JPEG with XMP, a 150 kB extended XMP in three segments, two comments and 300 dpi.
    static func richJPEG() throws -> (jpeg: [UInt8], xmp: [UInt8], extended: [UInt8], guid: [UInt8]) {
        let base = try image().encoded(as: .jpeg)
        let xmp = xmpPacket(extra: "<xmpNote:HasExtendedXMP>0123456789ABCDEF0123456789ABCDEF</xmpNote:HasExtendedXMP>")
        let extended = Array((0..<150_000).map { UInt8(truncatingIfNeeded: 0x41 + $0 % 26) })
        let guid = Array("0123456789ABCDEF0123456789ABCDEF".utf8)
        var segments: [(UInt8, [UInt8])] = [(0xE1, xmpPrefix + xmp)]
        let part = 60_000
        // Out of order on purpose: offsets say where each part goes.
        for offset in stride(from: 0, to: extended.count, by: part).reversed() {
            let end = min(extended.count, offset + part)
            segments.append((0xE1, extensionPrefix + guid + be32(UInt32(extended.count)) + be32(UInt32(offset)) + Array(extended[offset..<end])))
        }
        segments.append((0xFE, Array("first comment".utf8)))
        segments.append((0xFE, [0x63, 0x61, 0x66, 0xE9]))  // "café" in Latin-1: bytes, not text
        return (jpeg(base, segments: segments, density: (1, 300, 300)), xmp, extended, guid)
    }

    @Test func jpegToJPEGKeepsXMPExtendedXMPCommentsAndDensity() throws {
        let (source, xmp, extended, guid) = try Self.richJPEG()
        let decoded = try RasterImage(decoding: source)
        #expect(decoded.metadata.xmp == xmp)
        #expect(decoded.metadata.extendedXMP == ExtendedXMP(guid: String(decoding: guid, as: UTF8.self), packet: extended))
        #expect(decoded.metadata.comments.count == 2)
        #expect(decoded.metadata.resolution == Resolution(x: 300, y: 300, unit: .perInch))

        let out = Self.jpegSegments(try Self.reencoded(source, as: .jpeg))
        #expect(out.contains { $0.marker == 0xE1 && $0.payload == Self.xmpPrefix + xmp })
        let parts = out.filter { $0.marker == 0xE1 && $0.payload.starts(with: Self.extensionPrefix) }.map(\.payload)
        #expect(parts.count == 3)
        var rebuilt = [UInt8](repeating: 0, count: extended.count)
        for p in parts {
            let h = Self.extensionPrefix.count
            #expect(Array(p[h..<h + 32]) == guid)
            let offset = Int(p[h + 36]) << 24 | Int(p[h + 37]) << 16 | Int(p[h + 38]) << 8 | Int(p[h + 39])
            rebuilt.replaceSubrange(offset..<offset + p.count - h - 40, with: p[(h + 40)...])
        }
        #expect(rebuilt == extended)
        #expect(out.filter { $0.marker == 0xFE }.map(\.payload) == [Array("first comment".utf8), [0x63, 0x61, 0x66, 0xE9]])
        let jfif = try #require(out.first { $0.marker == 0xE0 }).payload
        #expect(jfif[7] == 1 && Array(jfif[8..<12]) == Self.be16(300) + Self.be16(300))
    }

    @Test func jpegToPNGPutsXMPCommentsAndDensityInTheirPNGPlaces() throws {
        let (source, xmp, _, _) = try Self.richJPEG()
        let decoded = try RasterImage(decoding: source)
        let result = try Renderer(threads: 1).render(Chain(), image: decoded, outputs: [
            RenderOutput(step: 0, .file(.memory(OutputBuffer()), EncodeOptions(format: .png)))])
        #expect(result.notes.contains { $0.contains("extended XMP") })
        let chunks = Self.pngChunks(try decoded.encoded(as: .png))
        #expect(chunks.contains { $0.type == "iTXt" && $0.data == Array("XML:com.adobe.xmp".utf8) + [0, 0, 0, 0, 0] + xmp })
        #expect(chunks.contains { $0.type == "tEXt" && $0.data == Array("Comment\0first comment".utf8) })
        #expect(chunks.contains { $0.type == "tEXt" && $0.data == Array("Comment\0".utf8) + [0x63, 0x61, 0x66, 0xE9] })
        // 300 dpi = 300 / 0.0254 = 11811.02 pixels per metre.
        #expect(chunks.contains { $0.type == "pHYs" && $0.data == Self.be32(11811) + Self.be32(11811) + [1] })
        for added in ["gAMA", "cHRM", "sRGB", "iCCP", "eXIf", "tIME"] { #expect(!chunks.contains { $0.type == added }, "\(added)") }
    }

    // MARK: PNG in

    static func richPNG() throws -> (png: [UInt8], kept: [(String, [UInt8])], xmp: [UInt8]) {
        let base = try image().encoded(as: .png)
        let xmp = xmpPacket()
        // Python's zlib.compress(b"This is a zTXt").
        let compressed: [UInt8] = [0x78, 0x9C, 0x0B, 0xC9, 0xC8, 0x2C, 0x56, 0x00, 0xA2, 0x44, 0x85, 0xAA, 0x90, 0x88,
                                   0x12, 0x00, 0x24, 0x22, 0x04, 0xD0]
        let kept: [(String, [UInt8])] = [
            ("tEXt", Array("Title\0A cat".utf8)),
            ("zTXt", Array("Description\0".utf8) + [0] + compressed),
            ("iTXt", Array("Author\0".utf8) + [0, 0] + Array("fr\0Auteur\0".utf8) + Array("Zoë".utf8)),
            ("tIME", [0x07, 0xEA, 11, 23, 17, 50, 0]),
            ("tEXt", Array("Comment\0after the pixels".utf8)),
        ]
        let before = [chunk("pHYs", be32(2835) + be32(2835) + [1]), chunk("sRGB", [0]),
                      chunk("iTXt", Array("XML:com.adobe.xmp".utf8) + [0, 0, 0, 0, 0] + xmp)]
            + kept.prefix(3).map { chunk($0.0, $0.1) }
        let after = kept.suffix(2).map { chunk($0.0, $0.1) }
        return (png(base, before: before, after: after), kept, xmp)
    }

    @Test func pngToPNGKeepsTextTimeResolutionAndXMPAndAddsNoColourChunks() throws {
        let (source, kept, xmp) = try Self.richPNG()
        let decoded = try RasterImage(decoding: source)
        #expect(decoded.metadata.xmp == xmp)
        #expect(decoded.metadata.resolution == Resolution(x: 2835, y: 2835, unit: .perMetre))
        #expect(decoded.metadata.pngChunks.map(\.type) == kept.map(\.0))
        let zTXt = try #require(decoded.metadata.pngChunks[1].text)
        #expect(zTXt.keyword == "Description" && zTXt.text == Array("This is a zTXt".utf8))

        let out = Self.pngChunks(try Self.reencoded(source, as: .png))
        for (type, data) in kept { #expect(out.contains { $0.type == type && $0.data == data }, "\(type)") }
        #expect(out.contains { $0.type == "iTXt" && $0.data == Array("XML:com.adobe.xmp".utf8) + [0, 0, 0, 0, 0] + xmp })
        #expect(out.contains { $0.type == "pHYs" && $0.data == Self.be32(2835) + Self.be32(2835) + [1] })
        // The source has sRGB only: libpng implies gAMA and cHRM from it, and none is added.
        #expect(out.filter { ["sRGB", "gAMA", "cHRM"].contains($0.type) }.map(\.type) == ["sRGB"])
    }

    @Test func aPNGWithGammaOnlyKeepsGammaOnly() throws {
        let source = Self.png(try Self.image().encoded(as: .png), before: [Self.chunk("gAMA", Self.be32(45455))])
        let out = Self.pngChunks(try Self.reencoded(source, as: .png))
        #expect(out.filter { ["sRGB", "gAMA", "cHRM"].contains($0.type) }.map(\.type) == ["gAMA"])
    }

    @Test func pngToJPEGPutsXMPCommentsAndDensityInTheirJPEGPlaces() throws {
        let (source, _, xmp) = try Self.richPNG()
        let out = Self.jpegSegments(try Self.reencoded(source, as: .jpeg))
        #expect(out.contains { $0.marker == 0xE1 && $0.payload == Self.xmpPrefix + xmp })
        #expect(out.filter { $0.marker == 0xFE }.map(\.payload) == [Array("after the pixels".utf8)])
        // 2835 pixels per metre = 72.009 dpi.
        let jfif = try #require(out.first { $0.marker == 0xE0 }).payload
        #expect(jfif[7] == 1 && Array(jfif[8..<12]) == Self.be16(72) + Self.be16(72))
        // Exactly whole centimetres stay per centimetre.
        let cm = Self.png(try Self.image().encoded(as: .png), before: [Self.chunk("pHYs", Self.be32(11800) + Self.be32(5900) + [1])])
        let cmJFIF = try #require(Self.jpegSegments(try Self.reencoded(cm, as: .jpeg)).first { $0.marker == 0xE0 }).payload
        #expect(cmJFIF[7] == 2 && Array(cmJFIF[8..<12]) == Self.be16(118) + Self.be16(59))
    }

    @Test func aTextChunkWithABadCRCIsLeftOutLeniently() throws {
        var bad = Self.chunk("tEXt", Array("Title\0broken".utf8))
        bad[bad.count - 1] ^= 0xFF
        let source = Self.png(try Self.image().encoded(as: .png), before: [bad, Self.chunk("tEXt", Array("Title\0fine".utf8))])
        let decoded = try RasterImage(decoding: source, options: DecodeOptions(lenient: true))
        #expect(decoded.metadata.pngChunks == [PNGChunk(type: "tEXt", data: Array("Title\0fine".utf8))])
    }

    // MARK: Orientation and stripping

    static let exifOrientation6: [UInt8] = [0x4D, 0x4D, 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0]

    @Test(arguments: ["tiff:Orientation=\"6\"", "tiff:Orientation='6'", "<tiff:Orientation>6</tiff:Orientation>"])
    func applyingTheOrientationSetsXMPsToo(form: String) throws {
        var xmp = Self.xmpPacket(orientation: 6)
        if !form.hasPrefix("tiff:Orientation=\"") {
            xmp = Array(String(decoding: xmp, as: UTF8.self).replacingOccurrences(of: "tiff:Orientation=\"6\"", with: "")
                .replacingOccurrences(of: "</dc:creator>", with: "</dc:creator>" + form).utf8)
        }
        let base = try RasterImage(width: 24, height: 16, format: PixelFormat(.rgb, .eight),
                                   samples: (0..<24 * 16 * 3).map { $0 % 256 }, metadata: ImageMetadata(exif: Self.exifOrientation6))
            .encoded(as: .jpeg)
        let source = Self.jpeg(base, segments: [(0xE1, Self.xmpPrefix + xmp)])
        let decoded = try RasterImage(decoding: source)
        #expect(decoded.width == 16 && decoded.height == 24)
        let text = String(decoding: try #require(decoded.metadata.xmp), as: UTF8.self)
        #expect(!text.contains("6\"") && !text.contains("6'") && !text.contains(">6<"))
        #expect(text.contains(form.replacingOccurrences(of: "6", with: "1")))
        #expect(Exif.orientation(in: try #require(decoded.metadata.exif)) == .up)
        // Kept as stored when the pixels are kept as stored.
        let asStored = try RasterImage(decoding: source, options: DecodeOptions(autoOrient: false))
        #expect(asStored.metadata.xmp == xmp)
    }

    @Test func stripKeepsTheColourProfileAndStripAllDropsIt() throws {
        let (source, _, _, _) = try Self.richJPEG()
        var image = try RasterImage(decoding: source)
        let icc = try #require(try RasterImage(contentsOf: TestData.samples.appendingPathComponent("rocket.jpg").path).metadata.iccProfile)
        image.metadata.iccProfile = icc
        image.metadata.exif = Self.exifOrientation6
        let stripped = try RasterImage(decoding: try image.encoded(as: .jpeg, options: EncodeOptions(stripMetadata: true)))
        #expect(stripped.metadata.iccProfile == icc)
        #expect(stripped.metadata.exif == nil && stripped.metadata.xmp == nil && stripped.metadata.extendedXMP == nil)
        #expect(stripped.metadata.comments.isEmpty && stripped.metadata.resolution == nil)
        let all = try RasterImage(decoding: try image.encoded(as: .png, options: EncodeOptions(stripMetadata: true, stripColorProfile: true)))
        #expect(all.metadata.iccProfile == nil && all.metadata.xmp == nil && all.metadata.pngChunks.isEmpty)
        let png = Self.pngChunks(try image.encoded(as: .png, options: EncodeOptions(stripMetadata: true)))
        #expect(png.map(\.type) == ["IHDR", "iCCP", "IDAT", "IEND"])
    }
}
