import Foundation
import Testing
import FilterChain

/// `--step 'TYPE name=value ...'` on `apply` and `steps`: one-liners without a chain file,
/// steps appended to one, `--save-chain`. Each run is checked against the same chain written
/// as a file (by `chain add`, the reference for the syntax) and run the ordinary way: the
/// outputs must be the same bytes.
@Suite struct InlineStepTests {
    let folder = CLI.temporaryFolder()
    var rocket: String { CLI.samples + "/rocket.jpg" }

    /// The chain `chain add` makes from the same words, as a file in `folder`.
    func chainFile(_ name: String, _ steps: [[String]], from base: String? = nil) throws -> String {
        if let base { try FileManager.default.copyItem(atPath: base, toPath: folder + "/" + name) } else {
            #expect(try CLI.run(["chain", "new", name], in: folder).status == 0)
        }
        for words in steps {
            let r = try CLI.run(["chain", "add", name] + words, in: folder)
            #expect(r.status == 0, "\(words): \(r.stderr)")
        }
        return folder + "/" + name
    }

    func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(fileURLWithPath: folder + "/" + path)) }

    @Test func aOneLinerRunsAsTheSameChainFileDoes() throws {
        let r = try CLI.run(["apply", "--step", "resize width=200 fast=true", "--step", "unsharpMask sigma=1",
                             rocket, "one.jpg", "--save-chain", "thumb.json"], in: folder)
        #expect(r.status == 0 && r.stderr.isEmpty, "\(r.stderr)")
        let reference = try chainFile("reference.json", [["resize", "width=200", "fast=true"], ["unsharpMask", "sigma=1"]])
        #expect(try CLI.run(["apply", reference, rocket, "file.jpg"], in: folder).status == 0)
        #expect(try bytes("one.jpg") == bytes("file.jpg"))
        // --save-chain wrote the chain that ran: the same steps and values, and it runs to
        // the same bytes.
        let saved = try Chain.load(folder + "/thumb.json")
        let made = try Chain.load(reference)
        #expect(saved.steps.map(\.type) == ["resize", "unsharpMask"])
        #expect(saved.steps.map { JSONWriter.compact($0.filter.parametersJSON) } == made.steps.map { JSONWriter.compact($0.filter.parametersJSON) })
        #expect(try CLI.run(["apply", "thumb.json", rocket, "saved.jpg"], in: folder).status == 0)
        #expect(try bytes("saved.jpg") == bytes("one.jpg"))
        // A value with spaces inside brackets stays one value.
        let curve = try CLI.run(["apply", "--step", "toneCurve points=[[0, 0], [0.5, 0.6], [1, 1]] interpolation=linear",
                                 rocket, "curve.png"], in: folder)
        #expect(curve.status == 0, "\(curve.stderr)")
        let curveFile = try chainFile("curve.json", [["toneCurve", "points=[[0,0],[0.5,0.6],[1,1]]", "interpolation=linear"]])
        #expect(try CLI.run(["apply", curveFile, rocket, "curve-file.png"], in: folder).status == 0)
        #expect(try bytes("curve.png") == bytes("curve-file.png"))
    }

    /// After a chain file, --step steps come after its steps.
    @Test func stepsAfterAChainFileAreAppended() throws {
        let r = try CLI.run(["apply", CLI.lookChain, "--step", "vignette intensity=0.5", "--step", "invert", rocket, "out.png",
                             "--save-chain", "all.json"], in: folder)
        #expect(r.status == 0, "\(r.stderr)")
        let reference = try chainFile("look.json", [["vignette", "intensity=0.5"], ["invert"]], from: CLI.lookChain)
        #expect(try CLI.run(["apply", reference, rocket, "ref.png"], in: folder).status == 0)
        #expect(try bytes("out.png") == bytes("ref.png"))
        let look = try Chain.load(CLI.lookChain), all = try Chain.load(folder + "/all.json")
        #expect(all.steps.map(\.type) == look.steps.map(\.type) + ["vignette", "invert"])
        #expect(Array(all.steps.map(\.id).prefix(look.steps.count)) == look.steps.map(\.id))
        // --preview names steps of the whole chain.
        let preview = try CLI.run(["apply", CLI.lookChain, "--step", "invert", rocket, "o2.png", "--preview", "invert",
                                   "--preview-output", "p.png"], in: folder)
        #expect(preview.status == 0 && FileManager.default.fileExists(atPath: folder + "/p.png"), "\(preview.stderr)")
    }

    /// With batch options, and in `steps`.
    @Test func batchesAndSteps() throws {
        let r = try CLI.run(["apply", "--step", "resize width=100", rocket, CLI.samples + "/coffee.png", "--output-dir", "thumbs", "-q"],
                            in: folder)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(CLI.files(in: folder + "/thumbs") == ["coffee.png", "rocket.jpg"])
        #expect(try CLI.pixels(folder + "/thumbs/coffee.png").0.width == 100)
        let steps = try CLI.run(["steps", "--step", "exposure ev=1", "--step", "gaussianBlur sigma=2", CLI.samples + "/coffee.png",
                                 "--output-dir", "st"], in: folder)
        #expect(steps.status == 0, "\(steps.stderr)")
        #expect(CLI.files(in: folder + "/st") == ["00-input.png", "01-exposure.png", "02-gaussianblur.png"])
        let reference = try chainFile("two.json", [["exposure", "ev=1"], ["gaussianBlur", "sigma=2"]])
        #expect(try CLI.run(["steps", reference, CLI.samples + "/coffee.png", "--output-dir", "ref"], in: folder).status == 0)
        for name in CLI.files(in: folder + "/st") { #expect(try bytes("st/" + name) == bytes("ref/" + name), "\(name)") }
    }

    /// The messages of `chain add`, titled by the --step they are about; a value the chain
    /// would refuse exits 65 (as `chain add` does), words that cannot be read 64.
    @Test(arguments: [
        (["--step", "gaussianBlur sigma=-1"], 65, "--step 1 'gaussianBlur sigma=-1': sigma: -1 is out of range; allowed 0...500"),
        (["--step", "invert", "--step", "colorControls saturaton=2"], 65,
         "--step 2 'colorControls saturaton=2': saturaton: unknown parameter 'saturaton'; did you mean 'saturation'?"),
        (["--step", "blur sigma=1"], 65, "--step 1 'blur sigma=1': unknown filter type 'blur'; did you mean 'gaussianBlur'?"),
        (["--step", "lut"], 65, "--step 1 'lut': lut needs file=... (see 'filterchain filters lut')"),
        (["--step", "resize width=10 scale=0.5"], 65, "--step 1 'resize width=10 scale=0.5': resize: scale cannot be given with width"),
        (["--step", "gaussianBlur sigma"], 64, "--step 1 'gaussianBlur sigma': 'sigma': write parameters as name=value"),
        (["--step", "sigma=2"], 64, "--step 1 'sigma=2': give a filter type first"),
        (["--step", "lut file=none.cube"], 65, "--step 1 'lut file=none.cube': file: none.cube: no such file (looked for "),
    ] as [([String], Int32, String)])
    func badStepsAreRefusedBeforeAnyWork(arguments: [String], status: Int32, message: String) throws {
        let r = try CLI.run(["apply"] + arguments + [rocket, "out.jpg", "--save-chain", "c.json"], in: folder)
        #expect(r.status == status, "\(r.stderr)")
        #expect(r.stderr.hasPrefix("filterchain: error: " + message), "\(r.stderr)")
        #expect(CLI.files(in: folder).isEmpty, "nothing written")
    }

    /// A relative path in a --step starts at the working directory; --save-chain writes it
    /// relative to the saved chain's folder, so the saved chain reads the same file.
    @Test func relativePathsInStepsAndSavedChains() throws {
        try FileManager.default.createDirectory(atPath: folder + "/luts", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: CLI.samples + "/luts/warm-film.cube", toPath: folder + "/luts/film.cube")
        let nowhere = try CLI.run(["apply", "--step", "invert", rocket, "out.png", "--save-chain", "chains/film.json"], in: folder)
        #expect(nowhere.status == 1 && nowhere.stderr == "filterchain: error: chains/film.json: cannot write the chain file: no such folder chains\n",
                "\(nowhere.stderr)")
        try FileManager.default.createDirectory(atPath: folder + "/chains", withIntermediateDirectories: true)
        let r = try CLI.run(["apply", "--step", "lut file=luts/film.cube intensity=0.5", rocket, "out.png",
                             "--save-chain", "chains/film.json"], in: folder)
        #expect(r.status == 0, "\(r.stderr)")
        let text = try String(contentsOfFile: folder + "/chains/film.json", encoding: .utf8)
        #expect(text.contains("\"file\": \"../luts/film.cube\""), "\(text)")
        #expect(try CLI.run(["apply", "chains/film.json", rocket, "again.png"], in: folder).status == 0)
        #expect(try bytes("again.png") == bytes("out.png"))
        let missing = try CLI.run(["apply", "--step", "lut file=film.cube", rocket, "x.png"], in: folder)
        #expect(missing.status == 65)
        #expect(missing.stderr.contains("film.cube: no such file (looked for ") && missing.stderr.contains("paths in --step start at the working directory"),
                "\(missing.stderr)")
    }

    @Test func withoutAChainOrStepsTheCommandSaysWhatItNeeds() throws {
        let none = try CLI.run(["apply"], in: folder)
        #expect(none.status == 64 && none.stderr.contains("give a chain file, or the steps with --step"), "\(none.stderr)")
        // With --step, a first path that is an image is an input, and one named .json is a
        // chain file, even when missing.
        let missing = try CLI.run(["apply", "none.json", "--step", "invert", rocket, "o.jpg"], in: folder)
        #expect(missing.status == 65 && missing.stderr.contains("none.json: cannot read the chain file: no such file"), "\(missing.stderr)")
        let tooMany = try CLI.run(["apply", "--step", "invert", rocket, rocket, "o.jpg"], in: folder)
        #expect(tooMany.status == 64 && tooMany.stderr.contains("many inputs need --output-dir"), "\(tooMany.stderr)")
        #expect(CLI.files(in: folder).isEmpty)
    }
}
