import Foundation
import Testing
import FilterChain

/// `--threads N`: the same bytes for every N, and a usage error for anything but a whole
/// number of at least 1, on every command that renders.
@Suite struct ThreadsTests {
    let folder = CLI.temporaryFolder()

    /// A neighbourhood filter (rows from the strips above and below) and a resize (a
    /// geometry step: strips of another height) after a point filter.
    func writeBlurAndResizeChain() throws -> String {
        var chain = try Chain.load(CLI.lookChain)
        chain.steps = Array(chain.steps.prefix(1))
        try chain.save(to: folder + "/chain.json")
        for (type, parameter) in [("gaussianBlur", "sigma=3"), ("resize", "width=301")] {
            let r = try CLI.run(["chain", "add", "chain.json", type, parameter], in: folder)
            #expect(r.status == 0, "\(r.stderr)")
        }
        return "chain.json"
    }

    func bytes(_ path: String) throws -> Data {
        try Data(contentsOf: URL(fileURLWithPath: folder + "/" + path))
    }

    @Test(arguments: ["chelsea.png", "rocket.jpg"])
    func applyWritesTheSameBytesOnOneAndThreeThreads(input: String) throws {
        let chain = try writeBlurAndResizeChain()
        for threads in ["1", "3"] {
            let r = try CLI.run(["apply", chain, CLI.samples + "/" + input, "out\(threads).png",
                                 "--preview", "2", "--preview-output", "blur\(threads).png", "--threads", threads], in: folder)
            #expect(r.status == 0 && r.stderr.isEmpty, "--threads \(threads): \(r.stderr)")
        }
        #expect(try CLI.pixels(folder + "/out1.png").0.width == 301)
        #expect(try bytes("out1.png") == bytes("out3.png"))
        #expect(try bytes("blur1.png") == bytes("blur3.png"))
    }

    @Test func stepsAndTheSheetAreTheSameBytesOnOneAndThreeThreads() throws {
        let chain = try writeBlurAndResizeChain()
        for threads in ["1", "3"] {
            let r = try CLI.run(["steps", chain, CLI.samples + "/rocket.jpg", "--output-dir", "steps\(threads)",
                                 "--sheet", "sheet\(threads).png", "--threads", threads], in: folder)
            #expect(r.status == 0 && r.stderr.isEmpty, "--threads \(threads): \(r.stderr)")
        }
        let names = CLI.files(in: folder + "/steps1")
        #expect(names.count == 4, "\(names)")
        #expect(CLI.files(in: folder + "/steps3") == names)
        for name in names { #expect(try bytes("steps1/" + name) == bytes("steps3/" + name), "\(name)") }
        #expect(try bytes("sheet1.png") == bytes("sheet3.png"))
    }

    /// A batch's images share the N threads: the outputs are those of one thread, whatever
    /// --jobs is (the default, one image per thread, or more images than threads).
    @Test func batchWritesTheSameBytesOnOneAndThreeThreads() throws {
        let chain = try writeBlurAndResizeChain()
        let inputs = ["chelsea.png", "coffee.png", "camera.png", "rocket.jpg"].map { CLI.samples + "/" + $0 }
        for (out, options) in [("one", ["--threads", "1"]), ("three", ["--threads", "3"]), ("jobs", ["--threads", "2", "--jobs", "4"])] {
            let r = try CLI.run(["apply", chain] + inputs + ["--output-dir", out, "-q"] + options, in: folder)
            #expect(r.status == 0 && r.stderr.isEmpty, "\(options): \(r.stderr)")
        }
        let names = CLI.files(in: folder + "/one")
        #expect(names == ["camera.png", "chelsea.png", "coffee.png", "rocket.jpg"])
        for out in ["three", "jobs"] {
            #expect(CLI.files(in: folder + "/" + out) == names)
            for name in names { #expect(try bytes("one/" + name) == bytes(out + "/" + name), "\(out)/\(name)") }
        }
    }

    /// Every command that renders, with room for the option at the end.
    static let renderingCommands: [[String]] = [
        ["apply", "CHAIN", "IN", "out.png"],
        ["apply", "CHAIN", "IN", "--output-dir", "out"],
        ["apply", "CHAIN", "--in-place", "IN"],
        ["steps", "CHAIN", "IN", "--output-dir", "steps", "--sheet", "sheet.png"],
        ["edit", "CHAIN", "IN", "--no-browser"],
    ]

    @Test(arguments: renderingCommands, ["0", "-2", "x", "1.5", ""])
    func badThreadCountsAreUsageErrors(command: [String], value: String) throws {
        try FileManager.default.copyItem(atPath: CLI.samples + "/chelsea.png", toPath: folder + "/in.png")
        let arguments = command.map { $0 == "CHAIN" ? CLI.lookChain : $0 == "IN" ? "in.png" : $0 }
        let r = try CLI.run(arguments + ["--threads", value], in: folder)
        #expect(r.status == 64, "\(command) --threads '\(value)': \(r.stderr)")
        #expect(r.stderr.hasPrefix("filterchain: error: ") && r.stderr.contains("--threads"), "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        #expect(CLI.files(in: folder) == ["in.png"], "nothing written")
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/in.png"))
                == Data(contentsOf: URL(fileURLWithPath: CLI.samples + "/chelsea.png")))
    }

    /// `filterchain edit` hands --threads to filterchain-edit, which takes it: this run gets
    /// past the options and stops at the missing image (status 1, not a usage error).
    @Test func editTakesThreads() throws {
        let r = try CLI.run(["edit", "chain.json", "missing.png", "--no-browser", "--threads", "2"], in: folder)
        #expect(r.status == 1, "\(r.stderr)")
        #expect(r.stderr.hasPrefix("filterchain: error: ") && r.stderr.contains("missing.png"), "\(r.stderr)")
    }
}
