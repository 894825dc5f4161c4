import Foundation
import Testing
import FilterChain

/// `filterchain chain` and `validate` with chains that are graphs: images, inputs, masks and
/// references, named on the command line by position, id or name.
@Suite struct GraphChainTests {
    let folder = CLI.temporaryFolder()

    func run(_ arguments: [String]) throws -> CLI.Result { try CLI.run(arguments, in: folder) }

    func id(_ r: CLI.Result) -> String { r.out.trimmingCharacters(in: .whitespacesAndNewlines) }

    @Test func graphsAreBuiltFromScripts() throws {
        try FileManager.default.createDirectory(atPath: folder + "/chains", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder + "/art", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: CLI.samples + "/chelsea.png", toPath: folder + "/art/logo.png")
        #expect(try run(["chain", "new", "chains/c.json"]).status == 0)
        let image = try run(["chain", "image", "add", "chains/c.json", "art/logo.png", "--name", "logo"])
        #expect(image.status == 0, "\(image.stderr)")
        #expect(UUID(uuidString: id(image)) != nil)
        #expect(try run(["chain", "add", "chains/c.json", "gaussianBlur", "--name", "soft", "sigma=12"]).status == 0)
        // --input by position: 0 is the source.
        let glow = try run(["chain", "add", "chains/c.json", "blend", "--name", "glow", "--input", "0", "layer=1", "mode=screen", "opacity=0.6"])
        #expect(glow.status == 0, "\(glow.stderr)")
        let exposure = try run(["chain", "add", "chains/c.json", "exposure", "ev=0.5", "mask.type=radial", "mask.center=[0.5,0.45]",
                                "mask.radius=0.5", "mask.feather=0.4"])
        #expect(exposure.status == 0, "\(exposure.stderr)")
        let last = try run(["chain", "add", "chains/c.json", "blend", "layer=logo", "opacity=0.8", "placement.gravity=southEast",
                            "placement.offset=[24,24]"])
        #expect(last.status == 0, "\(last.stderr)")

        var chain = try Chain.load(folder + "/chains/c.json")
        // The file keeps the image relative to its own folder, and names, not positions.
        #expect(chain.images.map(\.file) == ["../art/logo.png"] && chain.images[0].image?.width == 451)
        #expect(chain.steps.map(\.input) == [nil, .source, nil, nil])
        #expect((chain.steps[1].filter as! Blend).layer == "soft")
        #expect(chain.steps[2].mask == Mask(.radial(center: ImagePoint(0.5, 0.45), radius: 0.5, feather: 0.4)))
        #expect((chain.steps[3].filter as! Blend).placement == Placement(gravity: .southEast, offset: (24, 24)))
        let text = try String(contentsOfFile: folder + "/chains/c.json", encoding: .utf8)
        #expect(text.hasPrefix("{\n  \"version\": 2,\n  \"images\": ["))
        #expect(try run(["validate", "chains/c.json"]).status == 0)

        // An unnamed step is kept by its id; the mask changes type, then goes.
        #expect(try run(["chain", "set", "chains/c.json", "4", "input=3", "mask.type=image", "mask.source=logo", "mask.channel=alpha"]).status == 0)
        chain = try Chain.load(folder + "/chains/c.json")
        #expect(chain.steps[3].input == Reference(chain.steps[2].id))
        #expect(chain.steps[3].mask == Mask(.image(source: "logo", channel: .alpha, placement: .default)))
        #expect(try run(["chain", "set", "chains/c.json", "4", "mask=null", "input=null"]).status == 0)
        chain = try Chain.load(folder + "/chains/c.json")
        #expect(chain.steps[3].mask == nil && chain.steps[3].input == nil)

        let show = try run(["chain", "show", "chains/c.json"])
        #expect(show.status == 0)
        #expect(show.out.contains("image ") && show.out.contains("logo  ../art/logo.png  451 x 300"))
        #expect(show.out.contains("input=source") && show.out.contains("mask={\"type\": \"radial\""))
    }

