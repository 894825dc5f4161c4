import Foundation
import Testing
@testable import FilterChain

/// What happens to a source profile that cannot describe an output, and to damaged embedded
/// profiles (Tests/Fixtures/icc: make-profiles.c and make-fixtures.py). The references are
/// the fixtures' formulas: the two test profiles read device (r, g, b) as the sRGB colour
/// (b, g, r), checked against lcms2 when they were made.
@Suite struct ColourProfileRuleTests {
    static let folder = TestData.fixtures.appendingPathComponent("icc")
    static let width = 24, height = 16

    /// The fixtures' pixel (x, y).
    static func pixel(_ x: Int, _ y: Int) -> [Int] { [10 * x + 5, 15 * y + 7, (x * y * 7) % 256] }

    static func render(_ name: String, options: EncodeOptions = EncodeOptions(), chain: Chain = Chain())
        throws -> (pixels: Pixels, info: ImageInfo, result: RenderResult) {
        let out = TestData.temporaryFolder().appendingPathComponent("out.png").path
        let result = try Renderer(threads: 2).render(chain, source: .file(folder.appendingPathComponent(name).path),
                                                     outputs: [RenderOutput(step: chain.steps.count, .file(.file(out), options))])
        let (pixels, info) = try Pixels.read(out)
        return (pixels, info, result)
    }

    /// The largest difference between an RGB output and `expected(x, y)`.
    static func worst(_ p: Pixels, _ expected: (Int, Int) -> [Int]) -> Int {
        var worst = 0
        for y in 0..<p.height {
            for x in 0..<p.width {
                let e = expected(x, y)
                for k in 0..<3 { worst = max(worst, abs(p.samples[(y * p.width + x) * p.format.channels.count + k] - e[k])) }
            }
        }
        return worst
    }

    /// The profiles: one with no output direction, one whose BToA0 does not invert its AToB0
    /// (as jpegli's XYB profile); and a LUT profile that does invert (the ICC's sRGB v4
    /// preference profile), for contrast.
    @Test func whichProfilesServeAsOutputs() throws {
        let lutOnly = try ColorProfile(iccData: [UInt8](Data(contentsOf: Self.folder.appendingPathComponent("lut-only.icc"))))
        let placeholder = try ColorProfile(iccData: [UInt8](Data(contentsOf: Self.folder.appendingPathComponent("placeholder.icc"))))
        let preference = try ICCData.profile("sRGB_v4_ICC_preference.icc")
        #expect(lutOnly.kind == .lut && placeholder.kind == .lut && preference.kind == .lut)
        #expect(lutOnly.roundTripError(intent: .relative) == nil)
        #expect(!lutOnly.servesAsOutput(intent: .relative))
        let e = try #require(placeholder.roundTripError(intent: .relative))
        #expect(e > 0.3, "\(e)")
        #expect(!placeholder.servesAsOutput(intent: .relative))
        for intent in RenderingIntent.allCases {
            let e = try #require(preference.roundTripError(intent: intent))
            #expect(e < 0.7 / 255 && preference.servesAsOutput(intent: intent), "\(intent): \(e * 255) levels")
            #expect(try #require(placeholder.roundTripError(intent: intent)) > 0.9, "\(intent)")
        }
        #expect(try ICCData.profile("DisplayP3-v4.icc").roundTripError(intent: .relative) == 0)
    }

