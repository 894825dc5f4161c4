import Foundation
import Testing
import FilterChain

/// HEIC input through the tool: sniffed from the ftyp box (never by extension), from a file
/// or standard input, in a batch; bad input refused with one line naming the file, nothing
/// written.
@Suite struct HEIFCLITests {
    let folder = CLI.temporaryFolder()
    static let conformance = CLI.packageRoot.deletingLastPathComponent().appendingPathComponent("shared/conformance/heif/files").path

    func copy(_ name: String, to target: String) throws -> String {
        let path = folder + "/" + target
        try FileManager.default.copyItem(atPath: Self.conformance + "/" + name, toPath: path)
        return path
    }

    static func bytes(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: conformance + "/" + name)))
    }

    /// `file` with the first box of type `type` renamed to `free` (a box every reader skips).
    static func withoutBox(_ type: String, in file: [UInt8]) -> [UInt8] {
        var bytes = file
        let needle = Array(type.utf8)
        if let at = (0...(bytes.count - 4)).first(where: { Array(bytes[$0..<$0 + 4]) == needle }) {
            bytes.replaceSubrange(at..<at + 4, with: Array("free".utf8))
        }
        return bytes
    }

    @Test func aHEICIsReadWhateverItsName() throws {
        _ = try copy("gen_10bit.heic", to: "in.png")
        let r = try CLI.run(["apply", CLI.lookChain, "in.png", "out.png"], in: folder)
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
        let (info, _) = try CLI.pixels(folder + "/out.png")
        #expect(info.format == PixelFormat(.rgb, .sixteen))
        let (source, _) = try CLI.pixels(folder + "/in.png")
        #expect(source.sourceFormat == .heif && source.width == 150 && source.height == 100)
    }

    /// The iPhone-like file (a grid, irot 270, EXIF Orientation 6) comes out upright once, from
    /// standard input too, and a batch names its output after it.
    @Test func standardInputAndBatch() throws {
        let input = Data(try Self.bytes("gen_iphone_like_grid512_p3_irot.heic"))
        let r = try CLI.run(["apply", CLI.samples + "/chains/resize.json", "-", "-", "--format", "png"], stdin: input)
        #expect(r.status == 0, "\(r.stderr)")
        let image = try RasterImage(decoding: [UInt8](r.stdout))
        #expect(image.width == 240 && image.height == 275, "\(image.width) x \(image.height)")
        _ = try copy("gen_iphone_like_grid512_p3_irot.heic", to: "phone.heic")
        _ = try copy("pillowheif_RGBA_12__29x100.heif", to: "deep.heif")
        let batch = try CLI.run(["apply", CLI.lookChain, "phone.heic", "deep.heif", "--output-dir", "o", "--format", "jpeg",
                                 "--json", "--quiet"], in: folder)
        #expect(batch.status == 0, "\(batch.stderr)")
        #expect(CLI.files(in: folder + "/o") == ["deep.jpeg", "phone.jpeg"])
        // Without --format a HEIF input's output is a HEIC of its name.
        let named = try CLI.run(["apply", CLI.lookChain, "phone.heic", "--output-dir", "n", "--quiet"], in: folder)
        #expect(named.status == 0 && CLI.files(in: folder + "/n") == ["phone.heic"], "\(named.stderr)")
    }

    /// Truncated, empty, no size, no primary image, an unknown brand, over the pixel limit,
    /// over libheif's own limit: exit 1, one line naming the file, nothing written.
    @Test(arguments: ["bad_gen_truncated_half.heic", "bad_gen_truncated_last_100.heic", "bad_pillowheif_empty.heic",
                      "bad_gen_ispe_zero.heic", "bad_pillowheif_corrupted.heic", "noPrimary", "overLimit", "overLibheif"])
    func badInputIsOneLineAndNothingWritten(name: String) throws {
        let input = folder + "/in.heic"
        var options: [String] = []
        switch name {
        case "noPrimary":
            try Data(Self.withoutBox("pitm", in: try Self.bytes("gen_8bit.heic"))).write(to: URL(fileURLWithPath: input))
        case "overLimit", "overLibheif":
            // The ispe box says 20000 x 20000 (or 40000 x 40000, past libheif's 32768).
            var bytes = try Self.bytes("gen_8bit.heic")
            let at = (0...(bytes.count - 4)).first { Array(bytes[$0..<$0 + 4]) == Array("ispe".utf8) }!
            let side: UInt32 = name == "overLimit" ? 20000 : 40000
            let be = [UInt8(side >> 24), UInt8(side >> 16 & 0xFF), UInt8(side >> 8 & 0xFF), UInt8(side & 0xFF)]
            bytes.replaceSubrange(at + 8..<at + 16, with: be + be)
            try Data(bytes).write(to: URL(fileURLWithPath: input))
            if name == "overLibheif" { options = ["--max-pixels", "0"] }
        default:
            _ = try copy(name, to: "in.heic")
        }
        let r = try CLI.run(["apply", CLI.lookChain, input, "out.png"] + options, in: folder)
        #expect(r.status == 1)
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].hasPrefix("filterchain: error: \(input): "), "\(r.stderr)")
        switch name {
        case "noPrimary": #expect(r.stderr.contains("damaged HEIF data: Invalid input: No 'pitm' box"), "\(r.stderr)")
        case "overLimit": #expect(r.stderr.contains("20000 x 20000 = 400000000 pixels, over the limit"), "\(r.stderr)")
        case "overLibheif":
            // libheif's own words follow (1.15: "Image size 40000x40000 exceeds the maximum image size 32768x32768").
            #expect(r.stderr.contains("the image is over libheif's security limit: ") && r.stderr.contains("40000"), "\(r.stderr)")
        case "bad_pillowheif_empty.heic": #expect(r.stderr.contains("the file is empty"), "\(r.stderr)")
        case "bad_gen_ispe_zero.heic": #expect(r.stderr.contains("the primary image has no size"), "\(r.stderr)")
        default: #expect(r.stderr.contains("damaged HEIF data: "), "\(r.stderr)")
        }
        #expect(!CLI.files(in: folder).contains("out.png"))
    }

    /// A multi-image file gives its primary image with a warning naming the count.
    @Test func thePrimaryImageWithAWarning() throws {
        let input = try copy("pillowheif_zPug_3.heic", to: "pug.heic")
        let r = try CLI.run(["apply", CLI.lookChain, input, "out.png"], in: folder)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("\(input): a file of 3 images: only the primary image was read"), "\(r.stderr)")
    }
}
