import Foundation
import Testing
import FilterChain

/// A bad .cube file makes the chain invalid everywhere (validate, apply, chain add/set):
/// one message naming the chain file, the JSON path, the LUT file and its line; exit 65;
/// nothing written. Paths are relative to the chain file's folder and kept as written.
@Suite struct LUTFileTests {
    let folder = CLI.temporaryFolder()

    /// film.cube: a 3D table of size 2 whose line 12 has two numbers.
    static let badCube = "# film\nTITLE \"film\"\n\nLUT_3D_SIZE 2\n\n0 0 0\n1 0 0\n0 1 0\n1 1 0\n0 0 1\n1 0 1\n0 1\n1 1 1\n"
    static let goodCube = "LUT_3D_SIZE 2\n0 0 0\n1 0 0\n0 1 0\n1 1 0\n0 0 1\n1 0 1\n0 1 1\n1 1 1\n"

    static func chain(lut file: String) -> String {
        """
        {
          "version": 1,
          "filters": [
            { "id": "0F6C1B9E-3C1A-4D2B-8E57-6A1F0B2C3D41", "type": "exposure", "parameters": { "ev": 0.3 } },
            { "id": "7A2D4E6F-8B9C-4A1D-9E2F-3B4C5D6E7F80", "type": "vibrance", "parameters": { "amount": 0.3 } },
            { "id": "C3D4E5F6-A7B8-4C9D-8E0F-1A2B3C4D5E6F", "type": "hueAdjust", "parameters": { "angle": 10 } },
            { "id": "5B1E2C3D-4F5A-4B6C-8D7E-9F0A1B2C3D4E", "type": "lut", "parameters": { "file": "\(file)", "intensity": 0.8 } }
          ]
        }

        """
    }

    static let message = "filterchain: error: look.json: filters[3].parameters.file: film.cube:12: expected 3 numbers, found 2\n"

    func setUp(lut: String = "film.cube") {
        CLI.write(Self.badCube, to: folder + "/film.cube")
        CLI.write(Self.goodCube, to: folder + "/good.cube")
        CLI.write(Self.chain(lut: lut), to: folder + "/look.json")
    }

    @Test func validate() throws {
        setUp()
        let r = try CLI.run(["validate", "look.json"], in: folder)
        #expect(r.status == 65)
        #expect(r.stderr == Self.message)
        let json = try CLI.run(["validate", "look.json", "--json"], in: folder)
        #expect(json.status == 65)
        #expect(json.out.contains("\"error\":\"film.cube:12: expected 3 numbers, found 2\",\"path\":\"filters[3].parameters.file\""))
    }

    @Test func apply() throws {
        setUp()
        let r = try CLI.run(["apply", "look.json", CLI.samples + "/coffee.png", "out.png"], in: folder)
        #expect(r.status == 65)
        #expect(r.stderr == Self.message)
        #expect(!CLI.files(in: folder).contains("out.png"))
    }

    @Test func missingFile() throws {
        setUp(lut: "luts/none.cube")
        let r = try CLI.run(["validate", "look.json"], in: folder)
        #expect(r.status == 65)
        let here = URL(fileURLWithPath: folder).resolvingSymlinksInPath().path
        #expect(r.stderr == "filterchain: error: look.json: filters[3].parameters.file: luts/none.cube: no such file (looked for \(here)/luts/none.cube; paths in a chain file are relative to its folder)\n")
        // From another folder: the path is resolved against the chain file's folder, and
        // the message says where that led.
        try FileManager.default.createDirectory(atPath: folder + "/looks", withIntermediateDirectories: true)
        CLI.write(Self.chain(lut: "luts/none.cube"), to: folder + "/looks/look.json")
        let elsewhere = try CLI.run(["apply", "looks/look.json", CLI.samples + "/coffee.png", "out.png"], in: folder)
        #expect(elsewhere.status == 65)
        #expect(elsewhere.stderr == "filterchain: error: looks/look.json: filters[3].parameters.file: luts/none.cube: no such file (looked for \(here)/looks/luts/none.cube; paths in a chain file are relative to its folder)\n")
    }

    @Test func chainAddAndSet() throws {
        setUp(lut: "good.cube")
        let before = try String(contentsOfFile: folder + "/look.json", encoding: .utf8)
        let add = try CLI.run(["chain", "add", "look.json", "lut", "file=film.cube"], in: folder)
        #expect(add.status == 65)
        #expect(add.stderr == Self.message.replacingOccurrences(of: "filters[3]", with: "filters[4]"))
        let set = try CLI.run(["chain", "set", "look.json", "4", "file=film.cube"], in: folder)
        #expect(set.status == 65)
        #expect(set.stderr == Self.message)
        #expect(try String(contentsOfFile: folder + "/look.json", encoding: .utf8) == before)
        let bare = try CLI.run(["chain", "add", "look.json", "lut"], in: folder)
        #expect(bare.status == 65)
        #expect(bare.stderr == "filterchain: error: lut needs file=... (see 'filterchain filters lut')\n")
    }

    /// Relative to the chain file's folder from any working directory; kept as written.
    @Test func pathsRelativeToTheChainFile() throws {
        try FileManager.default.createDirectory(atPath: folder + "/looks/luts", withIntermediateDirectories: true)
        CLI.write(Self.goodCube, to: folder + "/looks/luts/good.cube")
        CLI.write(Self.chain(lut: "luts/good.cube"), to: folder + "/looks/look.json")
        let r = try CLI.run(["apply", "looks/look.json", CLI.samples + "/coffee.png", "out.png"], in: folder)
        #expect(r.status == 0, "\(r.stderr)")
        let add = try CLI.run(["chain", "add", "looks/look.json", "lut", "file=luts/good.cube", "intensity=0.5"], in: folder)
        #expect(add.status == 0, "\(add.stderr)")
        let saved = try String(contentsOfFile: folder + "/looks/look.json", encoding: .utf8)
        #expect(saved.components(separatedBy: "\"file\": \"luts/good.cube\"").count == 3)
        let validate = try CLI.run(["validate", "look.json"], in: folder + "/looks")
        #expect(validate.status == 0, "\(validate.stderr)")
    }
}
