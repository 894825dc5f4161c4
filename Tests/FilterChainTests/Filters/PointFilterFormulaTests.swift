import Testing
@testable import FilterChain

/// The catalogue's point filters against their formulas (Support/Reference+Catalogue.swift),
/// each at the settings its own suite lists: all 8-bit values with and without alpha, 16-bit
/// ramps within 8 levels, and the kernel alone on unclamped values.
@Suite struct PointFilterFormulaTests {
    struct Case: CustomStringConvertible, Sendable {
        let filter: any Filter
        var description: String { filter.type + " " + JSONWriter.compact(filter.parametersJSON) }
    }

    static func cases(_ settings: [[any Filter]]) -> [Case] { settings.joined().map(Case.init) }

    /// Filters whose kernel checks are here too; gamma and levels have their own (powers
    /// and clamping of values outside 0...1).
    static let kernelCases = cases([ColorMatrixTests.settings, ExposureTests.settings, HueAdjustTests.settings,
                                    MonochromeTests.settings, SepiaTests.settings, VibranceTests.settings])
    static let all = kernelCases + cases([GammaTests.settings, LevelsTests.settings])

    @Test(arguments: all, [false, true])
    func allEightBitValues(_ c: Case, alpha: Bool) throws {
        try Catalogue.check(c.filter, Catalogue.allValues(alpha: alpha))
    }

    @Test(arguments: all)
    func sixteenBitRamp(_ c: Case) throws {
        try Catalogue.checkWithin(c.filter, Catalogue.ramp16(), maxDiff: 8)
    }

    @Test(arguments: kernelCases)
    func kernelOnUnclampedValues(_ c: Case) {
        Catalogue.checkKernel(c.filter)
    }
}