    /// An input whose profile cannot describe an output is written as sRGB by default
    /// (`--output-profile source`), with a note naming the file and why, its colours those the
    /// profile gives: device (r, g, b) is sRGB (b, g, r). (It was written back with the
    /// placeholder profile, values unconverted, and refused outright for the LUT-only one.)
    @Test(arguments: ["placeholder.png", "placeholder.jpg", "lut-only.png"])
    func aSourceProfileThatCannotDescribeAnOutputGivesSRGB(_ name: String) throws {
        let (pixels, info, result) = try Self.render(name)
        #expect(info.metadata.iccProfile == nil && info.metadata.pngColor?.srgbIntent != nil, "\(info.metadata)")
        let why = name.hasPrefix("lut-only") ? "it has no output direction" : "its output direction does not undo its input direction"
        #expect(result.notes.contains { $0.hasPrefix(Self.folder.appendingPathComponent(name).path + ": its ICC profile cannot describe an output (" + why) },
                "\(result.notes)")
        // The JPEG's decoded samples differ from the formula by the compression's error.
        let source = try Pixels.read(Self.folder.appendingPathComponent(name).path).0
        let worst = Self.worst(pixels) { x, y in
            let i = (y * Self.width + x) * 3
            return [source.samples[i + 2], source.samples[i + 1], source.samples[i]]
        }
        #expect(worst <= 1, "\(name): \(worst) levels from the profile's colours")
        // The same with the conversion asked for by name.
        let srgb = try Self.render(name, options: EncodeOptions(outputProfile: .srgb))
        #expect(srgb.pixels == pixels)
        // In a Display P3 chain, Display P3 is written.
        var p3 = Chain()
        p3.workingSpace = .displayP3
        let wide = try Self.render(name, chain: p3)
        #expect(wide.info.metadata.iccProfile == ColorProfile.displayP3.iccData)
        #expect(wide.result.notes.contains { $0.contains("written as Display P3") }, "\(wide.result.notes)")
    }

    /// A profile that can describe an output is written back as before.
    @Test func aLUTProfileThatInvertsIsKept() throws {
        let path = TestData.conformance.appendingPathComponent("icc/tagged/chelsea_lut_srgb_v4_preference.jpg").path
        let out = TestData.temporaryFolder().appendingPathComponent("out.jpg").path
        let result = try Renderer(threads: 2).render(Chain(), source: .file(path), outputs: [RenderOutput(step: 0, .file(.file(out), EncodeOptions()))])
        let (_, info) = try Pixels.read(out)
        let (_, source) = try Pixels.read(path)
        #expect(info.metadata.iccProfile == source.metadata.iccProfile)
        #expect(!result.notes.contains { $0.contains("cannot describe an output") }, "\(result.notes)")
    }

    struct Damage: CustomStringConvertible, Sendable {
        var file: String
        /// What the note says, after the file's name.
        var note: String
        /// The colours are Display P3's (the damage spared the colour tags), else sRGB's.
        var usable: Bool
        var description: String { file }
    }

    /// Damaged embedded profiles are harmless damage: a note naming the file and what is
    /// wrong, never silence, never a failed render. What lcms2 can still use is used.
    static let damages = [
        Damage(file: "p3-desc-outside.jpg", note: "its ICC profile is damaged (its tag 'desc' lies outside it (bytes 544 to 578 of 480)); the rest of it was used",
               usable: true),
        Damage(file: "p3-rxyz-outside.jpg", note: "its ICC profile is damaged (its tag 'rXYZ' lies outside it (bytes 544 to 564 of 480)) and cannot be used; the pixels are taken as sRGB",
               usable: false),
        Damage(file: "p3-cut-short.jpg", note: "its ICC profile is damaged (it is cut short: 380 of the 480 bytes its header gives) and cannot be used; the pixels are taken as sRGB",
               usable: false),
        Damage(file: "p3-tag-count.jpg", note: "its ICC profile cannot be used (the ICC profile cannot be read (lcms2: Too many tags (1000))); the pixels are taken as sRGB",
               usable: false),
        Damage(file: "p3-cut-short.png", note: "its ICC profile cannot be used (libpng: ", usable: false),
        Damage(file: "p3-tag-count.png", note: "its ICC profile cannot be used (libpng: ", usable: false),
    ]

    @Test(arguments: damages)
    func aDamagedProfileIsNamedAndWhatCanBeUsedIsUsed(_ d: Damage) throws {
        let (pixels, _, result) = try Self.render(d.file, options: EncodeOptions(outputProfile: .srgb))
        let path = Self.folder.appendingPathComponent(d.file).path
        #expect(result.notes.contains { $0.hasPrefix(path + ": " + d.note) }, "\(result.notes)")
        let whole = try Self.render(d.file.hasSuffix(".png") ? "p3-whole.png" : "p3-whole.jpg", options: EncodeOptions(outputProfile: .srgb))
        #expect(whole.result.notes.isEmpty, "\(whole.result.notes)")
        if d.usable {
            #expect(pixels == whole.pixels)
        } else {
            // Taken as sRGB: the stored samples, unconverted.
            let stored = try Pixels.read(path).0
            #expect(Self.worst(pixels) { x, y in Array(stored.samples[((y * Self.width + x) * 3)..<((y * Self.width + x) * 3 + 3)]) } == 0)
            #expect(pixels != whole.pixels)
        }
    }
}
