import Foundation
import Testing
import FilterChain

/// TIFF input through the tool: sniffed (never by extension), the first page of a multi-page
/// file with a warning; bad input refused with one line naming the file, nothing written.
@Suite struct TIFFCLITests {
    let folder = CLI.temporaryFolder()
    static let conformance = CLI.packageRoot.deletingLastPathComponent().appendingPathComponent("shared/conformance/tiff/files").path

    func copy(_ name: String, to target: String) throws -> String {
        let path = folder + "/" + target
        try FileManager.default.copyItem(atPath: Self.conformance + "/" + name, toPath: path)
        return path
    }

    /// A little-endian TIFF of one 8-bit grey strip: `tags` overrides or adds IFD entries
    /// (tag: SHORT or LONG value).
    static func tiff(width: UInt32, height: UInt32, compression: UInt16 = 1, pixels: [UInt8]? = nil) -> [UInt8] {
        let data = pixels ?? [UInt8](repeating: 128, count: min(Int(width) * Int(height), 64))
        var out: [UInt8] = [0x49, 0x49, 0x2A, 0x00]
        func u16(_ v: UInt16) { out += [UInt8(v & 0xFF), UInt8(v >> 8)] }
        func u32(_ v: UInt32) { for i in 0..<4 { out.append(UInt8((v >> (8 * UInt32(i))) & 0xFF)) } }
        let entries: [(UInt16, UInt16, UInt32)] = [
            (256, 4, width), (257, 4, height), (258, 3, 8), (259, 3, UInt32(compression)), (262, 3, 1),
            (273, 4, 8), (277, 3, 1), (278, 4, height), (279, 4, UInt32(data.count)),
        ]
        u32(UInt32(8 + data.count))
        out += data
        u16(UInt16(entries.count))
        for (tag, type, value) in entries {
            u16(tag); u16(type); u32(1)
            if type == 3 { u16(UInt16(value)); u16(0) } else { u32(value) }
        }
        u32(0)
        return out
    }

    @Test func aTIFFIsReadWhateverItsName() throws {
        _ = try copy("gen_rgb16_lzw_pred2.tif", to: "in.png")
        let r = try CLI.run(["apply", CLI.lookChain, "in.png", "out.png"], in: folder)
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
        let (info, _) = try CLI.pixels(folder + "/out.png")
        #expect(info.format == PixelFormat(.rgb, .sixteen))
        let made = folder + "/made.tif"
        try Data(Self.tiff(width: 4, height: 2, pixels: [0, 50, 100, 150, 200, 250, 255, 1])).write(to: URL(fileURLWithPath: made))
        let (grey, samples) = try CLI.pixels(made)
        #expect(grey.sourceFormat == .tiff && grey.format == PixelFormat(.grey, .eight))
        #expect(samples == [0, 50, 100, 150, 200, 250, 255, 1])
    }

    @Test func theFirstPageWithAWarning() throws {
        let input = try copy("gen_multipage_3.tif", to: "pages.tif")
        let r = try CLI.run(["apply", CLI.lookChain, input, "out.png"], in: folder)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("\(input): a file of 3 pages: only the first page was read"), "\(r.stderr)")
    }

    /// Truncated, empty, a huge declared size, a compression not read, damaged files: exit 1,
    /// one line naming the file, nothing written.
    @Test(arguments: ["bad_gen_truncated_half.tif", "bad_gen_header_only.tif", "pillow_seek_too_large.tif",
                      "pillow_oom-225817ca0f8c663be7ab4b9e717b02c661e66834.tif", "empty", "huge", "lzma", "thunderscan"])
    func badInputIsOneLineAndNothingWritten(name: String) throws {
        let input = folder + "/in.tif"
        switch name {
        case "empty": CLI.write("", to: input)
        case "huge": try Data(Self.tiff(width: 200_000, height: 200_000)).write(to: URL(fileURLWithPath: input))
        case "lzma": try Data(Self.tiff(width: 8, height: 8, compression: 34925)).write(to: URL(fileURLWithPath: input))
        case "thunderscan": try Data(Self.tiff(width: 8, height: 8, compression: 32809)).write(to: URL(fileURLWithPath: input))
        default: _ = try copy(name, to: "in.tif")
        }
        let r = try CLI.run(["apply", CLI.lookChain, input, "out.png"], in: folder)
        #expect(r.status == 1)
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].hasPrefix("filterchain: error: \(input): "), "\(r.stderr)")
        if name == "lzma" || name == "thunderscan" {
            #expect(r.stderr.contains("compression \(name == "lzma" ? "LZMA" : "ThunderScan")"), "\(r.stderr)")
        }
        if name == "huge" { #expect(r.stderr.contains("over the limit"), "\(r.stderr)") }
        #expect(!CLI.files(in: folder).contains("out.png"))
    }
}
