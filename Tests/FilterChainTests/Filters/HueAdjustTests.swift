import Testing
@testable import FilterChain

@Suite struct HueAdjustTests {
    static let settings = [-180.0, -90, -10, 10, 45, 120, 180].map { HueAdjust(angle: $0) }

    /// Luma (.213, .715, .072) is kept, to the rounding of SVG's three-decimal coefficients:
    /// w·C is (0.000212, -0.000715, 0.000503), so luma moves by at most 0.00143 max|c|.
    @Test func keepsLuma() {
        let input = Catalogue.randomPixels(64, seed: 3)
        let out = Catalogue.run(Catalogue.kernel(HueAdjust(angle: 77)), input)
        for (i, o) in zip(input, out) {
            let before = 0.213 * i[0] + 0.715 * i[1] + 0.072 * i[2], after = 0.213 * o[0] + 0.715 * o[1] + 0.072 * o[2]
            #expect(abs(before - after) <= 0.00143 * max(abs(i[0]), abs(i[1]), abs(i[2])) + 1e-6)
        }
    }

    @Test func neutral() throws {
        try Catalogue.expectIdentity(HueAdjust())
        Catalogue.checkNeutral(HueAdjust(angle: 33))
    }

    @Test func refusals() {
        Catalogue.expectRefusal("hueAdjust", "\"angle\": 181", "look.json: filters[0].parameters.angle: 181 is out of range; allowed -180...180")
    }
}
