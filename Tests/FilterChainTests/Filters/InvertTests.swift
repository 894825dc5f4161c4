import Testing
@testable import FilterChain

@Suite struct InvertTests {
    @Test(arguments: [false, true])
    func allEightBitValues(alpha: Bool) throws {
        try Catalogue.check(Invert(), Catalogue.allValues(alpha: alpha))
        // Exactly 255 - v at 8 bits, alpha kept.
        let input = Catalogue.allValues(alpha: alpha)
        let out = Pixels(try FilterReferenceTests.renderer.apply(Chain([Invert()]), to: input.raster)).samples
        let n = alpha ? 4 : 3
        #expect(out == input.samples.enumerated().map { i, v in n == 4 && i % 4 == 3 ? v : 255 - v })
    }

    @Test func sixteenBitRamp() throws {
        try Catalogue.checkWithin(Invert(), Catalogue.ramp16(), maxDiff: 8)
    }

    @Test func kernelOnUnclampedValues() {
        Catalogue.checkKernel(Invert())
    }

    /// Twice is the identity.
    @Test func neutral() throws {
        try Catalogue.expectIdentity(Invert(), times: 2)
        Catalogue.checkNeutral(Invert())
    }

    @Test func refusals() {
        Catalogue.expectRefusal("invert", "\"amount\": 1", "look.json: filters[0].parameters.amount: unknown parameter 'amount' (invert takes no parameters)")
    }
}
