import Testing
@testable import FilterChain

/// The vignette's positional kernel called directly; the render through the pipeline is in
/// VignetteRenderTests.
@Suite struct VignetteTests {
    static let settings = [
        Vignette(), Vignette(intensity: 1, radius: 0.5, softness: 1), Vignette(intensity: -0.6, radius: 1.4, softness: 0.3),
        Vignette(intensity: 0.8, radius: 0.7, softness: 0, center: ImagePoint(0.2, 0.9)),   // a hard edge
        Vignette(intensity: 0.5, radius: 0, softness: 0.5),                                 // radius 0: everything at full
        Vignette(intensity: 0.4, radius: 2, softness: 0.2, center: ImagePoint(1, 0)),
    ]

    static let sizes = [ImageSize(width: 61, height: 17), ImageSize(width: 8, height: 300), ImageSize(width: 1, height: 1)]

    static func kernel(_ f: Vignette) -> any PositionalKernel {
        guard case .positional(let p) = f.operation() else { fatalError("vignette is positional") }
        return p
    }

    /// Each pixel against c (1 - intensity f) from the formula in Double.
    @Test func againstTheFormula() {
        for f in Self.settings {
            for size in Self.sizes {
                for row in [0, size.height / 2, size.height - 1] {
                    let input = Catalogue.randomPixels(size.width, seed: UInt64(row))
                    let planes = Planes(input)
                    Self.kernel(f).apply(planes.pixels, count: planes.count, row: row, column: 0, size: size)
                    let out = planes.values(size.width)
                    for (i, (o, x)) in zip(out, input).enumerated() {
                        let v = Reference.vignetteFactor(f, i: i, j: row, width: size.width, height: size.height)
                        let expected = SIMD4(x[0] * v, x[1] * v, x[2] * v, x[3])
                        #expect(largestDifference([o], [expected]) < 2e-5, "\(f) \(size) (\(i), \(row))")
                    }
                }
            }
        }
    }

    /// The same values however the row is cut into runs.
    @Test func independentOfTheCuts() {
        let size = ImageSize(width: 203, height: 40)
        let input = Catalogue.randomPixels(208, seed: 4)
        for f in Self.settings {
            let whole = Planes(input)
            Self.kernel(f).apply(whole.pixels, count: 208, row: 13, column: 0, size: size)
            for cuts in [[0, 8, 208], [0, 96, 200, 208], [0, 40, 48, 152, 208]] {
                let pieces = Planes(input)
                for (a, b) in zip(cuts, cuts.dropFirst()) {
                    Self.kernel(f).apply(pieces.pixels.offset(by: a), count: b - a, row: 13, column: a, size: size)
                }
                #expect(pieces.values(203) == whole.values(203))
            }
        }
    }

    @Test func neutral() throws {
        try Catalogue.expectIdentity(Vignette(intensity: 0))
        #expect(Vignette().keepsNeutralNeutral)
    }

    @Test func refusals() {
        Catalogue.expectRefusal("vignette", "\"center\": [0.5, 1.5]", "look.json: filters[0].parameters.center[1]: 1.5 is out of range; allowed 0...1")
        Catalogue.expectRefusal("vignette", "\"center\": [0.5]", "look.json: filters[0].parameters.center: expected a point [x, y], found [0.5]")
        Catalogue.expectRefusal("vignette", "\"radius\": 2.5", "look.json: filters[0].parameters.radius: 2.5 is out of range; allowed 0...2")
        Catalogue.expectRefusal("vignette", "\"intensity\": -1.5", "look.json: filters[0].parameters.intensity: -1.5 is out of range; allowed -1...1")
        Catalogue.expectRefusal("vignette", "\"softness\": 2", "look.json: filters[0].parameters.softness: 2 is out of range; allowed 0...1")
    }
}
