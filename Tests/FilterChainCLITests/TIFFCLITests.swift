import Foundation
import Testing
import FilterChain

/// TIFF through the tool: input sniffed (never by extension), the first page of a multi-page
/// file with a warning, bad input refused with one line naming the file, nothing written;
/// output by extension, --format, standard output, batch, --in-place and steps, with
/// --tiff-compression and --quality, options TIFF does not take refused.
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

    /// A little-endian TIFF's IFD0 value of `tag` (SHORT or LONG, the first), read here.
    static func tag(_ tag: UInt16, in path: String) throws -> Int? {
        let b = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        guard b.count >= 8, b[0] == 0x49, b[1] == 0x49 else { return nil }
        func u(_ o: Int, _ n: Int) -> Int { (0..<n).reduce(0) { $0 | Int(b[o + $1]) << (8 * $1) } }
        let ifd = u(4, 4)
        for i in 0..<u(ifd, 2) {
            let e = ifd + 2 + 12 * i
            if u(e, 2) == Int(tag) { return u(e + 8, u(e + 2, 2) == 3 ? 2 : 4) }
        }
        return nil
    }

    @Test func tiffOutByExtensionFormatAndStandardOutput() throws {
        for name in ["out.tif", "out.TIFF"] {
            let r = try CLI.run(["apply", CLI.lookChain, CLI.samples + "/chelsea.png", name], in: folder)
            #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
            let (info, _) = try CLI.pixels(folder + "/" + name)
            #expect(info.sourceFormat == .tiff && info.format == PixelFormat(.rgb, .eight))
            #expect(try Self.tag(259, in: folder + "/" + name) == 8 && Self.tag(317, in: folder + "/" + name) == 2)
        }
        let named = try CLI.run(["apply", CLI.lookChain, CLI.samples + "/chelsea.png", "out.img", "--format", "tiff"], in: folder)
        #expect(named.status == 0, "\(named.stderr)")
        #expect(try CLI.pixels(folder + "/out.img").0.sourceFormat == .tiff)
        // Standard output is a pipe here: libtiff seeks, so the file is made in a temporary
        // file and copied out whole once complete.
        let png = try Data(contentsOf: URL(fileURLWithPath: CLI.samples + "/logo.png"))
        let piped = try CLI.run(["apply", CLI.lookChain, "-", "-", "--format", "tiff", "--tiff-compression", "lzw"], stdin: png)
        #expect(piped.status == 0, "\(piped.stderr)")
        let image = try RasterImage(decoding: [UInt8](piped.stdout))
        let logo = try CLI.pixels(CLI.samples + "/logo.png").0
        #expect(image.width == logo.width && image.format.channels.hasAlpha == logo.format.channels.hasAlpha)
        #expect(try ImageFormat.sniff(Array([UInt8](piped.stdout).prefix(8))).get() == .tiff)
    }

    /// 16 bits stay 16 (or become 8 with --depth 8); each compression is what the file says.
    @Test func depthAndCompressions() throws {
        let input = try copy("gen_rgb16_lzw_pred2.tif", to: "in.tif")
        for (compression, tag) in [("none", 1), ("lzw", 5), ("deflate", 8), ("zstd", 50000)] {
            let r = try CLI.run(["apply", CLI.lookChain, input, "o.tif", "--tiff-compression", compression], in: folder)
            #expect(r.status == 0, "\(r.stderr)")
            #expect(try CLI.pixels(folder + "/o.tif").0.format == PixelFormat(.rgb, .sixteen))
            #expect(try Self.tag(259, in: folder + "/o.tif") == tag)
        }
        let jpeg = try CLI.run(["apply", CLI.lookChain, input, "j.tif", "--tiff-compression", "jpeg", "--depth", "8", "--quality", "85"], in: folder)
        #expect(jpeg.status == 0, "\(jpeg.stderr)")
        #expect(try CLI.pixels(folder + "/j.tif").0.format == PixelFormat(.rgb, .eight))
        #expect(try Self.tag(259, in: folder + "/j.tif") == 7 && Self.tag(262, in: folder + "/j.tif") == 6)
    }

    /// Options TIFF does not take, TIFF's options elsewhere, --quality without JPEG
    /// compression and JPEG compression of 16 bits: usage errors before any work, nothing written.
    @Test(arguments: [(["--tiff-compression", "jpeg", "--depth", "16"], "o.tif", "--tiff-compression jpeg holds 8-bit samples only"),
                      (["--tiff-compression", "jpeg"], "16-bit input", "--tiff-compression jpeg holds 8-bit samples only"),
                      (["--quality", "80"], "o.tif", "--quality is for TIFF's jpeg compression"),
                      (["--tiff-compression", "zstd"], "o.png", "--tiff-compression is not an option of PNG output; TIFF takes it"),
                      (["--tiff-compression", "lzma"], "o.tif", "--tiff-compression: lzma is out of range; allowed none, lzw, deflate, zstd, jpeg"),
                      (["--lossless"], "o.tif", "--lossless is not an option of TIFF output; WebP and JPEG XL take it"),
                      (["--compression", "6", "--tiff-compression", "lzw"], "o.tif",
                       "--compression is the level of TIFF's deflate compression (--tiff-compression deflate)"),
                      (["--compression", "6"], "o.webp", "--compression is not an option of WebP output; PNG and TIFF take it")])
    func usageErrors(options: [String], output: String, message: String) throws {
        var input = CLI.samples + "/chelsea.png"
        var target = output
        if output == "16-bit input" {
            input = try copy("gen_rgb16_lzw_pred2.tif", to: "in16.tif")
            target = "o.tif"
        }
        let r = try CLI.run(["apply", CLI.lookChain, input, target] + options, in: folder)
        #expect(r.status == 64, "\(r.stderr)")
        #expect(r.stderr.hasPrefix("filterchain: error: ") && r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        #expect(r.stderr.contains(message), "\(r.stderr)")
        #expect(!CLI.files(in: folder).contains(target), "\(CLI.files(in: folder))")
        #expect(!CLI.files(in: folder).contains { $0.hasPrefix(".") }, "\(CLI.files(in: folder))")
    }

    @Test func batchInPlaceStepsAndFormats() throws {
        try FileManager.default.createDirectory(atPath: folder + "/in", withIntermediateDirectories: true)
        _ = try copy("gen_rgba8_unassociated_lzw.tif", to: "in/a.tif")
        try FileManager.default.copyItem(atPath: CLI.samples + "/chelsea.png", toPath: folder + "/in/b.png")
        let batch = try CLI.run(["apply", CLI.lookChain, "in/a.tif", "in/b.png", "--output-dir", "o", "--format", "tiff",
                                 "--tiff-compression", "zstd", "--json", "--quiet"], in: folder)
        #expect(batch.status == 0, "\(batch.stderr)")
        // a.tif names the format already and keeps its extension; b.png takes --format's name.
        #expect(CLI.files(in: folder + "/o") == ["a.tif", "b.tiff"])
        let line = try JSONSerialization.jsonObject(with: Data(batch.out.split(separator: "\n")[0].utf8)) as! [String: Any]
        #expect(line["format"] as? String == "tiff")
        #expect((line["options"] as? [String: Any])?["tiffCompression"] as? String == "zstd")
        #expect(try CLI.pixels(folder + "/o/a.tif").0.format == PixelFormat(.rgba, .eight))
        // Outputs named after a .tif input keep the extension.
        let named = try CLI.run(["apply", CLI.lookChain, "in/a.tif", "--output-dir", "n"], in: folder)
        #expect(named.status == 0 && CLI.files(in: folder + "/n") == ["a.tif"], "\(named.stderr)")

        let before = try Data(contentsOf: URL(fileURLWithPath: folder + "/in/a.tif"))
        let inPlace = try CLI.run(["apply", CLI.lookChain, "--in-place", "in/a.tif"], in: folder)
        #expect(inPlace.status == 0, "\(inPlace.stderr)")
        let after = try Data(contentsOf: URL(fileURLWithPath: folder + "/in/a.tif"))
        #expect(after != before)
        #expect(try CLI.pixels(folder + "/in/a.tif").0.sourceFormat == .tiff)

        let steps = try CLI.run(["steps", CLI.lookChain, "in/b.png", "--output-dir", "s", "--format", "tiff",
                                 "--sheet", "s/sheet.tif"], in: folder)
        #expect(steps.status == 0, "\(steps.stderr)")
        let written = CLI.files(in: folder + "/s")
        #expect(written.count == 5 && written.allSatisfy { $0.hasSuffix(".tif") }, "\(written)")

        let formats = try CLI.run(["formats", "tif"])
        #expect(formats.status == 0 && formats.out.hasPrefix("tiff: TIFF (.tif, .tiff), read and written"), "\(formats.out)")
        #expect(formats.out.contains("--tiff-compression none, lzw, deflate, zstd, jpeg") && formats.out.contains("default: deflate"))
    }
}
