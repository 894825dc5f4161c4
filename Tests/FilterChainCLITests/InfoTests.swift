import Foundation
import Testing
import FilterChain

/// `filterchain info`: what a file is, from its header, held to plain readings of the files
/// themselves (PNG's IHDR, JPEG's SOF, the ICC profile's description tag).
@Suite struct InfoTests {
    let folder = CLI.temporaryFolder()

    func run(_ arguments: [String]) throws -> CLI.Result { try CLI.run(arguments, in: folder) }

    func lines(_ r: CLI.Result) -> [[String: Any]] {
        String(decoding: r.stdout, as: UTF8.self).split(separator: "\n").map {
            (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] ?? [:]
        }
    }

    // MARK: - Plain readings

    static func u32(_ b: [UInt8], _ i: Int) -> Int { Int(b[i]) << 24 | Int(b[i + 1]) << 16 | Int(b[i + 2]) << 8 | Int(b[i + 3]) }
    static func u16(_ b: [UInt8], _ i: Int) -> Int { Int(b[i]) << 8 | Int(b[i + 1]) }

    /// A JPEG's SOF: (width, height, components), and its ICC profile (APP2 chunks in order).
    static func jpegFacts(_ b: [UInt8]) -> (width: Int, height: Int, components: Int, icc: [UInt8]?) {
        var i = 2, icc: [UInt8] = [], size = (0, 0, 0)
        while i + 4 <= b.count, b[i] == 0xff {
            let marker = b[i + 1], length = u16(b, i + 2)
            if marker == 0xe2, Array(b[(i + 4)..<(i + 16)]) == Array("ICC_PROFILE\0".utf8) { icc += b[(i + 18)..<(i + 2 + length)] }
            if [0xc0, 0xc1, 0xc2].contains(marker) { size = (u16(b, i + 7), u16(b, i + 5), Int(b[i + 9])) }
            if marker == 0xda { break }
            i += 2 + length
        }
        return (size.0, size.1, size.2, icc.isEmpty ? nil : icc)
    }

    /// The ICC description tag: a v2 textDescriptionType's ASCII, or a v4 mluc's first record.
    static func iccDescription(_ p: [UInt8]) -> String? {
        for k in 0..<u32(p, 128) {
            let at = 132 + 12 * k
            guard String(decoding: p[at..<(at + 4)], as: UTF8.self) == "desc" else { continue }
            let offset = u32(p, at + 4), type = String(decoding: p[offset..<(offset + 4)], as: UTF8.self)
            if type == "desc" {
                let count = u32(p, offset + 8)
                return String(decoding: p[(offset + 12)..<(offset + 12 + count)].prefix { $0 != 0 }, as: UTF8.self)
            }
            if type == "mluc" {
                let length = u32(p, offset + 20), start = offset + u32(p, offset + 24)
                let units = stride(from: start, to: start + length, by: 2).map { UInt16(p[$0]) << 8 | UInt16(p[$0 + 1]) }
                return String(decoding: units, as: UTF16.self)
            }
        }
        return nil
    }

    // MARK: - Tests

    /// Each sample photograph: size, channels and colour as the file's own bytes say them.
    @Test(arguments: ["rocket.jpg", "coffee-p3.jpg"])
    func jpegsAsTheirHeadersSay(_ name: String) throws {
        let path = CLI.samples + "/" + name
        let facts = Self.jpegFacts(Array(try Data(contentsOf: URL(fileURLWithPath: path))))
        let r = try run(["info", "--json", path])
        #expect(r.status == 0, "\(r.stderr)")
        let info = try #require(lines(r).first)
        #expect(info["format"] as? String == "jpeg")
        #expect(info["width"] as? Int == facts.width && info["height"] as? Int == facts.height)
        #expect(info["channels"] as? String == (facts.components == 1 ? "grey" : "rgb"))
        #expect(info["bits"] as? Int == 8 && info["alpha"] as? Bool == false && info["orientation"] as? Int == 1)
        let icc = try #require(facts.icc)
        let colour = try #require(info["colour"] as? [String: Any])
        #expect(colour["bytes"] as? Int == icc.count)
        let description = try #require(Self.iccDescription(icc))
        #expect(colour["description"] as? String == description)
        let text = String(decoding: try run(["info", path]).stdout, as: UTF8.self)
        #expect(text.hasPrefix("\(path): JPEG, \(facts.width) x \(facts.height), RGB, 8-bit\n"), "\(text)")
        #expect(text.contains("  colour: ICC profile \"\(description)\" (RGB, \(icc.count) bytes)\n"), "\(text)")
    }

