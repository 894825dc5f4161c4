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
