import Foundation
import Testing
@testable import FilterChain

/// Chain files version 2: images, a step's input and mask, and references that may only
/// point backwards, with every refusal at its JSON path.
@Suite struct GraphFileTests {
    static let logoID = "5B1E1B9E-3C1A-4D2B-8E57-6A1F0B2C3D41"
    static let softID = "0F6C1B9E-3C1A-4D2B-8E57-6A1F0B2C3D41"
    static let glowID = "7A2D4E6F-8B9C-4A1D-9E2F-3B4C5D6E7F80"
    static let exposureID = "C3D41B9E-3C1A-4D2B-8E57-6A1F0B2C3D41"
    static let lastID = "9E8F1B9E-3C1A-4D2B-8E57-6A1F0B2C3D41"

    /// The issue's example.
    static let example = """
        { "version": 2, "workingSpace": "srgb",
          "images": [ { "id": "\(logoID)", "name": "logo", "file": "logo.png" } ],
          "filters": [
            { "id": "\(softID)", "type": "gaussianBlur", "name": "soft", "parameters": { "sigma": 12 } },
            { "id": "\(glowID)", "type": "blend", "name": "glow", "input": "source",
              "parameters": { "layer": "soft", "mode": "screen", "opacity": 0.6 } },
            { "id": "\(exposureID)", "type": "exposure", "parameters": { "ev": 0.5 },
              "mask": { "type": "radial", "center": [0.5, 0.45], "radius": 0.5, "feather": 0.4 } },
            { "id": "\(lastID)", "type": "blend", "parameters": { "layer": "logo", "opacity": 0.8,
              "placement": { "gravity": "southEast", "offset": [24, 24] } } } ] }
        """

    let folder = TestData.temporaryFolder().path

    /// A 6 x 4 PNG, every pixel (r, g, b) = (40 x, 60 y, 200).
    static let logo: RasterImage = {
        var samples: [Int] = []
        for y in 0..<4 { for x in 0..<6 { samples += [40 * x, 60 * y, 200] } }
        return try! RasterImage(width: 6, height: 4, format: PixelFormat(.rgb, .eight), samples: samples)
    }()

