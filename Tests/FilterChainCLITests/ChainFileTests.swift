import Foundation
import Testing
import FilterChain

/// Every chain-file error names the file, the JSON path, the bad value and what is allowed,
/// and exits 65 without writing anything.
@Suite struct ChainFileTests {
    let folder = CLI.temporaryFolder()

    static let id1 = "0F6C1B9E-3C1A-4D2B-8E57-6A1F0B2C3D41"
    static let id2 = "7A2D4E6F-8B9C-4A1D-9E2F-3B4C5D6E7F80"

    static func chain(_ filters: String, extra: String = "") -> String {
        "{\n  \"version\": 1,\(extra)\n  \"filters\": [\(filters)]\n}\n"
    }

    static let cases: [(String, String, [String])] = [
        ("{ \"version\": 1, \"filters\": [ }", "syntax", ["invalid JSON", "line 1, column"]),
        (chain("", extra: " \"colour\": 1,"), "unknown key", ["unknown key 'colour'"]),
        (chain("{\"id\": \"\(id1)\", \"type\": \"colourControls\"}"), "type",
         ["filters[0].type", "unknown filter type 'colourControls'", "did you mean 'colorControls'?"]),
        (chain("{\"id\": \"\(id1)\", \"type\": \"colorControls\", \"parameters\": {\"saturaton\": 1}}"), "parameter",
         ["filters[0].parameters.saturaton: unknown parameter 'saturaton'; did you mean 'saturation'?"]),
        (chain("{\"id\": \"\(id1)\", \"type\": \"gaussianBlur\", \"parameters\": {\"sigma\": 501}}"), "range",
         ["filters[0].parameters.sigma", "501", "0...500", "line 3"]),
        (chain("{\"id\": \"\(id1)\", \"type\": \"gaussianBlur\", \"parameters\": {\"sigma\": \"2\"}}"), "type",
         ["filters[0].parameters.sigma", "expected", "string"]),
        (chain("{\"id\": \"\(id1)\", \"type\": \"gaussianBlur\", \"parameters\": {\"sigma\": 1e999}}"), "finite",
         ["invalid JSON", "1e999", "too large", "line 3"]),
        (chain("{\"id\": \"\(id1)\", \"type\": \"gaussianBlur\"}, {\"id\": \"\(id1.lowercased())\", \"type\": \"gaussianBlur\"}"),
         "duplicate", ["filters[1].id", "already used"]),
        (chain("{\"id\": \"not-a-uuid\", \"type\": \"gaussianBlur\"}"), "uuid", ["filters[0].id", "not a UUID", "uuidgen"]),
        (chain("{\"type\": \"gaussianBlur\"}"), "missing", ["filters[0]", "missing \"id\"", "uuidgen", "filterchain chain add"]),
        (chain("{\"id\": \"\(id1)\", \"type\": \"gaussianBlur\", \"name\": \"pop\"}, {\"id\": \"\(id2)\", \"type\": \"colorControls\", \"name\": \"pop\"}"),
         "duplicate name", ["filters[1].name", "the name 'pop' is already used by filters[0] (step 1; this is step 2)", "line 3"]),
        ("{\"version\": 3, \"filters\": []}", "version", ["version 3", "reads versions 1 and 2"]),
        ("{\"filters\": []}", "version missing", ["missing \"version\""]),
        (chain("{\"id\": \"\(id1)\", \"type\": \"toneCurve\", \"parameters\": {\"points\": [[0, 0], [0.5, 0.2], [0.4, 1]]}}"),
         "points", ["filters[0].parameters.points[2][0]", "strictly increasing"]),
        (chain("{\"id\": \"\(id1)\", \"type\": \"toneCurve\", \"parameters\": {\"interpolation\": \"cubic\"}}"),
         "choice", ["filters[0].parameters.interpolation", "\"monotone\""]),
        (chain("", extra: " \"workingSpace\": \"lab\","), "space", ["workingSpace", "\"linear\""]),
        (chain("{\"id\": \"\(id1)\", \"type\": \"gaussianBlur\", \"enabled\": \"yes\"}"), "enabled", ["filters[0].enabled"]),
    ]

