import Foundation
import Testing
@testable import FilterChain

/// Rows no step changes go to the outputs as decoded (`ImageRun.UntouchedRows`): a layer
/// blended over an 8-bit RGB image leaves every row outside its own as it was, and those rows
/// are copied instead of converted to float and back. The images are the same bytes as with
/// every row converted (the copy turned off), at every placement, partly outside the image
/// too, and through two outputs at once; the rows copied are exactly those the layer misses.
/// A chain whose steps touch every row, or an output that converts colour, copies none.
/// (Serialized: the switch that turns the copy off is the process's.)
@Suite(.serialized) struct UntouchedRowsTests {
    static let size = (width: 211, height: 157)

    static func base() throws -> RasterImage {
        let p = Pixels.random(width: size.width, height: size.height, format: PixelFormat(.rgb, .eight), seed: 31)
        return try RasterImage(width: p.width, height: p.height, format: p.format, samples: p.samples)
    }

    /// A 37 x 23 RGBA layer with alpha all over its range, written once.
    static let layer: String = {
        let p = Pixels.random(width: 37, height: 23, format: PixelFormat(.rgba, .eight), seed: 32)
        let path = TestData.temporaryFolder().appendingPathComponent("layer.png").path
        try! RasterImage(width: p.width, height: p.height, format: p.format, samples: p.samples).write(to: path)
        return path
    }()

    static func chain(_ steps: String) throws -> Chain {
        let json = """
            { "version": 2, "workingSpace": "srgb",
              "images": [ { "id": "00000000-0000-4000-8000-000000000100", "name": "logo", "file": "\(layer)" } ],
              "filters": [\(steps)] }
            """
        let file = TestData.temporaryFolder().appendingPathComponent("chain.json").path
        try json.write(toFile: file, atomically: true, encoding: .utf8)
        return try Chain.load(file)
    }

    static func blend(mode: String, placement: String) -> String {
        """
        { "id": "00000000-0000-4000-8000-000000000001", "type": "blend",
          "parameters": { "layer": "logo", "mode": "\(mode)", "opacity": 0.7, "placement": \(placement) } }
        """
    }

    /// Both outputs (the source as decoded, and after the chain) with the copy allowed or not.
    static func render(_ chain: Chain, steps: Int, copying: Bool, outputs: [RenderOutput]? = nil) throws -> (images: [[UInt8]], passed: Int) {
        ImageRun.UntouchedRows.allowed.store(copying, ordering: .relaxed)
        defer { ImageRun.UntouchedRows.allowed.store(true, ordering: .relaxed) }
        let result = try Renderer(threads: 2, stripHeight: 7).render(
            chain, image: try base(),
            outputs: outputs ?? [RenderOutput(step: 0, .memory(depth: .eight)), RenderOutput(step: steps, .memory(depth: .eight))])
        return (try result.images.map { try #require($0).pixels }, result.rowsPassedAsDecoded)
    }

    /// (placement, the rows the layer covers).
    static let placements: [(String, Range<Int>)] = [
        (#"{ "gravity": "southEast", "offset": [24, 24] }"#, (157 - 24 - 23)..<(157 - 24)),
        (#"{ "gravity": "northWest", "offset": [-5, -9] }"#, 0..<14),
        (#"{ "gravity": "south", "offset": [0, -10] }"#, (157 - 13)..<157),
        (#"{ "gravity": "center" }"#, 67..<90),
        (#"{ "gravity": "north", "offset": [3, 200] }"#, 0..<0),
    ]

    @Test(arguments: ["normal", "multiply", "screen"], 0..<5)
    func blendedImagesAreTheSameAsEveryRowConverted(mode: String, placement: Int) throws {
        let (json, covered) = Self.placements[placement]
        let chain = try Self.chain(Self.blend(mode: mode, placement: json))
        let copied = try Self.render(chain, steps: 1, copying: true)
        let converted = try Self.render(chain, steps: 1, copying: false)
        #expect(copied.images == converted.images, "\(mode), \(json)")
        #expect(converted.passed == 0)
        #expect(copied.passed == Self.size.height - covered.count, "\(mode), \(json)")
        #expect(copied.images[0] != copied.images[1] || covered.isEmpty)
    }

    /// No steps: every row is copied (a format conversion of 8-bit RGB).
    @Test func noStepsCopiesEveryRow() throws {
        let chain = try Self.chain("")
        let copied = try Self.render(chain, steps: 0, copying: true)
        #expect(copied.images == (try Self.render(chain, steps: 0, copying: false)).images)
        #expect(copied.images[0] == (try Self.base()).pixels)
        #expect(copied.passed == Self.size.height)
    }

    /// A step over every pixel, a second blend, or an output in another colour space: none copied.
    @Test(arguments: [
        #"{ "id": "00000000-0000-4000-8000-000000000002", "type": "invert", "parameters": {} }"#,
        #"{ "id": "00000000-0000-4000-8000-000000000002", "type": "blend", "parameters": { "layer": "logo", "placement": { "gravity": "north" } } }"#,
    ])
    func stepsThatTouchEveryRowCopyNone(second: String) throws {
        let chain = try Self.chain(Self.blend(mode: "normal", placement: Self.placements[0].0) + ", " + second)
        let copied = try Self.render(chain, steps: 2, copying: true)
        #expect(copied.passed == 0)
        #expect(copied.images == (try Self.render(chain, steps: 2, copying: false)).images)
        let p3 = try Self.render(try Self.chain(""), steps: 0, copying: true,
                                 outputs: [RenderOutput(step: 0, .memory(depth: .eight, profile: .displayP3))])
        #expect(p3.passed == 0)
    }
}
