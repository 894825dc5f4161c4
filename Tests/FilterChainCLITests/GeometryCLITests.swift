import Foundation
import Testing
import FilterChain

/// Geometry steps through the command line: chain files, chain editing, previews, batches.
@Suite struct GeometryCLITests {
    let folder = CLI.temporaryFolder()

    func chain(_ steps: [(String, [String])]) throws -> String {
        let path = folder + "/geo.json"
        try CLI.run(["chain", "new", path])
        for (type, parameters) in steps {
            let r = try CLI.run(["chain", "add", path, type] + parameters)
            #expect(r.status == 0, "\(r.stderr)")
        }
        return path
    }

    @Test func thumbnailChainWritesEachStepAtItsSize() throws {
        let chain = try chain([("resize", ["width=200", "height=200", "fit=cover"]), ("rotate", ["angle=90"]),
                               ("crop", ["x=0.25", "y=0", "width=0.5", "height=1", "unit=fraction"])])
        let r = try CLI.run(["apply", chain, CLI.samples + "/chelsea.png", "out.png",
                             "--preview", "1", "--preview-output", "p1.png"], in: folder)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try CLI.pixels(folder + "/p1.png").0.width == 200)
        let out = try CLI.pixels(folder + "/out.png").0
        #expect(out.width == 100 && out.height == 200)
        let steps = try CLI.run(["steps", chain, CLI.samples + "/chelsea.png", "--output-dir", "steps"], in: folder)
        #expect(steps.status == 0, "\(steps.stderr)")
        let sizes: [[Int]] = try CLI.files(in: folder + "/steps").map { try CLI.pixels(folder + "/steps/" + $0).0 }.map { [$0.width, $0.height] }
        #expect(sizes == [[451, 300], [200, 200], [200, 200], [100, 200]])
    }

    /// A bad combination is refused when the chain is edited and when a file has it (both
    /// invalid chain, 65), naming the step and what is allowed.
    @Test func badCombinationsAreRefused() throws {
        let path = try chain([("resize", ["width=100"])])
        let before = try String(contentsOfFile: path, encoding: .utf8)
        let set = try CLI.run(["chain", "set", path, "1", "scale=0.5"])
        #expect(set.status == 65)
        #expect(set.stderr == "filterchain: error: \(path): filters[0].parameters: resize: scale cannot be given with width; give width, height or both (fit only with both), or scale alone\n")
        #expect(try String(contentsOfFile: path, encoding: .utf8) == before, "the file is untouched")
        let add = try CLI.run(["chain", "add", path, "crop", "x=3"])
        #expect(add.status == 65 && add.stderr.contains("crop: width and height are required"), "\(add.stderr)")
        CLI.write(#"{"version": 1, "filters": [{"id": "0F6C1B9E-3C1A-4D2B-8E57-6A1F0B2C3D41", "type": "resize", "parameters": {"height": 10, "fit": "fill"}}]}"#,
                  to: folder + "/bad.json")
        let v = try CLI.run(["validate", "bad.json"], in: folder)
        #expect(v.status == 65)
        #expect(v.stderr.hasPrefix("filterchain: error: bad.json: filters[0].parameters: resize: fit needs both width and height"), "\(v.stderr)")
        let a = try CLI.run(["apply", "bad.json", CLI.samples + "/chelsea.png", "out.png"], in: folder)
        #expect(a.status == 65 && !FileManager.default.fileExists(atPath: folder + "/out.png"))
    }

    /// A crop that does not fit fails that image only: one line naming the file, the step,
    /// the rectangle and the size; the other images of a batch are written.
    @Test func cropOutsideFailsOnlyThatImage() throws {
        let path = try chain([("crop", ["x=100", "y=50", "width=400", "height=300"])])
        let one = try CLI.run(["apply", path, CLI.samples + "/chelsea.png", "out.png"], in: folder)
        #expect(one.status == 1)
        #expect(one.stderr == "filterchain: error: \(CLI.samples)/chelsea.png: step 1 (crop): the rectangle 400x300 at (100, 50) reaches outside the 451x300 image\n")
        #expect(CLI.files(in: folder).filter { $0.hasSuffix(".png") }.isEmpty)
        // rocket.jpg is 640x427: the crop fits.
        let batch = try CLI.run(["apply", path, CLI.samples + "/chelsea.png", CLI.samples + "/rocket.jpg",
                                 "--output-dir", "out", "--format", "png", "--json", "--quiet"], in: folder)
        #expect(batch.status == 1)
        #expect(CLI.files(in: folder + "/out") == ["rocket.png"])
        let lines = batch.out.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.contains(#""status":"written""#) && $0.contains(#""width":400,"height":300"#) }, "\(lines)")
        #expect(lines.contains { $0.contains(#""status":"failed""#) && $0.contains("reaches outside the 451x300 image") }, "\(lines)")
    }

    @Test func filtersListsTheGeometrySteps() throws {
        let r = try CLI.run(["filters"])
        for type in ["resize", "crop", "rotate", "flip"] { #expect(r.out.contains(type), "\(type)") }
        let json = try CLI.run(["filters", "--json"])
        #expect(json.out.contains(#""kind": "integer""#) && json.out.contains(#""kind": "boolean""#), "\(json.out.prefix(300))")
    }
}
