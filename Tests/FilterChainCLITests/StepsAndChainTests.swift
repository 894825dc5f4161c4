import Foundation
import Testing
import FilterChain

@Suite struct StepsAndChainTests {
    let folder = CLI.temporaryFolder()

    @Test func stepsWritesEveryStepAndASheet() throws {
        var chain = try Chain.load(CLI.lookChain)
        chain.steps[1].enabled = false
        try chain.save(to: folder + "/chain.json")
        let r = try CLI.run(["steps", "chain.json", CLI.samples + "/chelsea.png", "--output-dir", "s", "--sheet", "sheet.png"], in: folder)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(CLI.files(in: folder + "/s") == ["00-input.png", "01-colour.png", "02-curve.png", "03-soften.png"])
        #expect(try CLI.pixels(folder + "/s/00-input.png").1 == CLI.pixels(CLI.samples + "/chelsea.png").1)
        // The disabled step leaves the image as it was.
        #expect(try CLI.pixels(folder + "/s/02-curve.png").1 == CLI.pixels(folder + "/s/01-colour.png").1)
        let a = try CLI.run(["apply", "chain.json", CLI.samples + "/chelsea.png", "final.png"], in: folder)
        #expect(a.status == 0)
        #expect(try CLI.pixels(folder + "/s/03-soften.png").1 == CLI.pixels(folder + "/final.png").1)
        let (sheet, _) = try CLI.pixels(folder + "/sheet.png")
        #expect(sheet.width >= 4 * 240 && sheet.height >= 160)
    }

    @Test func filtersListsEveryTypeFromTheDeclarations() throws {
        let r = try CLI.run(["filters"])
        #expect(r.status == 0)
        for info in FilterRegistry.infos {
            #expect(r.out.contains(info.type + ": " + info.summary))
            for p in info.parameters { #expect(r.out.contains("  " + p.name + "\n      " + p.help)) }
        }
        let one = try CLI.run(["filters", "gaussianBlur"])
        #expect(one.status == 0 && one.out.contains("ceil(4 sigma)") && !one.out.contains("toneCurve"))
        let json = try CLI.run(["filters", "--json"])
        let list = try JSONSerialization.jsonObject(with: json.stdout) as! [[String: Any]]
        #expect(list.map { $0["type"] as! String } == FilterRegistry.names)
        let sigma = (list[2]["parameters"] as! [[String: Any]])[0]
        #expect(sigma["name"] as? String == "sigma" && sigma["maximum"] as? Double == 500 && sigma["default"] as? Double == 2)
        // Parameters in pixels say so (a preview at another scale scales them).
        #expect(sigma["unit"] as? String == "pixels")
        #expect((list[0]["parameters"] as! [[String: Any]]).allSatisfy { $0["unit"] == nil })
        #expect(try CLI.run(["filters", "blur"]).status == 64)
    }

    @Test func chainEditingFromScripts() throws {
        #expect(try CLI.run(["chain", "new", "c.json"], in: folder).status == 0)
        #expect(try CLI.run(["chain", "new", "c.json"], in: folder).status == 64)
        let add1 = try CLI.run(["chain", "add", "c.json", "colorControls", "--name", "colour", "saturation=1.2"], in: folder)
        #expect(add1.status == 0, "\(add1.stderr)")
        let id1 = add1.out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(UUID(uuidString: id1) != nil)
        let add2 = try CLI.run(["chain", "add", "c.json", "gaussianBlur", "sigma=3"], in: folder)
        let id2 = add2.out.trimmingCharacters(in: .whitespacesAndNewlines)
        let add3 = try CLI.run(["chain", "add", "c.json", "toneCurve", "--at", "1", "points=[[0,0.1],[1,0.9]]", "interpolation=linear"], in: folder)
        #expect(add3.status == 0, "\(add3.stderr)")
        let id3 = add3.out.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try CLI.run(["chain", "set", "c.json", "colour", "contrast=1.1", "brightness=0.05"], in: folder).status == 0)
        #expect(try CLI.run(["chain", "move", "c.json", String(id2.prefix(6)), "--to", "1"], in: folder).status == 0)
        #expect(try CLI.run(["chain", "disable", "c.json", "3"], in: folder).status == 0)
        var chain = try Chain.load(folder + "/c.json")
        #expect(chain.steps.map(\.id) == [id2, id3, id1])
        #expect(chain.steps.map(\.enabled) == [true, true, false])
        let colour = chain.steps[2].filter as! ColorControls
        #expect(colour.saturation == 1.2 && colour.contrast == 1.1 && colour.brightness == 0.05)
        #expect((chain.steps[1].filter as! ToneCurve).interpolation == .linear)
        #expect(try CLI.run(["chain", "enable", "c.json", "colour"], in: folder).status == 0)

        // Bad values are refused with the chain's message, and the file is not touched.
        let before = try String(contentsOfFile: folder + "/c.json", encoding: .utf8)
        let bad = try CLI.run(["chain", "set", "c.json", "colour", "saturaton=2"], in: folder)
        #expect(bad.status == 64 && bad.stderr.contains("did you mean 'saturation'?"), "\(bad.stderr)")
        let range = try CLI.run(["chain", "set", "c.json", id2, "sigma=-1"], in: folder)
        #expect(range.status == 64 && range.stderr.contains("filters[0].parameters.sigma"), "\(range.stderr)")
        #expect(try CLI.run(["chain", "add", "c.json", "blur"], in: folder).status == 64)
        #expect(try String(contentsOfFile: folder + "/c.json", encoding: .utf8) == before)

        let show = try CLI.run(["chain", "show", "c.json"], in: folder)
        #expect(show.status == 0)
        let lines = show.out.split(separator: "\n")
        #expect(lines.count == 5 && lines[3].contains(String(id3.prefix(8))) && lines[4].contains("colour"))
        #expect(try CLI.run(["chain", "remove", "c.json", "colour"], in: folder).status == 0)
        chain = try Chain.load(folder + "/c.json")
        #expect(chain.steps.map(\.id) == [id2, id3])
        #expect(CLI.files(in: folder) == ["c.json"])
        // The edited chain runs.
        #expect(try CLI.run(["apply", "c.json", CLI.samples + "/chelsea.png", "o.png"], in: folder).status == 0)
    }
}

@Suite struct DocumentationTests {
    /// filters.md is generated from the declarations: it holds what `filters TYPE --markdown`
    /// prints for every type (regenerate with `sh samples/make-filters-md.sh`).
    @Test func filtersMarkdownMatchesTheDeclarations() throws {
        let doc = try String(contentsOfFile: CLI.packageRoot.appendingPathComponent("filters.md").path, encoding: .utf8)
        for type in FilterRegistry.names {
            let r = try CLI.run(["filters", type, "--markdown"])
            #expect(r.status == 0)
            #expect(doc.contains(r.out), "filters.md is out of date for \(type)")
            #expect(doc.contains("samples/filters/\(type)-after.jpg"))
            #expect(FileManager.default.fileExists(atPath: CLI.samples + "/filters/\(type)-after.jpg"))
        }
    }
}
