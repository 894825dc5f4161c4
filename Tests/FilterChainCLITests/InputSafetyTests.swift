import Foundation
import Testing
import FilterChain

/// No output replaces an input, however its path is spelled; --in-place does on purpose.
@Suite struct InputSafetyTests {
    let folder = CLI.temporaryFolder()

    func setUp() throws -> [UInt8] {
        try FileManager.default.copyItem(atPath: CLI.samples + "/camera.png", toPath: folder + "/a.png")
        try FileManager.default.createDirectory(atPath: folder + "/sub", withIntermediateDirectories: true)
        symlink(folder + "/a.png", folder + "/sub/link.png")
        link(folder + "/a.png", folder + "/hard.png")
        return Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/a.png")))
    }

    func unchanged(_ original: [UInt8]) throws -> Bool {
        Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/a.png"))) == original
    }

    @Test(arguments: [["a.png", "a.png"], ["a.png", "./a.png"], ["./a.png", "ABSOLUTE/a.png"], ["a.png", "sub/link.png"],
                      ["a.png", "hard.png"], ["sub/../a.png", "a.png"]])
    func theMainOutputNeverReplacesTheInput(paths: [String]) throws {
        let original = try setUp()
        let args = paths.map { $0.replacingOccurrences(of: "ABSOLUTE", with: folder) }
        let r = try CLI.run(["apply", CLI.lookChain] + args, in: folder)
        #expect(r.status == 64, "\(r.stderr)")
        #expect(r.stderr.contains("the output would replace the input"), "\(r.stderr)")
        #expect(try unchanged(original))
    }

    @Test func thePreviewNeverReplacesTheInput() throws {
        let original = try setUp()
        let r = try CLI.run(["apply", CLI.lookChain, "a.png", "out.png", "--preview", "1", "--preview-output", "sub/link.png"], in: folder)
        #expect(r.status == 64, "\(r.stderr)")
        #expect(r.stderr.contains("sub/link.png: the output would replace the input (a.png)"), "\(r.stderr)")
        #expect(try unchanged(original))
        #expect(!FileManager.default.fileExists(atPath: folder + "/out.png"))
    }

    @Test func stepsAndTheSheetNeverReplaceTheInput() throws {
        let original = try setUp()
        // "00-input.png" in the output folder is the input itself.
        link(folder + "/a.png", folder + "/sub/00-input.png")
        let r = try CLI.run(["steps", CLI.lookChain, "a.png", "--output-dir", "sub"], in: folder)
        #expect(r.status == 64, "\(r.stderr)")
        #expect(try unchanged(original))
        let s = try CLI.run(["steps", CLI.lookChain, "a.png", "--output-dir", "other", "--sheet", "./a.png"], in: folder)
        #expect(s.status == 64, "\(s.stderr)")
        #expect(try unchanged(original))
    }

    @Test func aBatchIntoTheInputsFolderIsRefusedBeforeAnyWork() throws {
        let original = try setUp()
        try FileManager.default.copyItem(atPath: CLI.samples + "/chelsea.png", toPath: folder + "/b.png")
        let b = Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/b.png")))
        let r = try CLI.run(["apply", CLI.lookChain, "b.png", "a.png", "--output-dir", "."], in: folder)
        #expect(r.status == 64, "\(r.stderr)")
        #expect(r.stderr.contains("b.png: the output would replace the input") || r.stderr.contains("./b.png: the output would replace the input"), "\(r.stderr)")
        #expect(try unchanged(original))
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/b.png"))) == b)
        // With a suffix the names differ, and the batch runs.
        let ok = try CLI.run(["apply", CLI.lookChain, "b.png", "a.png", "--output-dir", ".", "--suffix=-edit", "--quiet"], in: folder)
        #expect(ok.status == 0, "\(ok.stderr)")
        #expect(try unchanged(original))
    }

