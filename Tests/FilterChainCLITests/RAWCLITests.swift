import Foundation
import Testing
import FilterChain

/// Camera RAW through the command line: apply with each --raw- option, info's camera lines,
/// bad option values (exit 64), a damaged RAW (one error naming it, nothing written), and a
/// batch. (TestDNG.swift is the library tests' DNG writer, linked here.)
@Suite struct RAWCLITests {
    static let available = CodecRegistry.declaration(of: .raw).libraryProblem == nil
    static let empty = #"{"version": 1, "filters": []}"#

    static func dng(_ folder: String, _ name: String = "in.dng", orientation: Int = 1) throws -> TestDNG {
        let dng = TestDNG(width: 64, height: 48, orientation: orientation) { x, y in
            x < 32 ? [0.5, 0.3, 0.1] : [0.2, 0.3, 0.5]
        }
        try Data(dng.bytes).write(to: URL(fileURLWithPath: folder + "/" + name))
        return dng
    }

    @Test(.enabled(if: available))
    func applyInfoAndOptions() throws {
        let folder = CLI.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        _ = try Self.dng(folder, orientation: 6)
        CLI.write(Self.empty, to: folder + "/empty.json")
        for options in [[], ["--raw-wb", "auto"], ["--raw-wb", "5000K"], ["--raw-demosaic", "dcb"], ["--raw-highlights", "blend"]] {
            let r = try CLI.run(["apply", "empty.json", "in.dng", "out.png"] + options, in: folder)
            #expect(r.status == 0 && r.stderr.isEmpty, "\(options): \(r.stderr)")
            let out = try RasterImage(contentsOf: folder + "/out.png")
            #expect(out.width == 48 && out.height == 64, "\(options): orientation 6 turns it")
        }
        let info = try CLI.run(["info", "in.dng"], in: folder)
        #expect(info.out.contains("camera RAW, 48 x 64 (stored 64 x 48)"), "\(info.out)")
        #expect(info.out.contains("camera: Filterchain Test Camera; DNG 1.4.0.0; sensor 64 x 48, RGGB; black 512, white 16383"), "\(info.out)")
        #expect(info.out.contains("orientation: 6"), "\(info.out)")
        let json = try CLI.run(["info", "in.dng", "--json"], in: folder)
        #expect(json.out.contains(#""format":"raw""#) && json.out.contains(#""pattern":"RGGB""#), "\(json.out)")
        for (option, value) in [("--raw-wb", "1000"), ("--raw-wb", "tungsten"), ("--raw-demosaic", "vng"), ("--raw-highlights", "soft")] {
            let r = try CLI.run(["apply", "empty.json", "in.dng", "bad.png", option, value], in: folder)
            #expect(r.status == 64 && r.stderr.contains(option), "\(option) \(value): \(r.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: folder + "/bad.png"))
    }

    @Test(.enabled(if: available))
    func aDamagedRawIsOneErrorAndNothingWritten() throws {
        let folder = CLI.temporaryFolder()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let dng = try Self.dng(folder, "good.dng")
        try Data(dng.bytes.prefix(dng.bytes.count - 3000)).write(to: URL(fileURLWithPath: folder + "/cut.dng"))
        CLI.write(Self.empty, to: folder + "/empty.json")
        CLI.write("keep", to: folder + "/cut.png")
        let r = try CLI.run(["apply", "empty.json", "cut.dng", "cut.png"], in: folder)
        #expect(r.status == 1 && r.stderr.contains("cut.dng") && r.stderr.contains("truncated"), "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
        #expect(try String(contentsOfFile: folder + "/cut.png", encoding: .utf8) == "keep")
        // In a batch, the others are still written.
        let batch = try CLI.run(["apply", "empty.json", "good.dng", "cut.dng", "--output-dir", "out", "--format", "jpg"], in: folder)
        #expect(batch.status != 0 && batch.stderr.contains("cut.dng"))
        #expect(FileManager.default.fileExists(atPath: folder + "/out/good.jpg"))
        #expect(!FileManager.default.fileExists(atPath: folder + "/out/cut.jpg"))
    }
}
