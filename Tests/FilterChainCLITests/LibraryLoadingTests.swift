import Foundation
import Testing

/// On Linux, libtiff, libavif, libheif (with libde265), libjxl and LibRaw are loaded when a file first needs
/// them, not at every start (CDynamic's fc_dynamic.h): a JPEG or PNG run never maps them, and
/// when one cannot be loaded, only the files that need it fail, with one line that names the
/// file, the format and the library, and nothing is written.
@Suite(.enabled(if: CLI.isLinux)) struct LibraryLoadingTests {
    let folder = CLI.temporaryFolder()
    static let conformance = CLI.packageRoot.deletingLastPathComponent().appendingPathComponent("shared/conformance").path
    static let lazyLibraries = ["libtiff", "libavif", "libheif", "libde265", "libraw_r", "libjxl"]

    /// The libraries the dynamic loader opens during the run (its LD_DEBUG=files lines).
    static func loaded(_ r: CLI.Result) -> [String] {
        r.stderr.split(separator: "\n").compactMap { line -> String? in
            guard let range = line.range(of: "file=") else { return nil }
            return String(line[range.upperBound...].prefix { $0 != " " && $0 != "[" })
        }
    }

    @Test func aJPEGOrPNGRunLoadsNoneOfThem() throws {
        var environment = ProcessInfo.processInfo.environment
        environment["LD_DEBUG"] = "files"
        let jpeg = try CLI.run(["apply", CLI.lookChain, CLI.samples + "/chelsea.png", "out.jpg"], in: folder, environment: environment)
        #expect(jpeg.status == 0)
        let png = try CLI.run(["apply", CLI.lookChain, "out.jpg", "out.png"], in: folder, environment: environment)
        #expect(png.status == 0)
        for r in [jpeg, png] {
            let libraries = Self.loaded(r)
            #expect(libraries.contains { $0.hasPrefix("libjpeg") }, "LD_DEBUG said nothing: \(r.stderr.prefix(300))")
            for lazy in Self.lazyLibraries {
                #expect(!libraries.contains { $0.hasPrefix(lazy + ".") }, "\(lazy) loaded: \(libraries)")
            }
        }
        // A TIFF run loads libtiff (and not the HEIF or AVIF libraries).
        let tiff = try CLI.run(["apply", CLI.lookChain, "out.png", "out.tif"], in: folder, environment: environment)
        #expect(tiff.status == 0)
        let libraries = Self.loaded(tiff)
        #expect(libraries.contains { $0.hasPrefix("libtiff.") })
        #expect(!libraries.contains { $0.hasPrefix("libheif.") || $0.hasPrefix("libavif.") || $0.hasPrefix("libraw_r.") })
    }

    /// Stand-ins that are no libraries (empty files) under every name the loader tries, first
    /// in the search path: TIFF, AVIF and HEIC fail by name, JPEG and PNG work.
    @Test func aLibraryThatCannotBeLoadedFailsOnlyItsFormat() throws {
        let fakes = folder + "/fakes"
        try FileManager.default.createDirectory(atPath: fakes, withIntermediateDirectories: true)
        for name in ["libtiff.so.6", "libtiff.so", "libavif.so.15", "libavif.so.16", "libavif.so", "libheif.so.1", "libheif.so",
                     "libraw_r.so.20", "libraw_r.so.23", "libraw_r.so"] {
            _ = FileManager.default.createFile(atPath: fakes + "/" + name, contents: Data())
        }
        var environment = ProcessInfo.processInfo.environment
        environment["LD_LIBRARY_PATH"] = fakes
        let before = Data("an older file".utf8)
        let inputs = [("TIFF", "libtiff.so.6", Self.conformance + "/tiff/" + (try firstFile("tiff", suffix: ".tif"))),
                      ("AVIF", "libavif.so", Self.conformance + "/avif/files/pillow_hopper.avif"),
                      ("HEIF", "libheif.so.1", Self.conformance + "/heif/" + (try firstFile("heif", suffix: ".heic"))),
                      ("camera RAW", "libraw_r.so.20", folder + "/in.dng")]
        try Data(TestDNG(width: 32, height: 32) { _, _ in [0.3, 0.3, 0.3] }.bytes).write(to: URL(fileURLWithPath: folder + "/in.dng"))
        for (format, library, input) in inputs {
            try before.write(to: URL(fileURLWithPath: folder + "/out.png"))
            let r = try CLI.run(["apply", CLI.lookChain, input, "out.png"], in: folder, environment: environment)
            #expect(r.status == 1, "\(format): \(r.stderr)")
            let lines = r.stderr.split(separator: "\n")
            #expect(lines.count == 1 && lines[0].hasPrefix("filterchain: error: \(input): \(format) needs a library that cannot be used here: lib"),
                    "\(r.stderr)")
            #expect(r.stderr.contains(library), "\(r.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/out.png")) == before, "out.png was touched")
        }
        for (format, output) in [("TIFF", "new.tif"), ("AVIF", "new.avif")] {
            let r = try CLI.run(["apply", CLI.lookChain, CLI.samples + "/chelsea.png", output], in: folder, environment: environment)
            #expect(r.status == 1, "\(format): \(r.stderr)")
            #expect(r.stderr.contains("\(output): \(format) needs a library that cannot be used here"), "\(r.stderr)")
            #expect(!CLI.files(in: folder).contains(output))
        }
        // `formats` says which formats cannot be used here, and why.
        let formats = try CLI.run(["formats", "--json"], environment: environment)
        let list = try #require(try JSONSerialization.jsonObject(with: formats.stdout) as? [[String: Any]])
        let problems = Dictionary(uniqueKeysWithValues: list.map { ($0["format"] as? String ?? "", $0["libraryProblem"] as? String) })
        #expect(problems["tiff"]??.hasPrefix("libtiff.so.6 cannot be loaded: ") == true, "\(problems)")
        #expect(problems["avif"]??.contains("cannot be loaded") == true && problems["heif"]??.contains("libheif.so.1") == true, "\(problems)")
        #expect(problems["raw"]??.contains("libraw_r.so.20") == true, "\(problems)")
        #expect(problems["png"] == .some(nil) && problems["jpeg"] == .some(nil) && problems["webp"] == .some(nil), "\(problems)")
        let text = try CLI.run(["formats", "tiff"], environment: environment)
        #expect(text.out.contains("  NOT USABLE HERE: libtiff.so.6 cannot be loaded: "), "\(text.out)")
        let usable = try CLI.run(["formats", "--json"])
        let all = try #require(try JSONSerialization.jsonObject(with: usable.stdout) as? [[String: Any]])
        #expect(all.count == 9 && all.allSatisfy { $0["libraryProblem"] is NSNull }, "\(all.map { $0["libraryProblem"] ?? "" })")
        let jpeg = try CLI.run(["apply", CLI.lookChain, CLI.samples + "/chelsea.png", "fine.jpg"], in: folder, environment: environment)
        #expect(jpeg.status == 0, "\(jpeg.stderr)")
        let webp = try CLI.run(["apply", CLI.lookChain, "fine.jpg", "fine.webp"], in: folder, environment: environment)
        #expect(webp.status == 0, "\(webp.stderr)")
    }

    /// A file of the conformance folder `format` (its path there) that its manifest says must decode.
    func firstFile(_ format: String, suffix: String) throws -> String {
        let manifest = try String(contentsOfFile: Self.conformance + "/\(format)/manifest.tsv", encoding: .utf8)
        let names = manifest.split(separator: "\n").compactMap { line -> String? in
            let fields = line.split(separator: "\t").map(String.init)
            guard fields.count > 1, fields[0].hasSuffix(suffix), fields.dropFirst().contains("decode") else { return nil }
            return fields[0]
        }
        return try #require(names.sorted().first, "no \(suffix) in \(format)/manifest.tsv that must decode")
    }
}
