import Foundation
import Testing
import FilterChain

/// Variables and expressions from the command line: `--set` through apply, steps, batches
/// and validate; `chain var`; `validate --size`; a batch whose value is out of range for one
/// image only.
@Suite struct ExpressionCLITests {
    let folder = CLI.temporaryFolder()

    func run(_ arguments: [String]) throws -> CLI.Result { try CLI.run(arguments, in: folder) }

    static let ids = ["0F6C1B9E-3C1A-4D2B-8E57-6A1F0B2C3D41", "7A2D4E6F-8B9C-4A1D-9E2F-3B4C5D6E7F80", "C3D4E5F6-A7B8-4C9D-8E0F-1A2B3C4D5E6F"]

    /// The README's look: a blur that scales with the image and colour from `strength`.
    static let look = """
        { "version": 2,
          "variables": [ { "name": "strength", "value": 0.5, "min": 0, "max": 1, "help": "how strong the look is" },
                         { "name": "long", "value": 1600 } ],
          "filters": [
            { "id": "\(ids[0])", "type": "resize", "parameters": { "width": "=min(long, width)" } },
            { "id": "\(ids[1])", "type": "gaussianBlur", "name": "blur", "parameters": { "sigma": "=0.002 * min(width, height)" } },
            { "id": "\(ids[2])", "type": "colorControls", "parameters": { "saturation": "=1 + strength" } } ] }
        """

    /// The same look with the literals it takes on a w x h image (w <= 1600), strength s.
    static func literal(height h: Int, strength s: Double) -> String {
        """
        { "version": 1, "filters": [
            { "id": "\(ids[0])", "type": "colorControls", "parameters": { "saturation": 1 } },
            { "id": "\(ids[1])", "type": "gaussianBlur", "parameters": { "sigma": \(JSONWriter.number(0.002 * Double(h))) } },
            { "id": "\(ids[2])", "type": "colorControls", "parameters": { "saturation": \(JSONWriter.number(1 + s)) } } ] }
        """
    }

    func write(_ text: String, _ name: String) -> String {
        CLI.write(text, to: folder + "/" + name)
        return name
    }

    func bytes(_ name: String) -> Data? { FileManager.default.contents(atPath: folder + "/" + name) }

