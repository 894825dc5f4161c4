import Testing
@testable import FilterChain

@Suite struct MonochromeTests {
    static let settings = [
        Monochrome(), Monochrome(intensity: 0.4), Monochrome(color: ColorRGB(1, 1, 1)),
        Monochrome(color: ColorRGB(0, 0, 1), intensity: 0.8), Monochrome(color: ColorRGB(0.2, 0.9, 0.1), intensity: 1),
    ]

    @Test func neutral() throws {
        try Catalogue.expectIdentity(Monochrome(intensity: 0))
        for f in Self.settings + [Monochrome(intensity: 0)] { Catalogue.checkNeutral(f) }
    }

    @Test func refusals() {
        Catalogue.expectRefusal("monochrome", "\"color\": [0, 0, 0]",
                                "look.json: filters[0].parameters.color: [0, 0, 0] (luma 0) is not allowed; allowed: [r, g, b], each in 0...1, luma 0.2126 r + 0.7152 g + 0.0722 b above 0")
        Catalogue.expectRefusal("monochrome", "\"color\": [0.5, 1.5, 0]", "look.json: filters[0].parameters.color[1]: 1.5 is out of range; allowed 0...1")
        Catalogue.expectRefusal("monochrome", "\"color\": [0.5, 0.5]", "look.json: filters[0].parameters.color: expected a colour [r, g, b], found [0.5, 0.5]")
        Catalogue.expectRefusal("monochrome", "\"color\": \"red\"", "look.json: filters[0].parameters.color: expected a colour [r, g, b], found")
    }

    /// The colour round-trips through a chain file as [r, g, b].
    @Test func colourInChainFiles() throws {
        let text = Chain([Monochrome(color: ColorRGB(0.25, 0.5, 1), intensity: 0.5)]).jsonText
        let chain = try Chain.parse(Array(text.utf8), file: "look.json")
        #expect((chain.steps[0].filter as? Monochrome)?.color == ColorRGB(0.25, 0.5, 1))
    }
}