    /// A PNG with alpha and none of the colour chunks: as its IHDR says, untagged.
    @Test func aPNGAsItsIHDRSays() throws {
        let path = CLI.samples + "/logo.png"
        let b = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        let r = try run(["info", path])
        #expect(r.status == 0)
        let hasAlpha = b[25] == 4 || b[25] == 6
        #expect(String(decoding: r.stdout, as: UTF8.self) == """
            \(path): PNG, \(Self.u32(b, 16)) x \(Self.u32(b, 20)), RGB\(hasAlpha ? " with alpha" : ""), \(b[24])-bit
              colour: untagged (taken as sRGB)
              orientation: as stored
              metadata: no metadata

            """)
    }

    /// An EXIF Orientation of 6 (turn 90° clockwise): the upright size, the stored one beside it.
    @Test func anOrientationTurnsTheSize() throws {
        // EXIF: big-endian TIFF header, one IFD entry, Orientation (0x0112) SHORT 1 = 6.
        let exif: [UInt8] = [0x4d, 0x4d, 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0]
        let image = try RasterImage(width: 16, height: 8, format: PixelFormat(.rgb, .eight),
                                    samples: (0..<(16 * 8 * 3)).map { $0 % 256 }, metadata: ImageMetadata(exif: exif))
        try image.write(to: folder + "/turned.jpg")
        let r = try run(["info", "turned.jpg"])
        let text = String(decoding: r.stdout, as: UTF8.self)
        #expect(text.hasPrefix("turned.jpg: JPEG, 8 x 16 (stored 16 x 8), RGB, 8-bit\n"), "\(text)")
        #expect(text.contains("  orientation: 6 (right), turned upright\n"), "\(text)")
        #expect(text.contains("  metadata: EXIF (\(exif.count) bytes)"), "\(text)")
        let json = try #require(lines(try run(["info", "--json", "turned.jpg"])).first)
        #expect(json["width"] as? Int == 8 && json["height"] as? Int == 16 && json["orientation"] as? Int == 6)
    }

    /// No pixel is decoded and no size limit applies: a PNG whose header says 100,000 x 100,000
    /// (and whose data is a stub) is described, not refused.
    @Test func aHugeHeaderIsDescribedWithoutDecoding() throws {
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let body = Array(type.utf8) + data
            let n = data.count
            return [UInt8(n >> 24), UInt8(n >> 16 & 255), UInt8(n >> 8 & 255), UInt8(n & 255)] + body + CRC32.of(body)
        }
        let side: [UInt8] = [0, 1, 0x86, 0xa0]   // 100,000
        let png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] + chunk("IHDR", side + side + [8, 2, 0, 0, 0])
            + chunk("IDAT", [0x78, 0x9c]) + chunk("IEND", [])
        try Data(png).write(to: URL(fileURLWithPath: folder + "/huge.png"))
        let r = try run(["info", "huge.png"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(String(decoding: r.stdout, as: UTF8.self).hasPrefix("huge.png: PNG, 100000 x 100000, RGB, 8-bit\n"))
    }

    /// A gain map is shown with its metadata (as libultrahdr reads it: the conformance set's
    /// reference), a damaged one as such, and a file without one says nothing of it.
    @Test func gainMapsAreShown() throws {
        let hdr = CLI.packageRoot.deletingLastPathComponent().appendingPathComponent("shared/conformance/hdr")
        let file = hdr.appendingPathComponent("files/gen_chelsea_300x451_s2.jpg").path
        let ref = try JSONSerialization.jsonObject(with: Data(contentsOf: hdr.appendingPathComponent("ref/gen_chelsea_300x451_s2.json"))) as! [String: Any]
        let vips = ref["libvips"] as! [String: Any]
        let info = try #require(lines(try run(["info", "--json", file])).first)
        let map = try #require(info["gainMap"] as? [String: Any])
        #expect(map["width"] as? Int == ref["gainmap_width"] as? Int && map["height"] as? Int == ref["gainmap_height"] as? Int)
        #expect(map["metadata"] as? String == "iso21496-1" && map["bytes"] as? Int == vips["gainmap-data"] as? Int)
        let ours = try #require(map["maxContentBoost"] as? [Double]), theirs = (vips["gainmap-max-content-boost"] as! [NSNumber]).map(\.doubleValue)
        #expect(zip(ours, theirs).allSatisfy { abs($0 - $1) < 1e-4 * $1 }, "\(ours) \(theirs)")
        let text = String(decoding: try run(["info", file]).stdout, as: UTF8.self)
        #expect(text.contains("  gain map: 150 x 225, 1 channel, ISO 21496-1: gain 1 to 49.261 (0 to 5.622 stops)"), "\(text)")
        let damaged = String(decoding: try run(["info", hdr.appendingPathComponent("files/bad_mpf_offset_past_eof.jpg").path]).stdout, as: UTF8.self)
        #expect(damaged.contains("  gain map: not usable: the gain map's offset in the MPF index"), "\(damaged)")
        let none = try #require(lines(try run(["info", "--json", CLI.samples + "/rocket.jpg"])).first)
        #expect(none["gainMap"] is NSNull)
    }

    /// A file that cannot be read gets one error line naming it; the others are still shown;
    /// exit 1.
    @Test func aBadFileIsNamedAndTheOthersShown() throws {
        CLI.write("not an image", to: folder + "/notes.txt")
        let r = try run(["info", "missing.png", CLI.samples + "/camera.png", "notes.txt"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("missing.png: no such file"), "\(r.stderr)")
        #expect(r.stderr.contains("notes.txt: unsupported format"), "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 2, "\(r.stderr)")
        #expect(String(decoding: r.stdout, as: UTF8.self).hasPrefix(CLI.samples + "/camera.png: PNG, 512 x 512, grey, 8-bit\n"))
    }
}

/// CRC-32 (ISO 3309, PNG's), bit by bit.
enum CRC32 {
    static func of(_ bytes: [UInt8]) -> [UInt8] {
        var c: UInt32 = 0xffff_ffff
        for b in bytes {
            c ^= UInt32(b)
            for _ in 0..<8 { c = c & 1 != 0 ? 0xedb8_8320 ^ (c >> 1) : c >> 1 }
        }
        c ^= 0xffff_ffff
        return [UInt8(c >> 24), UInt8(c >> 16 & 255), UInt8(c >> 8 & 255), UInt8(c & 255)]
    }
}
