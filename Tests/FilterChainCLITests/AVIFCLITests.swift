import Foundation
import Testing
import FilterChain

/// AVIF through the tool: sniffed (never by extension), batch, --format, stdin/stdout,
/// --in-place, previews and steps; options checked per format; bad input refused with one
/// line naming the file, nothing written.
@Suite struct AVIFCLITests {
    let folder = CLI.temporaryFolder()
    static let conformance = CLI.packageRoot.deletingLastPathComponent().appendingPathComponent("shared/conformance/avif/files").path

    func copy(_ name: String, to target: String) throws -> String {
        let path = folder + "/" + target
        try FileManager.default.copyItem(atPath: Self.conformance + "/" + name, toPath: path)
        return path
    }

    @Test func avifInAndOutWithAPreviewAndOptions() throws {
        _ = try copy("pillow_rot1mir1.avif", to: "in.png")   // a misleading name: sniffed from its bytes
        let r = try CLI.run(["apply", CLI.lookChain, "in.png", "out.avif", "--quality", "60", "--effort", "6", "--chroma", "4:2:0",
                             "--preview", "1", "--preview-output", "p.avif"], in: folder)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.isEmpty, "\(r.stderr)")
        for name in ["out.avif", "p.avif"] {
            let (info, _) = try CLI.pixels(folder + "/" + name)
            // irot 270 with imir: 427 x 640 stored, 640 x 427 shown.
            #expect(info.sourceFormat == .avif && info.format == PixelFormat(.rgb, .eight) && info.width == 640 && info.height == 427)
        }
        // --format decides over the extension; a 16-bit source (--depth 16) gives 10-bit AVIF.
        let deep = try CLI.run(["apply", CLI.lookChain, CLI.samples + "/logo.png", "deep.img", "--format", "avif", "--depth", "16"], in: folder)
        #expect(deep.status == 0, "\(deep.stderr)")
        let (info, _) = try CLI.pixels(folder + "/deep.img")
        #expect(info.sourceFormat == .avif && info.format == PixelFormat(.rgba, .sixteen))
    }

    /// Options checked against the output's format: out of range for every format, a value
    /// another format takes, an option of another format, a combination AVIF refuses.
    @Test(arguments: [(["--effort", "10"], "o.avif", "--effort: 10 is out of range; allowed 0...2 (JPEG), 0...6 (WebP), 0...9 (AVIF)"),
                      (["--chroma", "4:2:2"], "o.avif", "--chroma 4:2:2: AVIF output takes 4:2:0, 4:4:4 (4:2:2 is for JPEG and TIFF)"),
                      (["--effort", "8"], "o.webp", "--effort 8: WebP output takes 0...6 (8 is for AVIF, HEIF and JPEG XL)"),
                      (["--quality", "0"], "o.jpg", "--quality 0: JPEG output takes 1...100 (0 is for AVIF and HEIF)"),
                      (["--lossless"], "o.avif", "--lossless is not an option of AVIF output; WebP and JPEG XL take it"),
                      (["--progressive"], "o.avif", "--progressive is not an option of AVIF output; JPEG takes it"),
                      (["--compression", "5"], "o.avif", "--compression is not an option of AVIF output; PNG and TIFF take it"),
                      (["--effort", "3"], "o.png", "--effort is not an option of PNG output; JPEG, WebP, AVIF, HEIF and JPEG XL take it"),
                      (["--quality", "100", "--chroma", "4:2:0"], "o.avif", "--quality 100 is lossless AVIF, which needs --chroma 4:4:4")])
    func optionsAreCheckedForAVIF(options: [String], output: String, message: String) throws {
        let r = try CLI.run(["apply", CLI.lookChain, CLI.samples + "/chelsea.png", output] + options, in: folder)
        #expect(r.status == 64)
        #expect(r.stderr.contains(message), "\(r.stderr)")
        #expect(CLI.files(in: folder).isEmpty)
    }

    /// A preview in a format of its own takes what fits it: JPEG's 4:2:2 is not AVIF's.
    @Test func aPreviewInAVIFTakesWhatFitsIt() throws {
        let r = try CLI.run(["apply", CLI.lookChain, CLI.samples + "/chelsea.png", "out.jpg", "--chroma", "4:2:2", "--quality", "100",
                             "--preview", "1", "--preview-output", "p.avif"], in: folder)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(CLI.files(in: folder) == ["out.jpg", "p.avif"])
    }

    @Test func standardInputAndOutput() throws {
        let input = try Data(contentsOf: URL(fileURLWithPath: Self.conformance + "/gen_avifenc_10bit_444_alpha.avif"))
        let r = try CLI.run(["apply", CLI.lookChain, "-", "-", "--format", "avif", "--quality", "90"], stdin: input)
        #expect(r.status == 0, "\(r.stderr)")
        let image = try RasterImage(decoding: [UInt8](r.stdout))
        #expect(image.format == PixelFormat(.rgba, .sixteen))
        #expect(try ImageFormat.sniff(Array([UInt8](r.stdout).prefix(32))).get() == .avif)
    }

    @Test func batchInPlaceAndSteps() throws {
        try FileManager.default.createDirectory(atPath: folder + "/in", withIntermediateDirectories: true)
        _ = try copy("pillow_transparency.avif", to: "in/a.avif")
        try FileManager.default.copyItem(atPath: CLI.samples + "/chelsea.png", toPath: folder + "/in/b.png")
        let batch = try CLI.run(["apply", CLI.lookChain, "in/a.avif", "in/b.png", "--output-dir", "o", "--format", "avif",
                                 "--json", "--quiet"], in: folder)
        #expect(batch.status == 0, "\(batch.stderr)")
        #expect(CLI.files(in: folder + "/o") == ["a.avif", "b.avif"])
        let line = try JSONSerialization.jsonObject(with: Data(batch.out.split(separator: "\n")[0].utf8)) as! [String: Any]
        #expect(line["format"] as? String == "avif" && line["quality"] as? Int == 50)
        let options = line["options"] as? [String: Any]
        #expect(options?["effort"] as? Int == 4 && options?["chroma"] as? String == "4:4:4" && options?["alphaQuality"] as? Int == 100)
        // Outputs named after a .avif input keep the extension.
        let named = try CLI.run(["apply", CLI.lookChain, "in/a.avif", "--output-dir", "n"], in: folder)
        #expect(named.status == 0 && CLI.files(in: folder + "/n") == ["a.avif"], "\(named.stderr)")

        let before = try Data(contentsOf: URL(fileURLWithPath: folder + "/in/a.avif"))
        let inPlace = try CLI.run(["apply", CLI.lookChain, "--in-place", "in/a.avif", "--quality", "40"], in: folder)
        #expect(inPlace.status == 0, "\(inPlace.stderr)")
        let after = try Data(contentsOf: URL(fileURLWithPath: folder + "/in/a.avif"))
        let afterFormat = try CLI.pixels(folder + "/in/a.avif").0.sourceFormat
        #expect(after != before && afterFormat == .avif)

        let steps = try CLI.run(["steps", CLI.lookChain, "in/a.avif", "--output-dir", "s", "--format", "avif",
                                 "--sheet", "s/sheet.avif"], in: folder)
        #expect(steps.status == 0, "\(steps.stderr)")
        let written = CLI.files(in: folder + "/s")
        #expect(written.count == 5 && written.allSatisfy { $0.hasSuffix(".avif") }, "\(written)")
    }

    /// Truncated, empty and damaged files: exit 1, one line naming the file, nothing written
    /// (dav1d's own complaint about a damaged AV1 stream is not printed).
    @Test(arguments: ["bad_gen_truncated_half.avif", "bad_gen_truncated_last_100.avif", "bad_gen_iloc_bad_version.avif",
                      "bad_gen_ispe_zero.avif", "empty", "damagedAV1"])
    func badInputIsOneLineAndNothingWritten(name: String) throws {
        let input: String
        switch name {
        case "empty":
            input = folder + "/empty.avif"
            _ = FileManager.default.createFile(atPath: input, contents: Data())
        case "damagedAV1":
            // The AV1 data's first OBU headers overwritten.
            var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.conformance + "/pillow_hopper.avif")))
            let mdat = try #require((0..<bytes.count - 4).first { bytes[$0..<$0 + 4].elementsEqual(Array("mdat".utf8)) })
            for k in 4..<40 { bytes[mdat + k] = 0xFF }
            input = folder + "/damaged.avif"
            try Data(bytes).write(to: URL(fileURLWithPath: input))
        default:
            input = try copy(name, to: name)
        }
        let r = try CLI.run(["apply", CLI.lookChain, input, "out.png"], in: folder)
        #expect(r.status == 1)
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].hasPrefix("filterchain: error: \(input): "), "\(r.stderr)")
        #expect(!CLI.files(in: folder).contains("out.png"))
    }

    @Test func overMaxPixelsIsRefused() throws {
        let input = try copy("pillow_hopper.avif", to: "h.avif")
        let r = try CLI.run(["apply", CLI.lookChain, input, "out.png", "--max-pixels", "1000"], in: folder)
        #expect(r.status == 1 && r.stderr.contains("over the limit of 1000"), "\(r.stderr)")
        #expect(!CLI.files(in: folder).contains("out.png"))
    }

    @Test func aSequenceGivesItsFirstFrameWithAWarning() throws {
        let input = folder + "/s.avif"
        try FileManager.default.copyItem(atPath: CLI.packageRoot.appendingPathComponent("Tests/Fixtures/avif/sequence-3.avif").path, toPath: input)
        let r = try CLI.run(["apply", CLI.lookChain, input, "out.png"], in: folder)
        #expect(r.status == 0)
        #expect(r.stderr.contains("s.avif: a sequence of 3 frames: only the first frame was read"), "\(r.stderr)")
    }
}
