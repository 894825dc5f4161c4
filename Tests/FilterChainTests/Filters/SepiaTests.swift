import Testing
@testable import FilterChain

@Suite struct SepiaTests {
    static let settings = [0.2, 0.5, 0.9, 1].map { Sepia(intensity: $0) }

    @Test func neutral() throws {
        try Catalogue.expectIdentity(Sepia(intensity: 0))
        for f in Self.settings + [Sepia(intensity: 0)] { Catalogue.checkNeutral(f) }
    }

    @Test func refusals() {
        Catalogue.expectRefusal("sepia", "\"intensity\": 2", "look.json: filters[0].parameters.intensity: 2 is out of range; allowed 0...1")
    }
}