    @Test func applyWithSetIsTheChainWithThoseLiterals() throws {
        _ = write(Self.look, "look.json")
        _ = write(Self.literal(height: 400, strength: 0.9), "literal.json")
        let coffee = CLI.samples + "/coffee.png"   // 600 x 400: not resized, sigma 0.8
        var r = try run(["apply", "look.json", coffee, "a.png", "--set", "strength=0.9"])
        #expect(r.status == 0, "\(r.stderr)")
        r = try run(["apply", "literal.json", coffee, "b.png"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(bytes("a.png") != nil && bytes("a.png") == bytes("b.png"))
        r = try run(["apply", "look.json", coffee, "c.png"])
        #expect(bytes("c.png") != bytes("a.png"), "--set changed nothing")
        // steps: every step's image equals the literal chain's.
        r = try run(["steps", "look.json", coffee, "--output-dir", "s1", "--set", "strength=0.9"])
        #expect(r.status == 0, "\(r.stderr)")
        r = try run(["steps", "literal.json", coffee, "--output-dir", "s2"])
        #expect(r.status == 0, "\(r.stderr)")
        for (a, b) in zip(CLI.files(in: folder + "/s1"), CLI.files(in: folder + "/s2")) where !a.contains("01-") {
            #expect(bytes("s1/" + a) == bytes("s2/" + b), "\(a)")
        }
    }

    @Test func setIsCheckedAgainstTheChain() throws {
        _ = write(Self.look, "look.json")
        let coffee = CLI.samples + "/coffee.png"
        var r = try run(["apply", "look.json", coffee, "a.png", "--set", "strenght=0.9"])
        #expect(r.status == 64)
        #expect(r.stderr == "filterchain: error: --set: look.json: no variable 'strenght'; did you mean 'strength'? (declared: strength, long)\n")
        r = try run(["apply", "look.json", coffee, "a.png", "--set", "strength=1.5"])
        #expect(r.status == 64)
        #expect(r.stderr == "filterchain: error: --set: look.json: variables[0].value: strength = 1.5 is not allowed; allowed: a number in 0...1\n")
        r = try run(["apply", "look.json", coffee, "a.png", "--set", "strength"])
        #expect(r.status == 64)
        #expect(r.stderr.contains("--set 'strength': write NAME=VALUE with a number"))
        r = try run(["steps", "look.json", coffee, "--output-dir", "s", "--set", "gain=1"])
        #expect(r.status == 64)
        // A value that makes an expression that reads no size refuse: the chain's error.
        _ = write(Self.look.replacingOccurrences(of: "=1 + strength", with: "=1 / strength"), "inverse.json")
        r = try run(["apply", "inverse.json", coffee, "a.png", "--set", "strength=0"])
        #expect(r.status == 65)
        #expect(r.stderr.contains("inverse.json: filters[2].parameters.saturation: \"=1 / strength\", character 4: division by zero (line 7, column"))
        #expect(!FileManager.default.fileExists(atPath: folder + "/a.png"))
    }

    /// README's batch: one chain over images of three sizes, each blurred in proportion;
    /// --json says what each image took.
    @Test func aBatchReportsTheValuesEachImageTook() throws {
        _ = write(Self.look, "look.json")
        let images = ["coffee.png", "chelsea.png", "rocket.jpg"].map { CLI.samples + "/" + $0 }
        let r = try run(["apply", "look.json"] + images + ["--output-dir", "out", "--format", "png", "--json", "--set", "strength=0.25"])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.out.split(separator: "\n").map { try! JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        let byInput = Dictionary(uniqueKeysWithValues: lines.map { (($0["input"] as! String).split(separator: "/").last.map(String.init)!, $0) })
        for (name, height) in [("coffee.png", 400), ("chelsea.png", 300), ("rocket.jpg", 427)] {
            let line = try #require(byInput[name])
            #expect(line["variables"] as? [String: Double] == ["strength": 0.25, "long": 1600], "\(name)")
            let parameters = try #require(line["parameters"] as? [String: Double], "\(name)")
            #expect(parameters["filters[1].parameters.sigma"] == 0.002 * Double(height), "\(name)")
            #expect(parameters["filters[2].parameters.saturation"] == 1.25)
            #expect(parameters["filters[0].parameters.width"] == Double(line["width"] as! Int))
        }
    }

    /// A value out of range for one image fails that image (its name, the expression, the
    /// value, the range): in a batch exit 1 with the others written; alone, exit 65 (a chain
    /// error, as the issue's rule has it), nothing written.
    @Test func anImageOutOfRangeFailsAloneInABatch() throws {
        _ = write(#"{ "version": 2, "filters": [ { "id": "\#(Self.ids[0])", "type": "gaussianBlur", "parameters": { "sigma": "=width / 2" } } ] }"#, "half.json")
        let wide = folder + "/wide.png"
        let image = try RasterImage(width: 1100, height: 3, format: PixelFormat(.rgb, .eight), samples: Array(repeating: 99, count: 9900))
        _ = try Renderer(threads: 1).render(Chain(), image: image, outputs: [RenderOutput(step: 0, .file(.file(wide), EncodeOptions()))])
        let r = try run(["apply", "half.json", CLI.samples + "/coffee.png", wide, "--output-dir", "out", "--json"])
        #expect(r.status == 1)
        #expect(r.stderr.contains(#"filterchain: error: \#(wide): half.json: filters[0].parameters.sigma: "=width / 2" took 550 with this step's input 1100x3, which is not allowed; allowed: a number in 0...500 (line 1, column"#), "\(r.stderr)")
        #expect(r.stderr.contains("1 written, 1 failed"))
        #expect(CLI.files(in: folder + "/out") == ["coffee.png"])
        let failed = r.out.split(separator: "\n").first { $0.contains("wide.png") }
        #expect(failed?.contains(#""status":"failed""#) == true)
        // One image alone: the same message, exit 65, no output.
        let one = try run(["apply", "half.json", wide, "o.png"])
        #expect(one.status == 65 && one.stderr.contains("took 550"), "\(one.status) \(one.stderr)")
        #expect(!FileManager.default.fileExists(atPath: folder + "/o.png"))
    }

    @Test func chainVarAddSetRemove() throws {
        #expect(try run(["chain", "new", "v.json"]).status == 0)
        #expect(try run(["chain", "add", "v.json", "gaussianBlur", "--name", "blur"]).status == 0)
        var r = try run(["chain", "var", "add", "v.json", "strength", "0.5", "--min", "0", "--max", "1", "--help", "how strong"])
        #expect(r.status == 0, "\(r.stderr)")
        r = try run(["chain", "set", "v.json", "blur", "sigma==2*strength"])
        #expect(r.status == 0, "\(r.stderr)")
        r = try run(["chain", "var", "add", "v.json", "double", "=strength * 2"])
        #expect(r.status == 0, "\(r.stderr)")
        var chain = try Chain.load(folder + "/v.json")
        #expect(chain.variables.map(\.name) == ["strength", "double"])
        #expect(chain.variables[0] == ChainVariable(name: "strength", value: 0.5, minimum: 0, maximum: 1, help: "how strong"))
        #expect(chain.steps[0].computed["sigma"]?.expressions.first?.expression.text == "=2*strength")
        let text = try String(contentsOfFile: folder + "/v.json", encoding: .utf8)
        #expect(text.hasPrefix("{\n  \"version\": 2,\n  \"variables\": ["))
        #expect(text.contains("\"sigma\": \"=2*strength\""))

        // Edits that would make the chain invalid exit 65, as every chain edit's (issue 25);
        // a variable that names nothing is a usage error, 64.
        r = try run(["chain", "var", "remove", "v.json", "strength"])
        #expect(r.status == 65)
        #expect(r.stderr == "filterchain: error: v.json: variables[0]: the variable strength is read by variables[1] (double), step 1 (blur) in parameters.sigma; change or remove them first\n")
        r = try run(["chain", "var", "set", "v.json", "strength", "2"])
        #expect(r.status == 65)
        #expect(r.stderr.contains("variables[0].value: 2 is not allowed; allowed: a number in 0...1"))
        r = try run(["chain", "var", "set", "v.json", "strength", "0.75", "--max", "none"])
        #expect(r.status == 0, "\(r.stderr)")
        r = try run(["chain", "var", "add", "v.json", "width", "3"])
        #expect(r.status == 65 && r.stderr.contains("\"width\" cannot name a variable"))
        r = try run(["chain", "var", "add", "v.json", "later", "=1 + nope"])
        #expect(r.status == 65 && r.stderr.contains("unknown name 'nope'"))
        r = try run(["chain", "set", "v.json", "blur", "sigma==2*strenth"])
        #expect(r.status == 65 && r.stderr.contains("did you mean 'strength'?"))
        r = try run(["chain", "var", "set", "v.json", "strenght", "1"])
        #expect(r.status == 64, "\(r.stderr)")
        r = try run(["chain", "var", "remove", "v.json", "nothing"])
        #expect(r.status == 64, "\(r.stderr)")
        r = try run(["chain", "show", "v.json"])
        #expect(r.out.contains("variable strength = 0.75  (a number >= 0)  how strong\nvariable double = =strength * 2\n"), "\(r.out)")
        #expect(r.out.contains(#"{"sigma": "=2*strength"}"#))
        chain = try Chain.load(folder + "/v.json")
        #expect(chain.variables[0].maximum == nil)
        r = try run(["chain", "set", "v.json", "blur", "sigma=1"])
        #expect(try run(["chain", "var", "remove", "v.json", "double"]).status == 0)
        #expect(try run(["chain", "var", "remove", "v.json", "strength"]).status == 0)
        // With no variable or expression left, the file is version 1 again.
        #expect(try String(contentsOfFile: folder + "/v.json", encoding: .utf8).hasPrefix("{\n  \"version\": 1,"))
        r = try run(["chain", "var", "remove", "v.json", "strength"])
        #expect(r.status == 64 && r.stderr.contains("no variable 'strength' (the chain declares none)"))
    }

    @Test func validateChecksEverySizeAndReportsEveryError() throws {
        _ = write(Self.look, "look.json")
        var r = try run(["validate", "look.json"])
        #expect(r.status == 0)
        #expect(r.out == "look.json: valid, 3 steps; expressions checked for sources of 640x480, 1600x1200, 6000x4000 and 4000x6000\n")
        // sigma = height / 2 and saturation = width / 300 pass at 640 x 480 only (240, 2.13);
        // from 1600 wide (after the resize to at most 1600): 600 and 5.33, 533.5 and 5.33,
        // 1200 and 5.33.
        let bad = Self.look.replacingOccurrences(of: "=0.002 * min(width, height)", with: "=height / 2")
            .replacingOccurrences(of: "=1 + strength", with: "=width / 300")
        _ = write(bad, "bad.json")
        r = try run(["validate", "bad.json"])
        #expect(r.status == 65)
        let sigma = #"filters[1].parameters.sigma: "=height / 2" took"#
        let saturation = #"filters[2].parameters.saturation: "=width / 300" took 5.333333333333333 with this step's input"#
        let range = ", which is not allowed; allowed: a number in 0..."
        #expect(r.stderr.split(separator: "\n").map(String.init) == [
            "filterchain: error: bad.json: for a 1600x1200 source: \(sigma) 600 with this step's input 1600x1200\(range)500 (line 6, column 119)",
            "filterchain: error: bad.json: for a 1600x1200 source: \(saturation) 1600x1200\(range)4 (line 7, column 109)",
            "filterchain: error: bad.json: for a 6000x4000 source: \(sigma) 533.5 with this step's input 1600x1067\(range)500 (line 6, column 119)",
            "filterchain: error: bad.json: for a 6000x4000 source: \(saturation) 1600x1067\(range)4 (line 7, column 109)",
            "filterchain: error: bad.json: for a 4000x6000 source: \(sigma) 1200 with this step's input 1600x2400\(range)500 (line 6, column 119)",
            "filterchain: error: bad.json: for a 4000x6000 source: \(saturation) 1600x2400\(range)4 (line 7, column 109)",
        ], "\(r.stderr)")
        r = try run(["validate", "bad.json", "--size", "640x480"])
        #expect(r.status == 0, "\(r.stderr)")
        r = try run(["validate", "bad.json", "--size", "6000x4000", "--json"])
        #expect(r.status == 65)
        let object = try JSONSerialization.jsonObject(with: r.stdout) as! [String: Any]
        #expect(object["valid"] as? Bool == false)
        #expect(object["sizes"] as? [String] == ["6000x4000"])
        let errors = try #require(object["errors"] as? [[String: Any]])
        #expect(errors.map { $0["path"] as? String } == ["filters[1].parameters.sigma", "filters[2].parameters.saturation"])
        #expect(errors.first?["line"] as? Int == 6)
        r = try run(["validate", "look.json", "--size", "600"])
        #expect(r.status == 64)
        r = try run(["validate", "look.json", "--set", "strength=2"])
        #expect(r.status == 64)
    }
}
