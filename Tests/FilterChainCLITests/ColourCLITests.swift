import Foundation
import Testing
import FilterChain

/// `--output-profile` and `--intent` on the command line: what a person writing a wide-gamut
/// photograph for the web types.
@Suite struct ColourCLITests {
    let folder = CLI.temporaryFolder()
    static let p3JPEG = CLI.packageRoot.deletingLastPathComponent()
        .appendingPathComponent("shared/conformance/icc/tagged/coffee_displayp3.jpg").path

    func run(_ arguments: [String]) throws -> CLI.Result { try CLI.run(arguments, in: folder) }

    @Test func outputProfilesAndTheirErrors() throws {
        // source (the default) keeps the P3 profile; srgb writes the sRGB chunk in a PNG.
        #expect(try run(["apply", CLI.lookChain, Self.p3JPEG, "p3.png"]).status == 0)
        #expect(try CLI.pixels(folder + "/p3.png").0.metadata.iccColorSpace == "RGB ")
        let srgb = try run(["apply", CLI.lookChain, Self.p3JPEG, "srgb.png", "--output-profile", "srgb"])
        #expect(srgb.status == 0, "\(srgb.stderr)")
        let info = try CLI.pixels(folder + "/srgb.png").0
        #expect(info.metadata.iccProfile == nil && info.metadata.pngColor?.srgbIntent == 0)
        // The sRGB output is the P3 one converted: they differ, the P3 one is less saturated
        // read as sRGB (the washed-out look of an unconverted wide-gamut file).
        #expect(try CLI.pixels(folder + "/p3.png").1 != CLI.pixels(folder + "/srgb.png").1)
        for intent in ["perceptual", "relative", "saturation", "absolute"] {
            #expect(try run(["apply", CLI.lookChain, Self.p3JPEG, "i.jpg", "--output-profile", "srgb", "--intent", intent]).status == 0)
        }
        let cases: [([String], String)] = [
            (["--output-profile", "missing.icc"], "--output-profile: missing.icc: cannot read it: no such file or directory"),
            (["--output-profile", CLI.lookChain], "the ICC profile cannot be read (lcms2:"),
            (["--intent", "vivid"], "--intent: 'vivid' is not an intent; use perceptual, relative, saturation or absolute"),
        ]
        for (extra, message) in cases {
            let r = try run(["apply", CLI.lookChain, Self.p3JPEG, "bad.png"] + extra)
            #expect(r.status == 64 && r.stderr.contains(message), "\(extra): \(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: folder + "/bad.png"))
        }
    }

    /// `steps` writes every step in the output's colour and the sheet says so too.
    @Test func stepsAndSheetCarryTheOutputsColour() throws {
        let r = try run(["steps", CLI.lookChain, Self.p3JPEG, "--output-dir", "s", "--sheet", "sheet.png", "--output-profile", "displayP3"])
        #expect(r.status == 0, "\(r.stderr)")
        for file in CLI.files(in: folder + "/s") {
            #expect(try CLI.pixels(folder + "/s/" + file).0.metadata.iccProfile == ColorProfile.displayP3.iccData, "\(file)")
        }
        #expect(try CLI.pixels(folder + "/sheet.png").0.metadata.iccProfile == ColorProfile.displayP3.iccData)
    }
}
