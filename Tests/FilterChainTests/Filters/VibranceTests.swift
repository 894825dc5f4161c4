import Testing
@testable import FilterChain

@Suite struct VibranceTests {
    static let settings = [-1.0, -0.4, 0.3, 0.7, 1].map { Vibrance(amount: $0) }

    @Test(arguments: [false, true])
    func allEightBitValues(alpha: Bool) throws {
        for f in Self.settings { try Catalogue.check(f, Catalogue.allValues(alpha: alpha)) }
    }

    @Test func sixteenBitRamp() throws {
        for f in Self.settings { try Catalogue.checkWithin(f, Catalogue.ramp16(), maxDiff: 8) }
    }

    /// Also where max - min lies outside [0, 1] (the clamp of s).
    @Test func kernelOnUnclampedValues() {
        for f in Self.settings { Catalogue.checkKernel(f) }
    }

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
