import Foundation
import Testing
import FilterChain
@testable import filterchain

/// What a newcomer trips on in the first hour (issue 41): an image given where the chain file
/// goes, warnings that do not say which file they are about, and -q.
@Suite struct NewcomerTests {
    let folder = CLI.temporaryFolder()

    func copySamples(_ names: [String]) throws {
        for name in names {
            try FileManager.default.copyItem(atPath: CLI.samples + "/" + name, toPath: folder + "/" + name)
        }
    }

    /// `filterchain apply photos/* --output-dir w --format webp`: the first image is said to be
    /// one, with the command as it was probably meant (a chain file first, or --step), the
    /// images after the second elided; exit 64 and nothing written.
    @Test func anImageWhereTheChainGoesIsSaidToBeOne() throws {
        try copySamples(["camera.png", "chelsea.png", "coffee.png", "rocket.jpg"])
        let r = try CLI.run(["apply", "camera.png", "chelsea.png", "coffee.png", "rocket.jpg", "--output-dir", "w", "--format", "webp"], in: folder)
        #expect(r.status == 64, "\(r.stderr)")
        let lines = r.stderr.split(separator: "\n").map(String.init)
        #expect(lines.first == "filterchain: error: camera.png is an image (PNG), not a chain file: the chain file comes first, then the images. Give one, or the steps with --step:")
        #expect(lines.contains("  filterchain apply CHAIN.json camera.png chelsea.png ... --output-dir w --format webp"), "\(r.stderr)")
        #expect(lines.contains("  filterchain apply --step 'resize width=800' camera.png chelsea.png ... --output-dir w --format webp"), "\(r.stderr)")
        #expect(!r.stderr.contains("JSON"))
        #expect(!FileManager.default.fileExists(atPath: folder + "/w"))
        // The second suggestion runs as written (with the elision filled in).
        let meant = try CLI.run(["apply", "--step", "resize width=800", "camera.png", "chelsea.png", "coffee.png", "rocket.jpg",
                                 "--output-dir", "w", "--format", "webp"], in: folder)
        #expect(meant.status == 0, "\(meant.stderr)")
        #expect(CLI.files(in: folder + "/w") == ["camera.webp", "chelsea.webp", "coffee.webp", "rocket.webp"])
        // A JSON file that is broken is still reported as JSON.
        CLI.write("{ \"version\": 2, ", to: folder + "/broken.json")
        let broken = try CLI.run(["apply", "broken.json", "camera.png", "x.png"], in: folder)
        #expect(broken.status == 65 && broken.stderr.contains("invalid JSON"), "\(broken.stderr)")
    }

    /// A word the suggestion shows is quoted as a shell reads it back.
    @Test func suggestedCommandsAreQuotedForTheShell() {
        let failure = InlineStepOptions.imageGivenAsChain("my photo.png", format: .png, paths: ["it's.png", "o.png"],
                                                          arguments: ["filterchain", "apply", "my photo.png", "it's.png", "o.png"])
        #expect(failure.message.contains("filterchain apply CHAIN.json 'my photo.png' 'it'\\''s.png' ..."), "\(failure.message)")
        #expect(failure.status == 64)
    }

    /// A batch's warnings name the input they are about; -q hides them (and the summary),
    /// never an error.
    @Test func batchWarningsNameTheirFileAndQuietHidesThem() throws {
        try copySamples(["rocket.jpg", "coffee.png"])
        CLI.write("not an image", to: folder + "/bad.png")
        let args = ["apply", "--step", "resize width=64", "rocket.jpg", "coffee.png", "bad.png", "--output-dir", "w", "--format", "gif"]
        let r = try CLI.run(args, in: folder)
        #expect(r.status == 1)
        // rocket.jpg holds a comment, which GIF has no place for.
        #expect(r.stderr.contains("filterchain: warning: rocket.jpg: GIF has no place for comments; not written\n"), "\(r.stderr)")
        #expect(r.stderr.contains("filterchain: error: bad.png: "), "\(r.stderr)")
        #expect(r.stderr.contains("2 written, 1 failed"))
        try FileManager.default.removeItem(atPath: folder + "/w")
        let quiet = try CLI.run(args + ["-q"], in: folder)
        #expect(quiet.status == 1)
        #expect(!quiet.stderr.contains("warning") && !quiet.stderr.contains("written"), "\(quiet.stderr)")
        #expect(quiet.stderr.contains("filterchain: error: bad.png: "), "\(quiet.stderr)")
        #expect(CLI.files(in: folder + "/w") == ["coffee.gif", "rocket.gif"])
        // One image: its warning is named too, and -q hides it.
        let one = try CLI.run(["apply", "--step", "resize width=64", "rocket.jpg", "one.gif"], in: folder)
        #expect(one.status == 0 && one.stderr == "filterchain: warning: rocket.jpg: GIF has no place for comments; not written\n", "\(one.stderr)")
        let oneQuiet = try CLI.run(["apply", "--step", "resize width=64", "rocket.jpg", "two.gif", "-q"], in: folder)
        #expect(oneQuiet.status == 0 && oneQuiet.stderr.isEmpty, "\(oneQuiet.stderr)")
    }
}

