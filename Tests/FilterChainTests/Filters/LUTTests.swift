import Foundation
import Testing
@testable import FilterChain

/// The lut filter through the pipeline against the scalar reference.
@Suite struct LUTTests {
    static let folder = TestData.temporaryFolder()

    static func lut(size: Int, seed: UInt64, domain: String = "", intensity: Double = 1) throws -> LUT {
        let name = "t\(size)-\(seed).cube"
        _ = CubeLUTTests.writeFile(CubeLUTTests.randomTable(size: size, seed: seed, domain: domain), in: folder, name)
        return try LUT(file: name, intensity: intensity, relativeTo: folder.path)
    }

    static func settings() throws -> [LUT] {
        [try lut(size: 17, seed: 1), try lut(size: 33, seed: 2, intensity: 0.8),
         try lut(size: 2, seed: 3, domain: "DOMAIN_MIN 0.1 0.1 0.1\nDOMAIN_MAX 0.9 0.8 1\n"),
         try LUT(file: TestData.samples.appendingPathComponent("luts/warm-film.cube").path, intensity: 0.6)]
    }

    @Test(arguments: [false, true])
    func allEightBitValues(alpha: Bool) throws {
        for f in try Self.settings() { try Catalogue.check(f, Catalogue.allValues(alpha: alpha)) }
    }

    @Test func sixteenBitRamp() throws {
        for f in try Self.settings() { try Catalogue.checkWithin(f, Catalogue.ramp16(), maxDiff: 8) }
    }

    /// An identity table leaves every 8-bit value as it is; intensity 0 is the identity.
    @Test func neutral() throws {
        var text = "LUT_3D_SIZE 5\n"
        for b in 0..<5 { for g in 0..<5 { for r in 0..<5 { text += "\(Double(r) / 4) \(Double(g) / 4) \(Double(b) / 4)\n" } } }
        _ = CubeLUTTests.writeFile(text, in: Self.folder, "identity.cube")
        try Catalogue.expectIdentity(try LUT(file: "identity.cube", relativeTo: Self.folder.path))
        try Catalogue.expectIdentity(try Self.lut(size: 9, seed: 4, intensity: 0))
        Catalogue.checkNeutral(try Self.lut(size: 9, seed: 4))
        Catalogue.checkNeutral(try Self.lut(size: 9, seed: 4, intensity: 0))
    }

    @Test func refusals() {
        Catalogue.expectRefusal("lut", "\"intensity\": 1.5, \"file\": \"x.cube\"",
                                "look.json: filters[0].parameters.intensity: 1.5 is out of range; allowed 0...1")
    }

    /// A lut without a file is refused by a render (as a chain file without one is), and a
    /// lut with a file relative to another folder renders: its table was read when it was made.
    @Test func rendersCheckTheFile() throws {
        let input = Catalogue.allValues(alpha: false)
        do {
            _ = try FilterReferenceTests.renderer.apply(Chain([LUT()]), to: input.raster)
            Issue.record("a lut without a file was rendered")
        } catch {
            #expect("\(error)".contains("missing \"file\""), "\(error)")
        }
        _ = try FilterReferenceTests.renderer.apply(Chain([try Self.lut(size: 3, seed: 9)]), to: input.raster)
    }

    @Test func libraryInitialiserThrows() {
        #expect(throws: CubeLUTError(line: nil, "no such file")) { try LUT(file: "/nonexistent/look.cube") }
    }
}
