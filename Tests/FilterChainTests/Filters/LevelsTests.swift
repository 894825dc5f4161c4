import Testing
@testable import FilterChain

@Suite struct LevelsTests {
    static let settings = [
        Levels(inBlack: 0.1),
        Levels(inBlack: 0.05, inWhite: 0.9, gamma: 1.4, outBlack: 0.02, outWhite: 0.97),
        Levels(inWhite: 0.5, gamma: 0.3),
        Levels(inBlack: 0.4, inWhite: 0.41, gamma: 10),
        Levels(gamma: 0.1, outBlack: 0.9, outWhite: 0.1),   // an inverted output ramp
    ]

    @Test func kernelOnUnclampedValues() {
        for f in Self.settings + [Levels()] { Catalogue.checkKernel(f) }
    }

    /// At defaults, values in [0, 1] are unchanged (outside they are clamped, as the formula says).
    @Test func neutral() throws {
        try Catalogue.expectIdentity(Levels())
        let out = Catalogue.run(Catalogue.kernel(Levels()), [SIMD4(-0.2, 0.3, 1.4, 0.5)])
        #expect(out[0] == SIMD4(0, Double(Float(0.3)), 1, 0.5))
        Catalogue.checkNeutral(Levels(inBlack: 0.1, gamma: 2))
    }

    @Test func refusals() {
        Catalogue.expectRefusal("levels", "\"inBlack\": 0.6, \"inWhite\": 0.6",
                                "look.json: filters[0].parameters: levels: inWhite 0.6 is not above inBlack 0.6; inWhite must exceed inBlack")
        // Order does not matter: the rule is checked once every parameter is read.
        Catalogue.expectRefusal("levels", "\"inWhite\": 0.2, \"inBlack\": 0.3",
                                "look.json: filters[0].parameters: levels: inWhite 0.2 is not above inBlack 0.3; inWhite must exceed inBlack")
        #expect(Catalogue.refusal("levels", "\"inWhite\": 0.4, \"inBlack\": 0.3") == nil)
        Catalogue.expectRefusal("levels", "\"gamma\": 11", "look.json: filters[0].parameters.gamma: 11 is out of range; allowed 0.1...10")
        Catalogue.expectRefusal("levels", "\"outWhite\": -0.1", "look.json: filters[0].parameters.outWhite: -0.1 is out of range; allowed 0...1")
    }

    /// Edits (chain set) check the rule once every assignment is made.
    @Test func ruleAfterEditing() throws {
        var chain = Chain([Levels(inBlack: 0.2, inWhite: 0.6)])
        try chain.setParameter(at: 0, "inBlack", to: JSONNode(.number(0.7)), file: "look.json")
        do {
            try chain.checkStep(at: 0, file: "look.json")
            Issue.record("inBlack 0.7 with inWhite 0.6 was accepted")
        } catch {
            #expect(error.description == "look.json: filters[0].parameters: levels: inWhite 0.6 is not above inBlack 0.7; inWhite must exceed inBlack")
        }
        try chain.setParameter(at: 0, "inWhite", to: JSONNode(.number(0.9)), file: "look.json")
        try chain.checkStep(at: 0, file: "look.json")
        #expect((chain.steps[0].filter as? Levels)?.inWhite == 0.9)
    }
}
