import Testing
@testable import FilterChain

@Suite struct GammaTests {
    static let settings = [0.1, 0.45, 0.8, 1.7, 2.2, 10].map { Gamma(power: $0) }

    /// Negative values (from an earlier filter) mirror positive ones: sign(c) |c|^power.
    @Test func kernelOnUnclampedValues() {
        for f in Self.settings { Catalogue.checkKernel(f) }
        let out = Catalogue.run(Catalogue.kernel(Gamma(power: 2)), [SIMD4(-0.5, 0.5, -1, 1)])
        #expect(out[0] == SIMD4(-0.25, 0.25, -1, 1))
    }

    @Test func neutral() throws {
        try Catalogue.expectIdentity(Gamma())
        Catalogue.checkNeutral(Gamma(power: 2.2))
    }

    @Test func refusals() {
        Catalogue.expectRefusal("gamma", "\"power\": 0", "look.json: filters[0].parameters.power: 0 is out of range; allowed 0.1...10")
        Catalogue.expectRefusal("gamma", "\"powr\": 2", "look.json: filters[0].parameters.powr: unknown parameter 'powr'; did you mean 'power'?")
    }
}
