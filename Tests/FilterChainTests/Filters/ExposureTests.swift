import Testing
@testable import FilterChain

@Suite struct ExposureTests {
    static let settings = [-10.0, -1.5, -0.3, 0.3, 1, 2.5, 10].map { Exposure(ev: $0) }

    @Test func neutral() throws {
        try Catalogue.expectIdentity(Exposure())
        Catalogue.checkNeutral(Exposure(ev: 1.3))
    }

    @Test func refusals() {
        Catalogue.expectRefusal("exposure", "\"ev\": 10.5", "look.json: filters[0].parameters.ev: 10.5 is out of range; allowed -10...10")
        Catalogue.expectRefusal("exposure", "\"ev\": \"1\"", "look.json: filters[0].parameters.ev: expected a number, found a string")
    }
}
