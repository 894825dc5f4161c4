import Foundation
import Testing
import FilterChain

/// WebP through the tool: sniffed (never by extension), batch, --format, stdin/stdout,
/// --in-place, previews and steps; bad input refused with one line naming the file.
@Suite struct WebPCLITests {
    let folder = CLI.temporaryFolder()
    static let conformance = CLI.packageRoot.deletingLastPathComponent().appendingPathComponent("shared/conformance/webp/files").path

    func copy(_ name: String, to target: String) throws -> String {
        let path = folder + "/" + target
        try FileManager.default.copyItem(atPath: Self.conformance + "/" + name, toPath: path)
        return path
    }

    @Test func webpInAndOutWithAPreviewAndOptions() throws {
        _ = try copy("lossy_q75.webp", to: "in.png")   // a misleading name: sniffed from its bytes
        let r = try CLI.run(["apply", CLI.lookChain, "in.png", "out.webp", "--quality", "60", "--effort", "6",
                             "--preview", "1", "--preview-output", "p.webp"], in: folder)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.isEmpty, "\(r.stderr)")
        for name in ["out.webp", "p.webp"] {
            let (info, _) = try CLI.pixels(folder + "/" + name)
            #expect(info.sourceFormat == .webp && info.format == PixelFormat(.rgb, .eight))
        }
        let lossless = try CLI.run(["apply", CLI.lookChain, CLI.samples + "/logo.png", "l.webp", "--lossless"], in: folder)
        #expect(lossless.status == 0, "\(lossless.stderr)")
        let logoAlpha = try CLI.pixels(CLI.samples + "/logo.png").0.format.channels.hasAlpha
        #expect(try CLI.pixels(folder + "/l.webp").0.format.channels.hasAlpha == logoAlpha)
    }

    /// WebP's options are usage errors for other formats (and JPEG's for WebP), naming the
    /// formats that take them.
    @Test(arguments: [(["--lossless"], "o.png", "--lossless is not an option of PNG output; WebP and JPEG XL take it"),
                      (["--lossless"], "o.jpg", "--lossless is not an option of JPEG output; WebP and JPEG XL take it"),
                      (["--progressive"], "o.webp", "--progressive is not an option of WebP output; JPEG takes it"),
                      (["--alpha-quality", "101"], "o.webp", "--alpha-quality: 101 is out of range; allowed 0...100"),
                      (["--effort", "7"], "o.webp", "--effort 7: WebP output takes 0...6 (7 is for AVIF, HEIF and JPEG XL)"),
                      (["--lossless", "--quality", "90"], "o.webp", "--quality is for lossy WebP"),
                      (["--depth", "16"], "o.webp", "WebP holds 8 bits only")])
    func optionsOfOtherFormatsAreUsageErrors(options: [String], output: String, message: String) throws {
        let r = try CLI.run(["apply", CLI.lookChain, CLI.samples + "/chelsea.png", output] + options, in: folder)
        #expect(r.status == 64)
        #expect(r.stderr.contains(message), "\(r.stderr)")
        #expect(CLI.files(in: folder).isEmpty)
    }

    @Test func standardInputAndOutput() throws {
        let input = try Data(contentsOf: URL(fileURLWithPath: Self.conformance + "/lossless_alpha.webp"))
        let r = try CLI.run(["apply", CLI.lookChain, "-", "-", "--format", "webp", "--lossless"], stdin: input)
        #expect(r.status == 0, "\(r.stderr)")
        let image = try RasterImage(decoding: [UInt8](r.stdout))
        #expect(image.format == PixelFormat(.rgba, .eight))
        #expect(try ImageFormat.sniff(Array([UInt8](r.stdout).prefix(16))).get() == .webp)
    }

    @Test func batchInPlaceAndSteps() throws {
        try FileManager.default.createDirectory(atPath: folder + "/in", withIntermediateDirectories: true)
        _ = try copy("pillow_hopper.webp", to: "in/a.webp")
        try FileManager.default.copyItem(atPath: CLI.samples + "/chelsea.png", toPath: folder + "/in/b.png")
        let batch = try CLI.run(["apply", CLI.lookChain, "in/a.webp", "in/b.png", "--output-dir", "o", "--format", "webp",
                                 "--json", "--quiet"], in: folder)
        #expect(batch.status == 0, "\(batch.stderr)")
        #expect(CLI.files(in: folder + "/o") == ["a.webp", "b.webp"])
        let line = try JSONSerialization.jsonObject(with: Data(batch.out.split(separator: "\n")[0].utf8)) as! [String: Any]
        #expect(line["format"] as? String == "webp" && line["quality"] as? Int == 80)
        #expect((line["options"] as? [String: Any])?["effort"] as? Int == 4)
        // Outputs named after a .webp input keep the extension.
        let named = try CLI.run(["apply", CLI.lookChain, "in/a.webp", "--output-dir", "n"], in: folder)
        #expect(named.status == 0 && CLI.files(in: folder + "/n") == ["a.webp"], "\(named.stderr)")

        let before = try Data(contentsOf: URL(fileURLWithPath: folder + "/in/a.webp"))
        let inPlace = try CLI.run(["apply", CLI.lookChain, "--in-place", "in/a.webp", "--quality", "50"], in: folder)
        #expect(inPlace.status == 0, "\(inPlace.stderr)")
        let after = try Data(contentsOf: URL(fileURLWithPath: folder + "/in/a.webp"))
        let afterFormat = try CLI.pixels(folder + "/in/a.webp").0.sourceFormat
        #expect(after != before && afterFormat == .webp)
        // In place, each file keeps its format: an option one of them does not take is refused.
        let refused = try CLI.run(["apply", CLI.lookChain, "--in-place", "in/a.webp", "in/b.png", "--effort", "2"], in: folder)
        #expect(refused.status == 64 && refused.stderr.contains("in/b.png: --effort is not an option of PNG output"), "\(refused.stderr)")

        let steps = try CLI.run(["steps", CLI.lookChain, "in/a.webp", "--output-dir", "s", "--format", "webp",
                                 "--sheet", "s/sheet.webp"], in: folder)
        #expect(steps.status == 0, "\(steps.stderr)")
        let written = CLI.files(in: folder + "/s")
        #expect(written.count == 5 && written.allSatisfy { $0.hasSuffix(".webp") }, "\(written)")
    }

    /// Truncated, empty and damaged files, and sizes over the limits: exit 1, one line
    /// naming the file, nothing written.
    @Test(arguments: ["bad_truncated_lossy_half.webp", "bad_empty.webp", "bad_riff_size_huge.webp",
                      "bad_vp8_chunk_size.webp", "bad_anim_truncated.webp", "hugeCanvas"])
    func badInputIsOneLineAndNothingWritten(name: String) throws {
        let input: String
        if name == "hugeCanvas" {
            // A lossless file whose VP8X canvas says 16384 x 16384 (and no image of that size).
            var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: Self.conformance + "/meta_lossless_alpha_icc.webp")))
            #expect(Array(bytes[12..<16]) == Array("VP8X".utf8))
            for offset in [24, 27] { bytes[offset] = 0xFF; bytes[offset + 1] = 0x3F; bytes[offset + 2] = 0 }
            input = folder + "/huge.webp"
            try Data(bytes).write(to: URL(fileURLWithPath: input))
        } else {
            input = try copy(name, to: name)
        }
        let r = try CLI.run(["apply", CLI.lookChain, input, "out.png"], in: folder)
        #expect(r.status == 1)
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 1 && lines[0].hasPrefix("filterchain: error: \(input): "), "\(r.stderr)")
        #expect(!CLI.files(in: folder).contains("out.png"))
    }

    @Test func overMaxPixelsAndOverTheWebPSideAreRefused() throws {
        let input = try copy("pillow_flower.webp", to: "f.webp")
        let r = try CLI.run(["apply", CLI.lookChain, input, "out.png", "--max-pixels", "1000"], in: folder)
        #expect(r.status == 1 && r.stderr.contains("over the limit of 1000"), "\(r.stderr)")
        CLI.write(#"{"version": 1, "filters": [{"id": "0F6C1B9E-3C1A-4D2B-8E57-6A1F0B2C3D41", "type": "resize", "parameters": {"width": 16384, "height": 2, "fit": "fill"}}]}"#,
                  to: folder + "/wide.json")
        let wide = try CLI.run(["apply", "wide.json", input, "wide.webp"], in: folder)
        #expect(wide.status == 1 && wide.stderr.contains("16383"), "\(wide.stderr)")
        #expect(!CLI.files(in: folder).contains("wide.webp"))
    }

    @Test func anAnimationGivesItsFirstFrameWithAWarning() throws {
        let input = try copy("anim_lossy_3f.webp", to: "a.webp")
        let r = try CLI.run(["apply", CLI.lookChain, input, "out.png"], in: folder)
        #expect(r.status == 0)
        #expect(r.stderr.contains("a.webp: an animation of 3 frames: only the first frame was read"), "\(r.stderr)")
    }
}