    @Test func inPlaceReplacesEachInputAtomicallyKeepingPermissionsAndFormat() throws {
        let original = try setUp()
        try FileManager.default.copyItem(atPath: CLI.samples + "/rocket.jpg", toPath: folder + "/photo")  // no extension
        chmod(folder + "/a.png", 0o640)
        let r = try CLI.run(["apply", CLI.lookChain, "--in-place", "sub/link.png", "photo", "--quiet"], in: folder)
        #expect(r.status == 0, "\(r.stderr)")
        // The link still links; the file it names holds the result, with its permissions.
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: folder + "/sub/link.png")) == folder + "/a.png")
        #expect(!(try unchanged(original)))
        var st = stat()
        stat(folder + "/a.png", &st)
        #expect(st.st_mode & 0o777 == 0o640)
        let expected = try CLI.run(["apply", CLI.lookChain, CLI.samples + "/camera.png", "expected.png"], in: folder)
        #expect(expected.status == 0)
        #expect(try CLI.pixels(folder + "/a.png").1 == CLI.pixels(folder + "/expected.png").1)
        #expect(try CLI.pixels(folder + "/photo").0.sourceFormat == .jpeg)
        #expect(!CLI.files(in: folder).contains { $0.contains("filterchain-") })
        // Combinations that make no sense in place are usage errors.
        for extra in [["--skip-existing"], ["--output-dir", "o"], ["--format", "png"], ["--suffix=-x"]] {
            #expect(try CLI.run(["apply", CLI.lookChain, "--in-place", "photo"] + extra, in: folder).status == 64, "\(extra)")
        }
    }

    @Test func inPlaceLeavesADamagedInputUntouched() throws {
        let path = folder + "/bad.png"
        let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: CLI.samples + "/camera.png")).prefix(5000))
        _ = FileManager.default.createFile(atPath: path, contents: Data(bytes))
        let r = try CLI.run(["apply", CLI.lookChain, "--in-place", "bad.png", "--quiet"], in: folder)
        #expect(r.status == 1)
        #expect(Array(try Data(contentsOf: URL(fileURLWithPath: path))) == bytes)
        #expect(CLI.files(in: folder) == ["bad.png"])
    }

    @Test func aFolderGivenAsTheOutputFileIsNamed() throws {
        _ = try setUp()
        let r = try CLI.run(["apply", CLI.lookChain, "a.png", "sub"], in: folder)
        #expect(r.status == 64)
        #expect(r.stderr.contains("sub: is a folder; give an output file name"), "\(r.stderr)")
    }
}

/// Step names stay unique when chains are edited; a type names its only step.
@Suite struct StepNameTests {
    let folder = CLI.temporaryFolder()

    @Test func chainAddAndSetRefuseADuplicateName() throws {
        #expect(try CLI.run(["chain", "new", "c.json"], in: folder).status == 0)
        #expect(try CLI.run(["chain", "add", "c.json", "colorControls", "--name", "pop"], in: folder).status == 0)
        #expect(try CLI.run(["chain", "add", "c.json", "gaussianBlur"], in: folder).status == 0)
        let before = try String(contentsOfFile: folder + "/c.json", encoding: .utf8)
        let add = try CLI.run(["chain", "add", "c.json", "toneCurve", "--name", "pop"], in: folder)
        #expect(add.status == 65)
        #expect(add.stderr.contains("the name 'pop' is already used by filters[0] (step 1; this is step 3)"), "\(add.stderr)")
        let set = try CLI.run(["chain", "set", "c.json", "2", "--name", "pop"], in: folder)
        #expect(set.status == 65)
        #expect(set.stderr.contains("the name 'pop' is already used by filters[0] (step 1; this is step 2)"), "\(set.stderr)")
        #expect(try String(contentsOfFile: folder + "/c.json", encoding: .utf8) == before)
        // Renaming to a free name works, and the unnamed blur is found by its type.
        #expect(try CLI.run(["chain", "set", "c.json", "gaussianBlur", "--name", "soft", "sigma=3"], in: folder).status == 0)
        #expect(try Chain.load(folder + "/c.json").steps[1].name == "soft")
    }

    @Test func previewTakesATypeWhenOneStepHasIt() throws {
        var chain = Chain([ColorControls(saturation: 0), GaussianBlur(sigma: 1)])
        try chain.save(to: folder + "/c.json")
        let r = try CLI.run(["apply", "c.json", CLI.samples + "/chelsea.png", "out.png", "--preview", "gaussianBlur",
                             "--preview-output", "p.png"], in: folder)
        #expect(r.status == 0, "\(r.stderr)")
        chain.steps.append(Step(filter: GaussianBlur(sigma: 2)))
        try chain.save(to: folder + "/c.json")
        let two = try CLI.run(["apply", "c.json", CLI.samples + "/chelsea.png", "out2.png", "--preview", "gaussianBlur",
                               "--preview-output", "p2.png"], in: folder)
        #expect(two.status == 64)
        #expect(two.stderr.contains("ambiguous: it matches steps 2 and 3"), "\(two.stderr)")
    }
}