    func write(_ text: String, _ name: String = "chain.json") -> String {
        let path = folder + "/" + name
        try! text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func writeLogo(_ name: String = "logo.png") throws {
        try Self.logo.write(to: folder + "/" + name)
    }

    /// The example, with `edit` applied to its text, read from the folder.
    func load(_ edit: (String) -> String = { $0 }) throws(ChainError) -> Chain {
        try Chain.load(write(edit(Self.example)))
    }

    func error(_ edit: (String) -> String) throws -> ChainError {
        try writeLogo()
        return try #require(throws: ChainError.self) { try load(edit) }
    }

    // MARK: - Reading

    @Test func theIssuesExampleReads() throws {
        try writeLogo()
        let chain = try load()
        #expect(chain.images.count == 1 && chain.images[0].name == "logo" && chain.images[0].file == "logo.png")
        #expect(chain.images[0].image?.pixels == Self.logo.pixels && chain.images[0].image?.width == 6)
        #expect(chain.steps.map(\.input) == [nil, .source, nil, nil])
        let glow = try #require(chain.steps[1].filter as? Blend)
        #expect(glow.layer == "soft" && glow.mode == .screen && glow.opacity == 0.6 && glow.placement.isDefault)
        let last = try #require(chain.steps[3].filter as? Blend)
        #expect(last.placement == Placement(gravity: .southEast, offset: (24, 24)) && last.mode == .normal)
        #expect(chain.steps[2].mask == Mask(.radial(center: ImagePoint(0.5, 0.45), radius: 0.5, feather: 0.4)))
        // What each step reads.
        #expect((0..<4).map(chain.inputNode(ofStep:)) == [.source, .source, .step(1), .step(2)])
        #expect(chain.resolve("soft", from: 1) == .step(0) && chain.resolve("logo", from: 0) == .image(0))
        #expect(chain.resolve("soft", from: 0) == nil)
        try chain.validate()
    }

    @Test func referencesUseIdsInAnyCaseOrNames() throws {
        try writeLogo()
        let chain = try load {
            $0.replacingOccurrences(of: "\"layer\": \"soft\"", with: "\"layer\": \"\(Self.softID.lowercased())\"")
                .replacingOccurrences(of: "\"layer\": \"logo\"", with: "\"layer\": \"\(Self.logoID.lowercased())\"")
                .replacingOccurrences(of: "\"input\": \"source\"", with: "\"input\": \"\(Self.softID)\"")
        }
        #expect(chain.inputNode(ofStep: 1) == .step(0))
        #expect(chain.resolve((chain.steps[1].filter as! Blend).layer, from: 1) == .step(0))
        #expect(chain.resolve((chain.steps[3].filter as! Blend).layer, from: 3) == .image(0))
        // Kept as written.
        #expect((chain.steps[1].filter as! Blend).layer.text == Self.softID.lowercased())
    }

    @Test func imagesAreReadRelativeToTheChainFileAndTurnedUpright() throws {
        try FileManager.default.createDirectory(atPath: folder + "/art", withIntermediateDirectories: true)
        // A 6 x 4 JPEG whose EXIF orientation (6) turns it a quarter: upright it is 4 x 6.
        let exif = ExifFixture.make(orientation: 6)
        var turned = Self.logo
        turned.metadata = ImageMetadata(exif: exif)
        try turned.write(to: folder + "/art/logo.jpg", options: EncodeOptions(quality: 95))
        let path = write(Self.example.replacingOccurrences(of: "\"logo.png\"", with: "\"../art/logo.jpg\""), "sub.json")
        try FileManager.default.createDirectory(atPath: folder + "/chains", withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: path, toPath: folder + "/chains/c.json")
        let chain = try Chain.load(folder + "/chains/c.json")
        let image = try #require(chain.images[0].image)
        #expect((image.width, image.height) == (4, 6))
        #expect(chain.images[0].file == "../art/logo.jpg")
    }

    @Test func imagesAreDecodedOncePerProcess() throws {
        try writeLogo("shared.png")
        let a = try ImageFileCache.image(at: folder + "/shared.png")
        // Relative and absolute paths to one file share the entry.
        #expect(ImageFileCache.absolute("x.png").hasPrefix("/"))
        // A changed file is read again.
        var other = Self.logo
        other.pixels[0] = 255
        try other.write(to: folder + "/shared.png")
        // Same size and, on a coarse clock, the same time: make the time differ.
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: 10)], ofItemAtPath: folder + "/shared.png")
        let b = try ImageFileCache.image(at: folder + "/shared.png")
        #expect(a.pixels == Self.logo.pixels && b.pixels == other.pixels)
    }

    @Test func aChainOnlyCheckedDoesNotReadImages() throws {
        let chain = try ChainDecoder(file: write(Self.example), context: ParameterContext(directory: folder, readsFiles: false))
            .chain(JSONParser.parse(Array(Self.example.utf8)))
        #expect(chain.images[0].image == nil)
        // Rendering needs the pixels: validate says so, and loadImages reads them.
        var loaded = chain
        let error = try #require(throws: ChainError.self) { try chain.validate(file: "c.json") }
        #expect(error.path == "images[0].file" && error.problem == .imageNotLoaded(file: "logo.png"))
        try writeLogo()
        try loaded.loadImages(relativeTo: folder)
        #expect(loaded.images[0].image?.pixels == Self.logo.pixels)
        try loaded.validate()
    }

    // MARK: - Writing

    @Test func versionTwoRoundTrips() throws {
        try writeLogo()
        let chain = try load()
        let text = chain.jsonText
        #expect(text.hasPrefix("{\n  \"version\": 2,\n  \"images\": [\n    {\n      \"id\": \"\(Self.logoID)\",\n      \"name\": \"logo\",\n      \"file\": \"logo.png\"\n    }\n  ],\n  \"filters\": ["))
        let again = try Chain.load(write(text, "again.json"))
        #expect(again.jsonText == text)
        #expect(again.steps.map(\.id) == chain.steps.map(\.id))
        #expect(again.steps.map(\.mask) == chain.steps.map(\.mask))
        #expect(again.steps.map(\.input) == chain.steps.map(\.input))
        // input and mask come after enabled and before parameters; a mask has every field.
        #expect(text.contains("""
                  "name": "glow",
                  "input": "source",
                  "parameters": {
            """))
        #expect(text.contains("""
                  "mask": {
                    "type": "radial",
                    "center": [0.5, 0.45],
                    "radius": 0.5,
                    "feather": 0.4,
                    "invert": false,
                    "opacity": 1
                  },
                  "parameters": {
            """))
    }

    @Test func chainsWithoutTheGraphAreWrittenAsVersionOneUnchanged() throws {
        // Every sample chain (version 1) is written back byte for byte as it was read... as
        // today's writer writes it: version 1, no images, no input, no mask.
        var versionOne = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: TestData.samples.path + "/chains") {
            let path = TestData.samples.path + "/chains/" + name
            // The graph samples (glow, watermark, masks) and those with variables
            // (look-strength, relative-blur) are version 2 files.
            guard !(try String(contentsOfFile: path, encoding: .utf8)).contains("\"version\": 2") else {
                // A version 2 sample reads back from its own text unchanged.
                let chain = try Chain.load(path)
                #expect(chain.usesGraph || chain.usesExpressions, "\(name)")
                #expect(try Chain.parse(Array(chain.jsonText.utf8), file: path).jsonText == chain.jsonText, "\(name)")
                continue
            }
            versionOne += 1
            let chain = try Chain.load(path)
            #expect(!chain.usesGraph)
            #expect(chain.jsonText.hasPrefix("{\n  \"version\": 1,"), "\(name)")
            #expect(!chain.jsonText.contains("\"images\"") && !chain.jsonText.contains("\"input\"") && !chain.jsonText.contains("\"mask\""))
        }
        #expect(versionOne >= 20)
        let text = """
            {
              "version": 1,
              "workingSpace": "linear",
              "filters": [
                {
                  "id": "0F6C1B9E-3C1A-4D2B-8E57-6A1F0B2C3D41",
                  "type": "gaussianBlur",
                  "name": "soft",
                  "enabled": false,
                  "parameters": {
                    "sigma": 2
                  }
                }
              ]
            }

            """
        #expect(try Chain.parse(Array(text.utf8), file: "c.json").jsonText == text)
        // A version 2 file that uses none of the graph is written as version 1.
        let two = text.replacingOccurrences(of: "\"version\": 1", with: "\"version\": 2")
        #expect(try Chain.parse(Array(two.utf8), file: "c.json").jsonText == text)
    }

    // MARK: - Layout (where the editor's graph view draws a step)

    /// A step's "layout" is kept as read, written last in the step, and makes the file
    /// version 2; the engine ignores it; a version 1 file with it is told to set version 2.
    @Test func aStepsLayoutIsAVersionTwoKeyKeptAsWritten() throws {
        let text = """
            {
              "version": 2,
              "filters": [
                {
                  "id": "\(Self.softID)",
                  "type": "gaussianBlur",
                  "name": "soft",
                  "parameters": {
                    "sigma": 2
                  },
                  "layout": [120.5, -40]
                },
                {
                  "id": "\(Self.glowID)",
                  "type": "exposure",
                  "parameters": {
                    "ev": 0.5
                  }
                }
              ]
            }

            """
        let chain = try Chain.parse(Array(text.utf8), file: "c.json")
        #expect(chain.steps.map { chain.layout[$0.id] } == [NodePosition(120.5, -40), nil])
        #expect(!chain.usesGraph && chain.needsVersion2)
        #expect(chain.jsonText == text)
        // Without it, the same chain is version 1 again.
        var plain = chain
        plain.layout[plain.steps[0].id] = nil
        #expect(plain.jsonText.hasPrefix("{\n  \"version\": 1,") && !plain.jsonText.contains("layout"))
        // Edits keep it.
        var edited = chain
        try edited.setParameter(at: 0, "sigma", to: JSONNode(.number(3)), file: "c.json")
        try edited.moveStep(from: 0, to: 1, file: "c.json")
        #expect(edited.steps.map { edited.layout[$0.id] } == [nil, NodePosition(120.5, -40)])
        // It changes no pixel.
        let image = try RasterImage(width: 8, height: 6, format: PixelFormat(.rgb, .eight),
                                    samples: (0..<(8 * 6 * 3)).map { ($0 * 37) % 256 })
        let renderer = Renderer(threads: 1)
        #expect(try renderer.apply(chain, to: image) == renderer.apply(plain, to: image))
        // Version 1 does not know it.
        let v1 = text.replacingOccurrences(of: "\"version\": 2", with: "\"version\": 1")
        let e = try #require(throws: ChainError.self) { try Chain.parse(Array(v1.utf8), file: "c.json") }
        #expect(e.path == "filters[0].layout" && e.problem == .needsVersion2("\"layout\""), "\(e)")
        #expect(e.line == 11)
    }

    static let layoutErrors: [(String, ChainError.Problem)] = [
        ("[1]", .wrongType(expected: "a position [x, y] in the editor's graph view", found: "[1]")),
        ("\"top\"", .wrongType(expected: "a position [x, y] in the editor's graph view", found: "\"top\"")),
        ("[1, 2, 3]", .wrongType(expected: "a position [x, y] in the editor's graph view", found: "[1, 2, 3]")),
        ("[1, 2e7]", .outOfRange(2e7, -1_000_000...1_000_000)),
    ]

    @Test(arguments: layoutErrors)
    func aBadLayoutIsRefusedAtItsPath(_ test: (String, ChainError.Problem)) throws {
        let (json, problem) = test
        let text = #"{"version": 2, "filters": [{"id": "\#(Self.softID)", "type": "exposure", "layout": \#(json)}]}"#
        let e = try #require(throws: ChainError.self) { try Chain.parse(Array(text.utf8), file: "c.json") }
        let path = problem == .outOfRange(2e7, -1_000_000...1_000_000) ? "filters[0].layout[1]" : "filters[0].layout"
        #expect(e.path == path, "\(e)")
        #expect(e.problem == problem, "\(e)")
    }

    // MARK: - Refusals

    static let readable = "A step may read \"source\", the images (logo) and the steps above it (soft)"

    @Test func anUnknownReferenceSaysWhatTheStepMayRead() throws {
        let e = try error { $0.replacingOccurrences(of: "\"layer\": \"soft\"", with: "\"layer\": \"sofft\"") }
        #expect(e.path == "filters[1].parameters.layer")
        #expect(e.problem == .unknownReference("sofft", suggestion: "soft",
                                               readable: "\"source\", the images (logo) and the steps above it (soft)"))
        #expect(e.description.hasPrefix(#"\#(folder)/chain.json: filters[1].parameters.layer: "sofft" names nothing the step may read; did you mean "soft"? "# + Self.readable))
        #expect(e.line == 6)
        // Far from every name: no suggestion; unnamed steps are counted.
        let far = try error {
            $0.replacingOccurrences(of: "\"layer\": \"logo\"", with: "\"layer\": \"watermark\"")
                .replacingOccurrences(of: "\"type\": \"gaussianBlur\", \"name\": \"soft\"", with: "\"type\": \"gaussianBlur\"")
                .replacingOccurrences(of: "\"layer\": \"soft\"", with: "\"layer\": \"\(Self.softID)\"")
        }
        #expect(far.path == "filters[3].parameters.layer")
        #expect(far.message == #""watermark" names nothing the step may read; a step may read "source", the images (logo) and the steps above it (glow, 2 unnamed, by id)"#)
    }

    @Test func aReferenceToItselfOrALaterStepNamesBothSteps() throws {
        let forward = try error { $0.replacingOccurrences(of: "\"name\": \"soft\", \"parameters\"", with: "\"name\": \"soft\", \"input\": \"glow\", \"parameters\"") }
        #expect(forward.path == "filters[0].input")
        #expect(forward.message == #""glow" is step 2 (glow), below step 1 (soft); a step may read only the source, the images and the steps above it"#)
        #expect(forward.problem == .laterReference("glow", target: 2, targetLabel: "glow", step: 1, stepLabel: "soft"))
        let own = try error { $0.replacingOccurrences(of: "\"layer\": \"soft\"", with: "\"layer\": \"\(Self.glowID.lowercased())\"") }
        #expect(own.path == "filters[1].parameters.layer")
        #expect(own.message.hasPrefix("\"\(Self.glowID.lowercased())\" is step 2 (glow), itself; a step may read only"))
        let mask = try error {
            $0.replacingOccurrences(of: #"{ "type": "radial", "center": [0.5, 0.45], "radius": 0.5, "feather": 0.4 }"#,
                                    with: #"{ "type": "image", "source": "\#(Self.lastID)" }"#)
        }
        #expect(mask.path == "filters[2].mask.source")
        #expect(mask.problem == .laterReference(Self.lastID, target: 4, targetLabel: "blend", step: 3, stepLabel: "exposure"))
    }

    static let identityCases: [(String, String, String, ChainError.Problem)] = [
        ("\"name\": \"soft\"", "\"name\": \"logo\"", "filters[0].name", .duplicateName("logo", first: "images[0]")),
        ("\"id\": \"\(softID)\"", "\"id\": \"\(logoID.lowercased())\"", "filters[0].id", .duplicateID(logoID.lowercased(), first: "images[0]")),
        ("\"name\": \"logo\"", "\"name\": \"source\"", "images[0].name", .reservedName("source")),
        ("\"name\": \"glow\"", "\"name\": \"source\"", "filters[1].name", .reservedName("source")),
        ("\"name\": \"glow\"", "\"name\": \"soft\"", "filters[1].name", .duplicateName("soft", first: "filters[0] (step 1; this is step 2)")),
    ]

    @Test(arguments: identityCases)
    func idsAndNamesAreUniqueAcrossStepsAndImages(_ test: (String, String, String, ChainError.Problem)) throws {
        let (old, new, path, problem) = test
        let e = try error { $0.replacingOccurrences(of: old, with: new) }
        #expect(e.path == path, "\(e)")
        #expect(e.problem == problem, "\(e)")
        #expect(e.line != nil)
    }

    @Test func aVersionOneFileWithVersionTwoKeysIsToldToSetVersion2() throws {
        let e = try error { $0.replacingOccurrences(of: "\"version\": 2", with: "\"version\": 1") }
        #expect(e.path == "images" && e.problem == .needsVersion2("\"images\""))
        #expect(e.message.contains("set \"version\": 2"))
        let v1 = #"{"version": 1, "filters": [{"id": "\#(Self.softID)", "type": "exposure", "input": "source"}]}"#
        let input = try #require(throws: ChainError.self) { try Chain.parse(Array(v1.utf8), file: "c.json") }
        #expect(input.path == "filters[0].input" && input.problem == .needsVersion2("\"input\""))
        let mask = v1.replacingOccurrences(of: "\"input\": \"source\"", with: #""mask": {"type": "radial"}"#)
        #expect(throws: ChainError.self) { try Chain.parse(Array(mask.utf8), file: "c.json") }
        let blend = #"{"version": 1, "filters": [{"id": "\#(Self.softID)", "type": "blend", "parameters": {"layer": "source"}}]}"#
        let b = try #require(throws: ChainError.self) { try Chain.parse(Array(blend.utf8), file: "c.json") }
        #expect(b.path == "filters[0].type" && b.problem == .needsVersion2("the blend filter"))
        // Versions past 2 are refused as before.
        let three = try #require(throws: ChainError.self) { try Chain.parse(Array(#"{"version": 3, "filters": []}"#.utf8), file: "c.json") }
        #expect(three.problem == .unsupportedVersion("3") && three.message.contains("reads versions 1 and 2"))
    }

    @Test func aMissingOrDamagedImageIsAChainErrorAtItsPath() throws {
        let missing = try #require(throws: ChainError.self) { try load() }
        #expect(missing.path == "images[0].file" && missing.problem == .imageFile(file: "logo.png", reason: "no such file"))
        #expect(missing.description.contains("images[0].file: cannot read the image logo.png: no such file (line 2"))
        try "not an image at all".write(toFile: folder + "/logo.png", atomically: true, encoding: .utf8)
        let damaged = try #require(throws: ChainError.self) { try load() }
        #expect(damaged.path == "images[0].file")
        guard case .imageFile(_, let reason) = damaged.problem else { Issue.record("\(damaged)"); return }
        #expect(reason.contains("unsupported format"))
    }

    @Test func aMaskOnAGeometryStepIsRefused() throws {
        let text = #"{"version": 2, "filters": [{"id": "\#(Self.softID)", "type": "resize", "name": "small", "mask": {"type": "radial"}, "parameters": {"scale": 0.5}}]}"#
        let e = try #require(throws: ChainError.self) { try Chain.parse(Array(text.utf8), file: "c.json") }
        #expect(e.path == "filters[0].mask" && e.problem == .maskOnGeometryStep(step: 1, label: "small", type: "resize"))
        #expect(e.message.hasPrefix("step 1 (small) cannot have a mask: resize is a geometry step"))
        for filter in [Crop() as any Filter, Rotate(), Flip()] {
            let chain = Chain(steps: [Step(filter: filter, mask: Mask(.radial(center: ImagePoint(0.5, 0.5), radius: 1, feather: 0.5)))])
            #expect(throws: ChainError.self) { try chain.validate() }
        }
    }

    // MARK: - Masks

    static func mask(_ json: String) throws(ChainError) -> Mask? {
        let text = #"{"version": 2, "filters": [{"id": "\#(Self.softID)", "type": "exposure", "mask": \#(json)}]}"#
        return try Chain.parse(Array(text.utf8), file: "c.json").steps[0].mask
    }

    static let maskDefaults: [(String, Mask)] = [
        (#"{"type": "linear"}"#, Mask(.linear(from: ImagePoint(0, 0), to: ImagePoint(0, 1)))),
        (#"{"type": "radial"}"#, Mask(.radial(center: ImagePoint(0.5, 0.5), radius: 1, feather: 0.5))),
        (#"{"type": "luminance"}"#, Mask(.luminance(low: 0.5, high: 1, feather: 0.1))),
        (#"{"type": "image", "source": "source"}"#, Mask(.image(source: .source, channel: .luminance, placement: .default))),
        (#"{"type": "linear", "from": [0.2, -0.5], "to": [1.5, 1], "invert": true, "opacity": 0.25}"#,
         Mask(.linear(from: ImagePoint(0.2, -0.5), to: ImagePoint(1.5, 1)), invert: true, opacity: 0.25)),
        (#"{"type": "radial", "center": [0, 1], "radius": 2, "feather": 0}"#, Mask(.radial(center: ImagePoint(0, 1), radius: 2, feather: 0))),
        (#"{"type": "luminance", "range": [0.2, 0.2], "feather": 1}"#, Mask(.luminance(low: 0.2, high: 0.2, feather: 1))),
        (#"{"type": "image", "source": "source", "channel": "alpha", "placement": {"fit": "cover", "gravity": "north"}}"#,
         Mask(.image(source: .source, channel: .alpha, placement: Placement(fit: .cover, gravity: .north)))),
    ]

    @Test(arguments: maskDefaults)
    func masksReadWithTheirDefaultsAndRoundTrip(_ test: (String, Mask)) throws {
        let (json, expected) = test
        let mask = try Self.mask(json)
        #expect(mask == expected)
        #expect(try Self.mask(JSONWriter.compact(expected.jsonNode)) == expected)
    }

    static let maskErrors: [(String, String, ChainError.Problem)] = [
        (#"{"radius": 1}"#, "filters[0].mask", .missingKey("type")),
        (#"{"type": "radail"}"#, "filters[0].mask.type",
         .notAllowed("\"radail\"", allowed: #"one of "linear", "radial", "luminance", "image""#, suggestion: "radial")),
        (#"{"type": "radial", "radius": 2.5}"#, "filters[0].mask.radius", .outOfRange(2.5, 0...2)),
        (#"{"type": "radial", "feather": -0.1}"#, "filters[0].mask.feather", .outOfRange(-0.1, 0...1)),
        (#"{"type": "radial", "center": [0.5, 1.2]}"#, "filters[0].mask.center[1]", .outOfRange(1.2, 0...1)),
        (#"{"type": "radial", "opacity": 1.5}"#, "filters[0].mask.opacity", .outOfRange(1.5, 0...1)),
        (#"{"type": "radial", "invert": 1}"#, "filters[0].mask.invert", .wrongType(expected: "true or false", found: "a number")),
        (#"{"type": "radial", "from": [0, 0]}"#, "filters[0].mask.from",
         .unknownKey("from", suggestion: nil, allowed: ["type", "center", "radius", "feather", "invert", "opacity"])),
        (#"{"type": "linear", "from": [0.5, 0.5], "to": [0.5, 0.5]}"#, "filters[0].mask",
         .combination("linear mask: from and to are the same point [0.5, 0.5]; they must differ (the ramp runs from one to the other)")),
        (#"{"type": "linear", "to": [3, 0]}"#, "filters[0].mask.to[0]", .outOfRange(3, -1...2)),
        (#"{"type": "luminance", "range": [0.8, 0.2]}"#, "filters[0].mask.range",
         .notAllowed("[0.8, 0.2]", allowed: "[low, high] with low <= high", suggestion: nil)),
        (#"{"type": "luminance", "range": [0, 1.1]}"#, "filters[0].mask.range[1]", .outOfRange(1.1, 0...1)),
        (#"{"type": "image"}"#, "filters[0].mask", .missingKey("source")),
        (#"{"type": "image", "source": "source", "channel": "luma"}"#, "filters[0].mask.channel",
         .notAllowed("\"luma\"", allowed: #"one of "luminance", "alpha", "red", "green", "blue""#, suggestion: nil)),
        (#"{"type": "image", "source": "logo"}"#, "filters[0].mask.source",
         .unknownReference("logo", suggestion: nil, readable: "\"source\", the images (none) and the steps above it (none)")),
        (#""radial""#, "filters[0].mask", .wrongType(expected: "an object { \"type\": ..., ... }", found: "a string")),
    ]

    @Test(arguments: maskErrors)
    func maskValuesAreCheckedAtTheirPaths(_ test: (String, String, ChainError.Problem)) throws {
        let (json, path, problem) = test
        let e = try #require(throws: ChainError.self) { try Self.mask(json) }
        #expect(e.path == path, "\(e)")
        #expect(e.problem == problem, "\(e)")
    }

    @Test func masksSetInCodeAreCheckedBeforeRendering() throws {
        let chain = Chain(steps: [Step(filter: Exposure(), mask: Mask(.radial(center: ImagePoint(0.5, 0.5), radius: 3, feather: 0.5)))])
        let e = try #require(throws: ChainError.self) { try chain.validate() }
        #expect(e.path == "filters[0].mask.radius" && e.problem == .outOfRange(3, 0...2) && e.line == nil)
        let backwards = Chain(steps: [Step(filter: Blend(layer: "later")), Step(name: "later", filter: Exposure())])
        let b = try #require(throws: ChainError.self) { try backwards.validate() }
        #expect(b.path == "filters[0].parameters.layer" && b.problem == .laterReference("later", target: 2, targetLabel: "later", step: 1, stepLabel: "blend"))
    }
}
