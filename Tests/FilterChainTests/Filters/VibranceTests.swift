import Testing
@testable import FilterChain

@Suite struct VibranceTests {
    static let settings = [-1.0, -0.4, 0.3, 0.7, 1].map { Vibrance(amount: $0) }

    /// Also where max - min lies outside [0, 1] (the clamp of s).
    /// Fully saturated colours are unchanged; grey is unchanged.
    @Test func saturatedAndGrey() throws {
        let out = Catalogue.run(Catalogue.kernel(Vibrance(amount: 1)), [SIMD4(1, 0, 0, 1), SIMD4(0, 0.5, 1, 1), SIMD4(0.25, 0.25, 0.25, 1)])
        #expect(largestDifference(out, [SIMD4(1, 0, 0, 1), SIMD4(0, 0.5, 1, 1), SIMD4(0.25, 0.25, 0.25, 1)]) < 1e-6)
        try Catalogue.expectIdentity(Vibrance())
        Catalogue.checkNeutral(Vibrance(amount: 0.5))
    }

    @Test func refusals() {
        Catalogue.expectRefusal("vibrance", "\"amount\": 1.01", "look.json: filters[0].parameters.amount: 1.01 is out of range; allowed -1...1")
    }
}
