import Testing
@testable import FilterChain

/// unsharpMask through the pipeline. Needs the pipeline's combine stage (the lead's rework
/// on main); on the filters branch alone Plan.swift does not plan `.combine` yet.
@Suite struct UnsharpMaskRenderTests {
    static let settings = [UnsharpMask(sigma: 2, amount: 0.5), UnsharpMask(sigma: 1, amount: 0.4),
                           UnsharpMask(sigma: 0.6, amount: 3, threshold: 0.02), UnsharpMask(sigma: 20, amount: 1)]

    /// Within max 1 + 2·amount and mean 0.25·max(1, amount) levels of the exact definition.
    @Test(arguments: [false, true])
    func allEightBitValues(alpha: Bool) throws {
        for f in Self.settings {
            try FilterReferenceTests().checkTolerance(Chain([f]), Catalogue.allValues(alpha: alpha),
                                                      maxDiff: Int(1 + 2 * f.amount), meanDiff: 0.25 * max(1, f.amount))
        }
    }

    @Test func photograph() throws {
        let (input, _) = try Pixels.read(TestData.samples.appendingPathComponent("coffee.png").path)
        let f = UnsharpMask(sigma: 2, amount: 0.5)
        try FilterReferenceTests().checkTolerance(Chain([f]), input, maxDiff: 2, meanDiff: 0.25)
    }

    @Test func sixteenBitRamp() throws {
        for f in Self.settings {
            try FilterReferenceTests().checkTolerance(Chain([f]), Catalogue.ramp16(),
                                                      maxDiff: Int(257 * (1 + 2 * f.amount)), meanDiff: 257 * 0.25 * max(1, f.amount))
        }
    }
}
