import Testing
@testable import FilterChain

@Suite struct ColorMatrixTests {
    static let swapAndTint = ColorMatrix(matrix: [[0.2, 0.7, 0.1, 0, 0.02], [0.9, 0.1, 0, 0, 0], [0.1, 0.2, 0.6, 0.1, -0.05], [0, 0, 0, 1, 0]])
    static let alphaFromLuma = ColorMatrix(matrix: [[1, 0, 0, 0, 0], [0, 1, 0, 0, 0], [0, 0, 1, 0, 0], [0.2126, 0.7152, 0.0722, 0, 0]])
    static let alphaScaled = ColorMatrix(matrix: [[1, 0, 0, 0, 0], [0, 1, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 0, 2, -0.5]])
    static let wild = ColorMatrix(matrix: [[-10, 3, 0.5, 2, 1], [0, -1, 10, 0, 0.5], [1, 1, 1, -3, 0], [0, 0, 0, -1, 1]])
    static let settings = [swapAndTint, alphaFromLuma, alphaScaled, wild]

    /// Alpha images: a written alpha is clamped, and colour is straight.
    /// changesAlpha is declared when (and only when) the alpha row is not (0, 0, 0, 1, 0).
    @Test func declaresAlphaChanges() {
        #expect(!Self.swapAndTint.changesAlpha)
        #expect(Self.alphaFromLuma.changesAlpha && Self.alphaScaled.changesAlpha && Self.wild.changesAlpha)
        #expect(!ColorMatrix().changesAlpha)
        // The kernel writes alpha, clamped: 2 a - 0.5 for a = 0.1, 0.5, 0.9.
        let out = Catalogue.run(Catalogue.kernel(Self.alphaScaled), [SIMD4(0, 0, 0, 0.1), SIMD4(0, 0, 0, 0.5), SIMD4(0, 0, 0, 0.9)])
        #expect(largestDifference(out, [SIMD4(0, 0, 0, 0), SIMD4(0, 0, 0, 0.5), SIMD4(0, 0, 0, 1)]) < 1e-6)
    }

    /// An opaque image gains alpha: the alpha written by the matrix is in the output, rows
    /// after rows (reused ring slots), before and after a neighbourhood step.
    @Test func opaqueImageGainsAlpha() throws {
        let input = Pixels.random(width: 37, height: 100, format: PixelFormat(.rgb, .eight), seed: 8)
        var blur = GaussianBlur()
        blur.sigma = 1.5
        for chain in [Chain([Self.alphaScaled]), Chain([Self.wild]), Chain([Exposure(ev: 0.1), Self.alphaScaled, blur, Self.alphaFromLuma, Self.wild])] {
            for strip in [1, 5, 16] {
                let out = try Renderer(threads: 2, stripHeight: strip).apply(chain, to: input.raster)
                #expect(out.format.channels == .rgba)
                let expected = Reference.encode(Reference.apply(chain, to: input), format: out.format, linear: false)
                #expect(differences(Pixels(out).samples, expected).max <= 1, "strip \(strip)")
            }
        }
    }

    @Test func neutral() throws {
        try Catalogue.expectIdentity(ColorMatrix())
        for f in Self.settings { Catalogue.checkNeutral(f) }
        Catalogue.checkNeutral(ColorMatrix(matrix: [[0.5, 0.3, 0.2, 0, 0.1], [0.2, 0.6, 0.2, 0, 0.1], [0, 0, 1, 0, 0.1], [0, 0, 0, 1, 0]]))
    }

    @Test func refusals() {
        Catalogue.expectRefusal("colorMatrix", "\"matrix\": [[1,0,0,0,0],[0,1,0,0,0],[0,0,1,0,0]]",
                                "look.json: filters[0].parameters.matrix: 3 rows is not allowed; allowed: 4 rows")
        Catalogue.expectRefusal("colorMatrix", "\"matrix\": [[1,0,0,0,0],[0,1,0,0],[0,0,1,0,0],[0,0,0,1,0]]",
                                "look.json: filters[0].parameters.matrix[1]: expected a row of 5 numbers, found [0, 1, 0, 0]")
        Catalogue.expectRefusal("colorMatrix", "\"matrix\": [[1,0,0,0,0],[0,1,0,0,0],[0,0,1,0,11],[0,0,0,1,0]]",
                                "look.json: filters[0].parameters.matrix[2][4]: 11 is out of range; allowed -10...10")
        Catalogue.expectRefusal("colorMatrix", "\"matrix\": 1",
                                "look.json: filters[0].parameters.matrix: expected an array of 4 rows of 5 numbers, found a number")
    }
}