    @Test func everyChainErrorGivesItsMessageAndExit65() throws {
        for (i, (text, label, fragments)) in Self.cases.enumerated() {
            let path = "bad\(i).json"
            CLI.write(text, to: folder + "/" + path)
            let r = try CLI.run(["apply", path, CLI.samples + "/chelsea.png", "out.png"], in: folder)
            #expect(r.status == 65, "\(label): \(r.stderr)")
            #expect(r.stderr.hasPrefix("filterchain: error: \(path): "), "\(label): \(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count == 1, "\(label): \(r.stderr)")
            for fragment in fragments { #expect(r.stderr.contains(fragment), "\(label): '\(fragment)' not in \(r.stderr)") }
            let v = try CLI.run(["validate", path], in: folder)
            #expect(v.status == 65 && v.stderr == r.stderr, "\(label)")
        }
        #expect(!CLI.files(in: folder).contains("out.png"))
    }

    @Test func missingChainFileAndEmptyChain() throws {
        let r = try CLI.run(["apply", "none.json", CLI.samples + "/chelsea.png", "out.png"], in: folder)
        #expect(r.status == 65 && r.stderr.contains("none.json") && r.stderr.contains("no such file"))
        // An empty chain re-encodes the input: PNG to PNG is lossless.
        CLI.write(Self.chain(""), to: folder + "/empty.json")
        #expect(try CLI.run(["apply", "empty.json", CLI.samples + "/chelsea.png", "same.png"], in: folder).status == 0)
        #expect(try CLI.pixels(folder + "/same.png").1 == CLI.pixels(CLI.samples + "/chelsea.png").1)
    }

    @Test func validateManyFilesWithJSON() throws {
        CLI.write(Self.cases[3].0, to: folder + "/bad.json")
        let r = try CLI.run(["validate", CLI.lookChain, "bad.json", "--json"], in: folder)
        #expect(r.status == 65)
        let lines = r.out.split(separator: "\n").map { try! JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any] }
        #expect(lines.count == 2)
        #expect(lines[0]["valid"] as? Bool == true && lines[0]["steps"] as? Int == 3)
        #expect(lines[1]["valid"] as? Bool == false && lines[1]["path"] as? String == "filters[0].parameters.saturaton")
        #expect(try CLI.run(["validate", CLI.lookChain]).status == 0)
    }

    /// `validate` reports every independent problem, one line each with its path, line and
    /// column (the library's `Chain.problems`, tested against the loader in
    /// ChainProblemsTests), up to 20; `--json` lists them in "errors".
    @Test func validateReportsEveryProblem() throws {
        let text = """
            {
              "version": 1, "workingSpace": "srbg",
              "filters": [
                { "id": "\(Self.id1)", "type": "colorControls", "parameters": { "saturation": 9, "contrast": -1 } },
                { "id": "\(Self.id2)", "type": "gaussianBlur", "parameters": { "sigma": -2 } }
              ]
            }
            """
        CLI.write(text, to: folder + "/three.json")
        let r = try CLI.run(["validate", "three.json"], in: folder)
        #expect(r.status == 65)
        #expect(r.stderr == """
            filterchain: error: three.json: workingSpace: "srbg" is not allowed; did you mean "srgb"?; allowed: one of "srgb", "linear", "displayP3", "linearDisplayP3", "linearRec2020" (line 2, column 33)
            filterchain: error: three.json: filters[0].parameters.saturation: 9 is out of range; allowed 0...4 (line 4, column 108)
            filterchain: error: three.json: filters[0].parameters.contrast: -1 is out of range; allowed 0...4 (line 4, column 123)
            filterchain: error: three.json: filters[1].parameters.sigma: -2 is out of range; allowed 0...500 (line 5, column 102)

            """, "\(r.stderr)")
        let json = try CLI.run(["validate", "three.json", "--json"], in: folder)
        let object = try JSONSerialization.jsonObject(with: json.stdout) as! [String: Any]
        let errors = object["errors"] as! [[String: Any]]
        #expect(errors.map { $0["path"] as! String } == ["workingSpace", "filters[0].parameters.saturation",
                                                         "filters[0].parameters.contrast", "filters[1].parameters.sigma"])
        #expect(errors.map { $0["line"] as! Int } == [2, 4, 4, 5])
        #expect(object["path"] as? String == "workingSpace" && object["more"] as? Bool == false)
        // Over 20: the first 20, and a line that says there are more.
        let many = (0..<25).map { "{ \"id\": \"0F6C1B9E-3C1A-4D2B-8E57-6A1F0B2C\(String(format: "%04X", $0))\", \"type\": \"gaussianBlur\", \"parameters\": { \"sigma\": -1 } }" }
        CLI.write("{ \"version\": 1, \"filters\": [\n" + many.joined(separator: ",\n") + "] }", to: folder + "/many.json")
        let m = try CLI.run(["validate", "many.json"], in: folder)
        let lines = m.stderr.split(separator: "\n")
        #expect(m.status == 65 && lines.count == 21, "\(m.stderr)")
        #expect(lines.last == "many.json: more problems not shown; the first 20 are above")
        let mj = try JSONSerialization.jsonObject(with: try CLI.run(["validate", "many.json", "--json"], in: folder).stdout) as! [String: Any]
        #expect((mj["errors"] as! [Any]).count == 20 && mj["more"] as? Bool == true)
    }

    @Test func chainModelRoundTripsThroughJSON() throws {
        for path in try FileManager.default.contentsOfDirectory(atPath: CLI.samples + "/chains") {
            let chain = try Chain.load(CLI.samples + "/chains/" + path)
            // In the same folder: a lut's .cube path is relative to the chain file's folder.
            let again = try Chain.parse(Array(chain.jsonText.utf8), file: CLI.samples + "/chains/again.json")
            #expect(again.jsonText == chain.jsonText)
            #expect(again.steps.map(\.id) == chain.steps.map(\.id))
        }
    }
}
