import Foundation
import Testing
@testable import FilterChain

/// PngSuite against its decoded-pixel oracle (../shared/conformance/pngsuite/README).
@Suite struct PNGConformanceTests {
    static let valid = TestData.pngSuiteFiles().filter { !$0.hasPrefix("x") }
    static let corrupt = TestData.pngSuiteFiles().filter { $0.hasPrefix("x") }

    @Test func suiteIsPresent() {
        #expect(Self.valid.count == 161)
        #expect(Self.corrupt.count == 14)
    }

    @Test(arguments: valid)
    func decodesToTheOracle(name: String) throws {
        let path = TestData.pngSuite.appendingPathComponent("png/\(name).png").path
        let json = try Data(contentsOf: TestData.pngSuite.appendingPathComponent("json/\(name).json"))
        let oracle = try JSONDecoder().decode([Int].self, from: json)
        let (pixels, info) = try Pixels.read(path)
        #expect(pixels.rgba.count == oracle.count)
        #expect(pixels.rgba == oracle, "\(name): \(info.width)x\(info.height) \(info.format)")
    }

    @Test(arguments: corrupt)
    func rejectsCorruptFiles(name: String) throws {
        let path = TestData.pngSuite.appendingPathComponent("png/\(name).png").path
        #expect(throws: CodecError.self) { _ = try Pixels.read(path) }
    }
}