/// `filterchain thumbnail`: sizes, names, colour, metadata, crops, and that it is the same
/// engine as `apply` with one resize.
@Suite struct ThumbnailCommandTests {
    let folder = CLI.temporaryFolder()

    func copySamples(_ names: [String]) throws {
        for name in names {
            try FileManager.default.copyItem(atPath: CLI.samples + "/" + name, toPath: folder + "/" + name)
        }
    }

    @Test func sizesAndNames() throws {
        try copySamples(["chelsea.png", "rocket.jpg", "coffee-p3.jpg"])
        // Beside each image, tn_NAME, in its own format: fitted in 200 x 200.
        let r = try CLI.run(["thumbnail", "chelsea.png", "rocket.jpg", "-s", "200"], in: folder)
        #expect(r.status == 0, "\(r.stderr)")
        let (chelsea, _) = try CLI.pixels(folder + "/tn_chelsea.png")
        let (rocket, _) = try CLI.pixels(folder + "/tn_rocket.jpg")
        #expect(max(chelsea.width, chelsea.height) == 200 && max(rocket.width, rocket.height) == 200)
        // -o DIR, --format: NAME.EXT in DIR; WxH with --crop fills the box exactly.
        let crop = try CLI.run(["thumbnail", "chelsea.png", "rocket.jpg", "-s", "120x90", "--crop", "centre", "-o", "small", "--format", "webp"], in: folder)
        #expect(crop.status == 0, "\(crop.stderr)")
        #expect(CLI.files(in: folder + "/small") == ["chelsea.webp", "rocket.webp"])
        for name in ["chelsea.webp", "rocket.webp"] {
            let (info, _) = try CLI.pixels(folder + "/small/" + name)
            #expect(info.width == 120 && info.height == 90)
        }
        // One side: Wx, xH. Never enlarged.
        _ = try CLI.run(["thumbnail", "rocket.jpg", "-s", "100x", "-o", "w"], in: folder)
        #expect(try CLI.pixels(folder + "/w/rocket.jpg").0.width == 100)
        _ = try CLI.run(["thumbnail", "rocket.jpg", "-s", "x50", "-o", "h"], in: folder)
        #expect(try CLI.pixels(folder + "/h/rocket.jpg").0.height == 50)
        _ = try CLI.run(["thumbnail", "rocket.jpg", "-s", "5000", "-o", "big"], in: folder)
        let (big, _) = try CLI.pixels(folder + "/big/rocket.jpg")
        let (original, _) = try CLI.pixels(folder + "/rocket.jpg")
        #expect(big.width == original.width && big.height == original.height)
    }

    @Test(arguments: [
        (["-s", "100", "folder"], "folder: is a folder, not an image; give its images with a glob and -o (folder/*.jpg -o out)"),
        (["-s", "0"], "-s 0: give N, WxH, Wx or xH"),
        (["-s", "12x34x5"], "-s 12x34x5: give N, WxH, Wx or xH"),
        (["-s", "x"], "-s x: give N, WxH, Wx or xH"),
        (["-s", "100x", "--crop", "centre"], "--crop centre fills a box: give both sides"),
        (["-s", "100", "--crop", "middle"], "--crop middle: give none, centre or attention"),
        (["-s", "100", "--output-profile", "srgb"], "thumbnail takes --export-profile"),
    ])
    func badOptionsAreUsageErrors(arguments: [String], message: String) throws {
        try copySamples(["rocket.jpg"])
        try FileManager.default.createDirectory(atPath: folder + "/folder", withIntermediateDirectories: true)
        let r = try CLI.run(["thumbnail", "rocket.jpg"] + arguments, in: folder)
        #expect(r.status == 64, "\(r.stderr)")
        #expect(r.stderr.contains(message), "\(r.stderr)")
        #expect(CLI.files(in: folder) == ["folder", "rocket.jpg"])
    }

