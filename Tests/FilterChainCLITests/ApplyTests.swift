import Foundation
import Testing
import FilterChain

@Suite struct ApplyTests {
    let folder = CLI.temporaryFolder()

    @Test func appliesTheSampleChainWithAPreview() throws {
        let r = try CLI.run(["apply", CLI.lookChain, CLI.samples + "/chelsea.png", "out.png",
                             "--preview", "2", "--preview-output", "step2.jpg"], in: folder)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.isEmpty)
        let (info, _) = try CLI.pixels(folder + "/out.png")
        #expect(info.width == 451 && info.height == 300 && info.sourceFormat == .png)
        let (preview, _) = try CLI.pixels(folder + "/step2.jpg")
        #expect(preview.sourceFormat == .jpeg && preview.width == 451)
        // Only the two outputs: no temporary files left behind.
        #expect(CLI.files(in: folder) == ["out.png", "step2.jpg"])
    }

    /// The preview equals the final image of the chain cut after STEP, however STEP is named.
    @Test(arguments: [("0", 0), ("1", 1), ("curve", 2), ("7a2d", 2), ("7A2D4E6F-8B9C-4A1D-9E2F-3B4C5D6E7F80", 2),
                      ("soften", 3), ("3", 3)])
    func previewEqualsTheCutChain(step: String, position: Int) throws {
        var chain = try Chain.load(CLI.lookChain)
        chain.steps[1].enabled = position != 2 || step != "curve"   // a disabled step still counts
        try chain.save(to: folder + "/chain.json")
        var cut = chain
        cut.steps = Array(chain.steps.prefix(position))
        try cut.save(to: folder + "/cut.json")
        let a = try CLI.run(["apply", "chain.json", CLI.samples + "/rocket.jpg", "final.png",
                             "--preview", step, "--preview-output", "preview.png"], in: folder)
        #expect(a.status == 0, "\(a.stderr)")
        let b = try CLI.run(["apply", "cut.json", CLI.samples + "/rocket.jpg", "cut.png"], in: folder)
        #expect(b.status == 0, "\(b.stderr)")
        #expect(try CLI.pixels(folder + "/preview.png").1 == CLI.pixels(folder + "/cut.png").1)
    }

    @Test func unknownOrAmbiguousStepsListTheSteps() throws {
        var chain = try Chain.load(CLI.lookChain)
        chain.steps[2].id = "0F6C1B9E-3C1A-4D2B-8E57-6A1F0B2C3D42"   // shares a prefix with step 1
        try chain.save(to: folder + "/chain.json")
        for (step, words) in [("nope", "no step 'nope'"), ("0f6c", "ambiguous"), ("9", "no step 9"), ("0f6", "at least 4")] {
            let r = try CLI.run(["apply", "chain.json", CLI.samples + "/chelsea.png", "o.png", "--preview", step,
                                 "--preview-output", "p.png"], in: folder)
            #expect(r.status == 64)
            #expect(r.stderr.hasPrefix("filterchain: error: chain.json: ") && r.stderr.contains(words), "\(r.stderr)")
            #expect(r.stderr.contains("1 0F6C1B9E 'colour' (colorControls)") && r.stderr.split(separator: "\n").count == 1)
        }
        #expect(!CLI.files(in: folder).contains("o.png"))
    }

    @Test func failuresWriteNothingAndKeepExistingFiles() throws {
        CLI.write("precious", to: folder + "/out.png")
        let truncated = try Data(contentsOf: URL(fileURLWithPath: CLI.samples + "/rocket.jpg")).prefix(30000)
        try truncated.write(to: URL(fileURLWithPath: folder + "/broken.jpg"))
        let r = try CLI.run(["apply", CLI.lookChain, "broken.jpg", "out.png", "--preview", "1", "--preview-output", "p.png"], in: folder)
        #expect(r.status == 1)
        #expect(r.stderr.hasPrefix("filterchain: error: broken.jpg: ") && r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        #expect(try String(contentsOfFile: folder + "/out.png", encoding: .utf8) == "precious")
        #expect(CLI.files(in: folder) == ["broken.jpg", "out.png"])

        let missing = try CLI.run(["apply", CLI.lookChain, "missing.png", "x.png"], in: folder)
        #expect(missing.status == 1 && missing.stderr == "filterchain: error: missing.png: no such file\n")
        CLI.write("GIF89a....", to: folder + "/fake.png")
        let gif = try CLI.run(["apply", CLI.lookChain, "fake.png", "x.png"], in: folder)
        #expect(gif.status == 1 && gif.stderr.contains("fake.png") && gif.stderr.contains("GIF"))
        let ext = try CLI.run(["apply", CLI.lookChain, CLI.samples + "/chelsea.png", "x.bmp"], in: folder)
        #expect(ext.status == 64 && ext.stderr.contains("x.bmp"))
        // The library names EncodeOptions.format and DecodeOptions.maxPixels; the command line
        // says its flags instead.
        #expect(ext.stderr == "filterchain: error: x.bmp: unsupported output format '.bmp' (end the name with .png, .jpg, .jpeg, .webp, .tif, .tiff, .avif, .heic, .heif, .gif, .jxl, or use --format)\n", "\(ext.stderr)")
        let big = try CLI.run(["apply", CLI.lookChain, CLI.samples + "/chelsea.png", "big.png", "--max-pixels", "1000"], in: folder)
        #expect(big.status == 1 && big.stderr == "filterchain: error: \(CLI.samples)/chelsea.png: image is 451 x 300 = 135300 pixels, over the limit of 1000 (raise it with --max-pixels, 0 for none)\n", "\(big.stderr)")
        let noDir = try CLI.run(["apply", CLI.lookChain, CLI.samples + "/chelsea.png", "nofolder/x.png"], in: folder)
        #expect(noDir.status == 1 && noDir.stderr.contains("nofolder/x.png"))
        #expect(!CLI.files(in: folder).contains("x.png"))
    }

    /// A write that fails part-way (here over a file-size limit, EFBIG, which takes the same
    /// path as a full disk): one line naming the file and the reason, exit 1, no temporary
    /// file left, the existing output untouched, and no preview written either.
    @Test(arguments: ["out.png", "out.jpg", "out.tif"])
    func aFailedWriteLeavesNothingBehind(output: String) throws {
        CLI.write("precious", to: folder + "/" + output)
        // Through sh, whose `ulimit -f` (512-byte blocks) sets RLIMIT_FSIZE for the binary.
        let r = try CLI.run(["-c", "ulimit -f 16 && exec \"$0\" \"$@\"", CLI.binary,
                             "apply", CLI.lookChain, CLI.samples + "/chelsea.png", output,
                             "--preview", "1", "--preview-output", "p.png"], in: folder, executable: "/bin/sh")
        #expect(r.status == 1)
        #expect(r.stderr.split(separator: "\n").count == 1 && r.stderr.hasPrefix("filterchain: error: "), "\(r.stderr)")
        #expect(r.stderr.contains(output) || r.stderr.contains("p.png"), "\(r.stderr)")
        #expect(r.stderr.contains("File too large"), "\(r.stderr)")
        #expect(try String(contentsOfFile: folder + "/" + output, encoding: .utf8) == "precious")
        #expect(CLI.files(in: folder) == [output], "\(CLI.files(in: folder))")
    }

    @Test func usageErrorsExit64() throws {
        for args in [["apply"], ["apply", CLI.lookChain, "a.png"], ["apply", CLI.lookChain, "a.png", "b.png", "--quality", "0"],
                     ["apply", CLI.lookChain, "a.png", "b.png", "--preview", "1"], ["nonsense"],
                     ["apply", CLI.lookChain, CLI.samples + "/chelsea.png", "-"],
                     ["apply", CLI.lookChain, CLI.samples + "/chelsea.png", "b.jpg", "--depth", "16"]] {
            let r = try CLI.run(args, in: folder)
            #expect(r.status == 64, "\(args): \(r.stderr)")
            #expect(r.stderr.hasPrefix("filterchain: error: ") && r.stderr.split(separator: "\n").count == 1, "\(args): \(r.stderr)")
        }
    }

    /// The examples in a help text: lines beginning "filterchain ", joined with the lines
    /// that continue them up to the next blank line (a wrapped example).
    static func examples(in help: String) -> [String] {
        var examples: [String] = []
        var current: String?
        for line in help.split(separator: "\n", omittingEmptySubsequences: false) {
            let text = line.trimmingCharacters(in: .whitespaces)
            if text.hasPrefix("filterchain ") {
                if let current { examples.append(current) }
                current = text
            } else if text.isEmpty || text.hasSuffix(":") {
                if let c = current { examples.append(c) }
                current = nil
            } else if let c = current, c.hasSuffix("\\") || line.hasPrefix(" ") || !text.contains(" ") || text.hasPrefix("--") {
                // A shell line continuation: the backslash goes, the line joins.
                let head = c.hasSuffix("\\") ? String(c.dropLast()).trimmingCharacters(in: .whitespaces) : c
                current = head + " " + text
            } else if let c = current {
                examples.append(c)
                current = nil
            }
        }
        if let current { examples.append(current) }
        return examples
    }

    /// Every command's help shows at least one example of that command, and every example
    /// runs as written (in a folder holding the files it names) with exit status 0.
    @Test(arguments: [[], ["apply"], ["thumbnail"], ["steps"], ["filters"], ["validate"], ["chain"], ["chain", "new"], ["chain", "add"],
                      ["chain", "set"], ["chain", "remove"], ["chain", "move"], ["chain", "enable"], ["chain", "disable"],
                      ["chain", "show"], ["chain", "var"]])
    func everyCommandExplainsItselfWithAnExample(_ command: [String]) throws {
        let r = try CLI.run(command + ["--help"])
        #expect(r.status == 0, "\(command)")
        let examples = Self.examples(in: r.out)
        let prefix = (["filterchain"] + command).joined(separator: " ") + " "
        #expect(!examples.isEmpty && examples.allSatisfy { ($0 + " ").hasPrefix(prefix) }, "\(command): \(examples)")

        // The files the examples name.
        let fm = FileManager.default
        try fm.createDirectory(atPath: folder + "/photos", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: folder + "/chains", withIntermediateDirectories: true)
        try fm.createSymbolicLink(atPath: folder + "/samples", withDestinationPath: CLI.samples)
        for name in ["chain.json", "chains/look.json"] { try fm.copyItem(atPath: CLI.lookChain, toPath: folder + "/" + name) }
        for name in ["in.jpg", "photo.jpg"] { try fm.copyItem(atPath: CLI.samples + "/rocket.jpg", toPath: folder + "/" + name) }
        for name in ["photos/a.png", "photos/b.png"] { try fm.copyItem(atPath: CLI.samples + "/camera.png", toPath: folder + "/" + name) }
        try fm.copyItem(atPath: CLI.samples + "/logo.png", toPath: folder + "/logo.png")
        // look.json as the `chain` examples leave it (they begin with `chain new`).
        if command != ["chain"] && command != ["chain", "new"] {
            let steps = [Step(name: "colour", filter: ColorControls()), Step(name: "curve", filter: ToneCurve()),
                         Step(name: "blur", filter: GaussianBlur())]
            try Chain(steps: steps).save(to: folder + "/look.json")
        }
        for example in examples {
            let line = CLI.binary + example.dropFirst("filterchain".count)
            let run = try CLI.run(["-c", line], in: folder, executable: "/bin/sh")
            #expect(run.status == 0, "\(example): \(run.stderr)")
        }
    }

    /// Harmless damage (16 stray bytes before the second segment, as Photoshop writes) is
    /// one warning naming the file, whatever the command, and the image is written.
    @Test func harmlessDamageIsOneWarningNamingTheFile() throws {
        var jpeg = [UInt8](try Data(contentsOf: URL(fileURLWithPath: CLI.samples + "/rocket.jpg")))
        let second = 4 + (Int(jpeg[4]) << 8 | Int(jpeg[5]))
        jpeg.insert(contentsOf: [UInt8](repeating: 0, count: 16), at: second)
        try Data(jpeg).write(to: URL(fileURLWithPath: folder + "/stray.jpg"))
        let warning = "filterchain: warning: stray.jpg: stray bytes between JPEG segments were skipped (harmless damage)\n"
        for command in [["apply", CLI.lookChain, "stray.jpg", "o.png"], ["apply", CLI.lookChain, "stray.jpg", "--output-dir", "out"],
                        ["steps", CLI.lookChain, "stray.jpg", "--output-dir", "s"]] {
            let r = try CLI.run(command, in: folder)
            #expect(r.status == 0, "\(command): \(r.stderr)")
            #expect(r.stderr == warning || r.stderr == warning + "1 written, 0 failed\n", "\(command): \(r.stderr)")
        }
        // The same image as from the undamaged file.
        #expect(try CLI.run(["apply", CLI.lookChain, CLI.samples + "/rocket.jpg", "clean.png"], in: folder).status == 0)
        let same = try CLI.pixels(folder + "/o.png").1 == CLI.pixels(folder + "/clean.png").1
        #expect(same)
    }

    /// `--strict` makes that harmless damage an error: exit status 1, one message naming the
    /// file and the damage, nothing written and an existing output untouched; the clean file
    /// passes. `--strict` with `--lenient` is a usage error.
    @Test func strictRefusesHarmlessDamage() throws {
        var jpeg = [UInt8](try Data(contentsOf: URL(fileURLWithPath: CLI.samples + "/rocket.jpg")))
        let second = 4 + (Int(jpeg[4]) << 8 | Int(jpeg[5]))
        jpeg.insert(contentsOf: [UInt8](repeating: 0, count: 16), at: second)
        try Data(jpeg).write(to: URL(fileURLWithPath: folder + "/stray.jpg"))
        try Data("keep".utf8).write(to: URL(fileURLWithPath: folder + "/kept.png"))
        for command in [["apply", CLI.lookChain, "stray.jpg", "kept.png", "--strict"],
                        ["apply", CLI.lookChain, "stray.jpg", "--output-dir", "out", "--strict"],
                        ["steps", CLI.lookChain, "stray.jpg", "--output-dir", "s", "--strict"]] {
            let r = try CLI.run(command, in: folder)
            #expect(r.status == 1, "\(command): \(r.stderr)")
            #expect(r.stderr.contains("stray.jpg: damaged JPEG data: stray bytes between JPEG segments were skipped (harmless damage) (refused: strict decoding)"),
                    "\(command): \(r.stderr)")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/kept.png")) == Data("keep".utf8))
        let written = (try? FileManager.default.contentsOfDirectory(atPath: folder + "/out")) ?? []
        let steps = (try? FileManager.default.contentsOfDirectory(atPath: folder + "/s")) ?? []
        #expect(written.isEmpty && steps.isEmpty, "\(written) \(steps)")
        let clean = try CLI.run(["apply", CLI.lookChain, CLI.samples + "/rocket.jpg", "clean.png", "--strict"], in: folder)
        #expect(clean.status == 0 && clean.stderr.isEmpty, "\(clean.stderr)")
        let both = try CLI.run(["apply", CLI.lookChain, "stray.jpg", "o.png", "--strict", "--lenient"], in: folder)
        #expect(both.status == 64 && both.stderr.contains("--strict and --lenient contradict each other"), "\(both.status) \(both.stderr)")
    }

    @Test func pipesThroughStandardInputAndOutput() throws {
        let input = try Data(contentsOf: URL(fileURLWithPath: CLI.samples + "/chelsea.png"))
        let r = try CLI.run(["apply", CLI.lookChain, "-", "-", "--format", "png"], stdin: input)
        #expect(r.status == 0, "\(r.stderr)")
        try r.stdout.write(to: URL(fileURLWithPath: folder + "/piped.png"))
        let direct = try CLI.run(["apply", CLI.lookChain, CLI.samples + "/chelsea.png", "direct.png"], in: folder)
        #expect(direct.status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/direct.png")) == r.stdout)
    }

    @Test func sixteenBitStaysSixteenBitAndGreyStaysGrey() throws {
        let grey16 = (0..<(64 * 32)).map { ($0 * 37) % 65536 }
        let image = try RasterImage(width: 64, height: 32, format: PixelFormat(.grey, .sixteen), samples: grey16)
        _ = try Renderer(threads: 1).render(Chain(steps: []), image: image,
                                        outputs: [RenderOutput(step: 0, .file(.file(folder + "/g16.png"), EncodeOptions()))])
        #expect(try CLI.run(["apply", CLI.lookChain, "g16.png", "o.png"], in: folder).status == 0)
        #expect(try CLI.pixels(folder + "/o.png").0.format == PixelFormat(.grey, .sixteen))
        #expect(try CLI.run(["apply", CLI.lookChain, "g16.png", "o8.png", "--depth", "8"], in: folder).status == 0)
        #expect(try CLI.pixels(folder + "/o8.png").0.format == PixelFormat(.grey, .eight))
        #expect(try CLI.run(["apply", CLI.samples + "/chains/tone-curve.json", "g16.png", "tinted.png"], in: folder).status == 0)
        #expect(try CLI.pixels(folder + "/tinted.png").0.format == PixelFormat(.rgb, .sixteen))
    }
}