    /// `steps` and `--sheet` on a graph: every node is written, the ones the final image does
    /// not pass through too (soft is read only as a layer), each the same image `apply
    /// --preview` gives for it, and the chain's images are found relative to the chain file.
    @Test func stepsAndSheetShowEveryNodeOfAGraph() throws {
        try makeGraph()
        #expect(try run(["chain", "set", "c.json", "glow", "input=source", "mode=screen", "opacity=0.6"]).status == 0)
        let steps = try run(["steps", "c.json", CLI.samples + "/coffee.png", "--output-dir", "s", "--sheet", "sheet.png"])
        #expect(steps.status == 0, "\(steps.stderr)")
        let names = ["00-input.png", "01-soft.png", "02-glow.png", "03-exposure.png"]
        #expect(CLI.files(in: folder + "/s") == names)
        for (position, name) in names.enumerated() {
            let preview = try run(["apply", "c.json", CLI.samples + "/coffee.png", "out.png",
                                   "--preview", String(position), "--preview-output", "p\(position).png"])
            #expect(preview.status == 0, "\(preview.stderr)")
            #expect(try CLI.pixels(folder + "/s/" + name).1 == CLI.pixels(folder + "/p\(position).png").1, "\(name)")
            if position == 3 { #expect(try CLI.pixels(folder + "/s/" + name).1 == CLI.pixels(folder + "/out.png").1) }
        }
        // The blur is a node of its own, off the final image's path: neither the input nor the
        // glow, which screens it over the input.
        let soft = try CLI.pixels(folder + "/s/01-soft.png").1
        let input = try CLI.pixels(folder + "/s/00-input.png").1, glow = try CLI.pixels(folder + "/s/02-glow.png").1
        #expect(soft != input && soft != glow)
        // Four cells of 256 px in one row.
        let (sheet, _) = try CLI.pixels(folder + "/sheet.png")
        #expect(sheet.width == 1024)
    }

    /// soft (blur) <- glow (blend of soft), image logo read by the last step's mask.
    func makeGraph() throws {
        try FileManager.default.copyItem(atPath: CLI.samples + "/chelsea.png", toPath: folder + "/logo.png")
        #expect(try run(["chain", "new", "c.json"]).status == 0)
        #expect(try run(["chain", "image", "add", "c.json", "logo.png", "--name", "logo"]).status == 0)
        #expect(try run(["chain", "add", "c.json", "gaussianBlur", "--name", "soft"]).status == 0)
        #expect(try run(["chain", "add", "c.json", "blend", "--name", "glow", "layer=soft"]).status == 0)
        #expect(try run(["chain", "add", "c.json", "exposure", "mask.type=image", "mask.source=logo"]).status == 0)
    }

    @Test func editsThatBreakAReferenceAreRefusedAndNameTheSteps() throws {
        try makeGraph()
        let before = try String(contentsOfFile: folder + "/c.json", encoding: .utf8)
        let cases: [([String], [String])] = [
            (["chain", "remove", "c.json", "soft"], ["filters[0]: step 1 (soft) is read by step 2 (glow) in parameters.layer"]),
            (["chain", "move", "c.json", "soft", "--to", "3"], ["moving step 1 (soft) to 3 would break what steps read: step 2 (glow) reads step 1 (soft) in parameters.layer"]),
            (["chain", "move", "c.json", "glow", "--to", "1"], ["step 2 (glow) reads step 1 (soft)"]),
            (["chain", "image", "remove", "c.json", "logo"], ["image logo is read by step 3 (exposure) in mask.source"]),
            (["chain", "image", "remove", "c.json", "lgo"], ["\"lgo\" is not allowed; did you mean \"logo\"?"]),
            (["chain", "set", "c.json", "soft", "input=glow"],
             ["filters[0].input: \"glow\" is step 2 (glow), below step 1 (soft); a step may read only the source"]),
            (["chain", "set", "c.json", "glow", "layer=sofft"],
             ["\"sofft\" names nothing the step may read; did you mean \"soft\"? A step may read \"source\", the images (logo) and the steps above it (soft)"]),
            (["chain", "set", "c.json", "glow", "placement.gravity=up"], ["filters[1].parameters.placement.gravity", "\"southEast\""]),
            (["chain", "set", "c.json", "3", "mask.radius=0.4"], ["filters[2].mask.radius: unknown key 'radius'"]),
            (["chain", "set", "c.json", "3", "mask.type=radial", "mask.radius=3"], ["filters[2].mask.radius", "0...2"]),
            (["chain", "add", "c.json", "resize", "scale=0.5", "mask.type=radial"], ["filters[3].mask: step 4 (resize) cannot have a mask"]),
            (["chain", "set", "c.json", "soft", "--name", "source"], ["the name \"source\" is reserved"]),
            (["chain", "set", "c.json", "soft", "--name", "logo"], ["the name 'logo' is already used by images[0]"]),
            (["chain", "image", "add", "c.json", "logo.png", "--name", "glow"], ["images[1].name: the name 'glow' is already used by filters[1] (step 2)"]),
        ]
        for (arguments, fragments) in cases {
            let r = try run(arguments)
            // An edit that would make the chain invalid exits 65, as the chain file would;
            // an image REF naming nothing is the command line's mistake (64).
            let status: Int32 = arguments.contains("lgo") ? 64 : 65
            #expect(r.status == status, "\(arguments): \(r.stderr)")
            for fragment in fragments { #expect(r.stderr.contains(fragment), "\(arguments): '\(fragment)' not in \(r.stderr)") }
            #expect(try String(contentsOfFile: folder + "/c.json", encoding: .utf8) == before, "\(arguments)")
        }
        // A missing image makes the chain invalid: 65, as a bad .cube is.
        let missing = try run(["chain", "image", "add", "c.json", "none.png"])
        #expect(missing.status == 65 && missing.stderr.contains("images[1].file: cannot read the image none.png: no such file"), "\(missing.stderr)")
        // What is no longer read may go.
        #expect(try run(["chain", "set", "c.json", "3", "mask=null"]).status == 0)
        #expect(try run(["chain", "image", "remove", "c.json", "logo"]).status == 0)
        #expect(try run(["chain", "move", "c.json", "3", "--to", "1"]).status == 0)
        #expect(try Chain.load(folder + "/c.json").steps.map(\.label) == ["exposure", "soft", "glow"])
    }

    @Test func validateChecksReferencesAndImageFiles() throws {
        try makeGraph()
        #expect(try run(["validate", "c.json"]).status == 0)
        try FileManager.default.removeItem(atPath: folder + "/logo.png")
        let r = try run(["validate", "c.json"])
        #expect(r.status == 65)
        #expect(r.stderr.hasPrefix("filterchain: error: c.json: images[0].file: cannot read the image logo.png: no such file (line "), "\(r.stderr)")
        let json = try run(["validate", "c.json", "--json"])
        #expect(json.out.contains("\"path\": \"images[0].file\"") || json.out.contains("\"path\":\"images[0].file\""), "\(json.out)")

        let text = try String(contentsOfFile: folder + "/c.json", encoding: .utf8)
        CLI.write(text.replacingOccurrences(of: "\"layer\": \"soft\"", with: "\"layer\": \"glow\""), to: folder + "/self.json")
        try FileManager.default.copyItem(atPath: CLI.samples + "/chelsea.png", toPath: folder + "/logo.png")
        let own = try run(["validate", "self.json"])
        #expect(own.status == 65 && own.stderr.contains("filters[1].parameters.layer: \"glow\" is step 2 (glow), itself;"), "\(own.stderr)")
        CLI.write(text.replacingOccurrences(of: "\"version\": 2", with: "\"version\": 1"), to: folder + "/v1.json")
        let v1 = try run(["validate", "v1.json"])
        #expect(v1.status == 65 && v1.stderr.contains("images: \"images\" needs version 2; set \"version\": 2"), "\(v1.stderr)")
    }

    /// The editor's node positions ("layout") survive every chain command, and `chain set`
    /// places or unplaces a node.
    @Test func chainCommandsKeepAStepsLayout() throws {
        #expect(try run(["chain", "new", "c.json"]).status == 0)
        #expect(try run(["chain", "add", "c.json", "gaussianBlur", "--name", "soft"]).status == 0)
        #expect(try run(["chain", "add", "c.json", "exposure", "--name", "light"]).status == 0)
        let set = try run(["chain", "set", "c.json", "soft", "layout=[40,-12.5]"])
        #expect(set.status == 0, "\(set.stderr)")
        var text = try String(contentsOfFile: folder + "/c.json", encoding: .utf8)
        #expect(text.hasPrefix("{\n  \"version\": 2,") && text.contains("\"layout\": [40, -12.5]"))
        for command in [["chain", "set", "c.json", "soft", "sigma=3"], ["chain", "set", "c.json", "soft", "--name", "blur"],
                        ["chain", "disable", "c.json", "blur"], ["chain", "enable", "c.json", "blur"],
                        ["chain", "move", "c.json", "blur", "--to", "2"], ["chain", "add", "c.json", "invert", "--at", "1"],
                        ["chain", "remove", "c.json", "invert"]] {
            let r = try run(command)
            #expect(r.status == 0, "\(command): \(r.stderr)")
        }
        let chain = try Chain.load(folder + "/c.json")
        #expect(chain.steps.map(\.label) == ["light", "blur"])
        #expect(chain.steps.map { chain.layout[$0.id] } == [nil, NodePosition(40, -12.5)])
        // A value the chain cannot hold is a chain error (exit 65), as every invalid edit is.
        let bad = try run(["chain", "set", "c.json", "blur", "layout=[1]"])
        #expect(bad.status == 65 && bad.stderr.contains("filters[1].layout"), "\(bad.stderr)")
        #expect(try run(["chain", "set", "c.json", "blur", "layout=null"]).status == 0)
        text = try String(contentsOfFile: folder + "/c.json", encoding: .utf8)
        #expect(text.hasPrefix("{\n  \"version\": 1,") && !text.contains("layout"))
    }

    @Test func straightChainsStayVersionOne() throws {
        #expect(try run(["chain", "new", "c.json"]).status == 0)
        #expect(try run(["chain", "add", "c.json", "gaussianBlur", "--name", "soft"]).status == 0)
        #expect(try run(["chain", "add", "c.json", "exposure", "mask.type=radial"]).status == 0)
        #expect(try String(contentsOfFile: folder + "/c.json", encoding: .utf8).contains("\"version\": 2"))
        #expect(try run(["chain", "set", "c.json", "2", "mask=null"]).status == 0)
        let text = try String(contentsOfFile: folder + "/c.json", encoding: .utf8)
        #expect(text.hasPrefix("{\n  \"version\": 1,\n  \"filters\": [") && !text.contains("mask"))
    }
}