    /// sRGB out (a Display P3 photo converted, not relabelled), metadata left out, an HDR
    /// gain map kept and scaled with the image; --keep-metadata and --export-profile source.
    @Test func colourAndMetadata() throws {
        try copySamples(["coffee-p3.jpg", "rocket-ultrahdr.jpg", "rocket.jpg"])
        let r = try CLI.run(["thumbnail", "coffee-p3.jpg", "rocket-ultrahdr.jpg", "rocket.jpg", "-s", "160", "-o", "t"], in: folder)
        #expect(r.status == 0 && !r.stderr.contains("warning"), "\(r.stderr)")
        let p3 = try ImageReader.open(.file(folder + "/t/coffee-p3.jpg")).info
        let profile = try #require(p3.metadata.iccProfile)
        #expect(try ColorProfile(iccData: profile).behavesAsSRGB)
        let hdr = try ImageReader.open(.file(folder + "/t/rocket-ultrahdr.jpg")).info
        let map = try #require(hdr.metadata.gainMap)
        #expect(map.map.width <= 160 && map.map.height <= 160)
        let plain = try ImageReader.open(.file(folder + "/t/rocket.jpg")).info
        #expect(plain.metadata.comments.isEmpty && plain.metadata.exif == nil)
        // Kept on request.
        let keep = try CLI.run(["thumbnail", "rocket.jpg", "-s", "160", "-o", "k", "--keep-metadata", "--export-profile", "source"], in: folder)
        #expect(keep.status == 0, "\(keep.stderr)")
        let kept = try ImageReader.open(.file(folder + "/k/rocket.jpg")).info
        #expect(!kept.metadata.comments.isEmpty)
        let source = try ImageReader.open(.file(folder + "/rocket.jpg")).info
        #expect(kept.metadata.iccProfile == source.metadata.iccProfile)
    }

    /// The same engine as apply: a thumbnail equals apply with the resize it documents.
    @Test func isApplyWithOneResize() throws {
        try copySamples(["coffee-p3.jpg", "chelsea.png"])
        for (size, crop, step) in [("150", "none", "resize width=150 height=150 fit=contain enlarge=false fast=true"),
                                   ("150x100", "centre", "resize width=150 height=100 fit=cover enlarge=false fast=true")] {
            let t = try CLI.run(["thumbnail", "coffee-p3.jpg", "chelsea.png", "-s", size, "--crop", crop, "-o", "t-" + crop, "--format", "png"], in: folder)
            #expect(t.status == 0, "\(t.stderr)")
            let a = try CLI.run(["apply", "--step", step, "coffee-p3.jpg", "chelsea.png", "--output-dir", "a-" + crop, "--format", "png",
                                 "--output-profile", "srgb", "--strip"], in: folder)
            #expect(a.status == 0, "\(a.stderr)")
            for name in ["coffee-p3.png", "chelsea.png"] {
                let (ti, tp) = try CLI.pixels(folder + "/t-\(crop)/" + name)
                let (ai, ap) = try CLI.pixels(folder + "/a-\(crop)/" + name)
                #expect(ti.width == ai.width && ti.height == ai.height && tp == ap, "\(name) \(crop)")
            }
        }
    }

    /// --crop attention keeps the subject where the middle would cut it off.
    @Test func attentionKeepsTheSubject() throws {
        let w = 600, h = 200
        var samples = [Int](repeating: 128, count: w * h * 3)
        for y in 60..<140 {
            for x in 20..<100 {
                let checker = ((x / 8) + (y / 8)) % 2 == 0
                samples[(y * w + x) * 3 + 1] = checker ? 230 : 10
            }
        }
        try RasterImage(width: w, height: h, format: PixelFormat(.rgb, .eight), samples: samples).write(to: folder + "/left.png")
        for crop in ["attention", "centre"] {
            let r = try CLI.run(["thumbnail", "left.png", "-s", "100", "--crop", crop, "-o", crop], in: folder)
            #expect(r.status == 0, "\(r.stderr)")
        }
        let (_, attention) = try CLI.pixels(folder + "/attention/left.png")
        let (_, centre) = try CLI.pixels(folder + "/centre/left.png")
        #expect(attention.enumerated().contains { $0.offset % 3 == 1 && $0.element > 200 })
        #expect(centre.allSatisfy { abs(Int($0) - 128) <= 1 })
    }
}
