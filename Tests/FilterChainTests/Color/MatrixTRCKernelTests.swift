import Foundation
import Testing
@testable import FilterChain

/// Every fused matrix/TRC transform against lcms2's float transform of the same profiles:
/// relative colorimetric, no black-point compensation, within 1e-4 over a grid (values
/// outside [0, 1] included) and random colours, for every RGB and grey matrix/TRC profile
/// of the conformance folder and every working space, both legs and round trips.
@Suite struct MatrixTRCKernelTests {
    static let tolerance: Float = 1e-4

    static var matrixProfiles: [String] {
        ICCData.names.filter { (try? ICCData.profile($0))?.kind == .matrixTRC }
    }

    @Test func theFolderHasTheProfilesTheseTestsNeed() throws {
        // Not vacuous: the conformance folder's RGB matrix/TRC profiles are all here.
        let rgb = ICCData.names(in: .rgb).filter { (try? ICCData.profile($0))?.kind == .matrixTRC }
        #expect(rgb.count >= 19)
        #expect(ICCData.names(in: .grey).count == 3)
        #expect(try ICCData.profile("sRGB_v4_ICC_preference.icc").kind == .lut)
        #expect(try ICCData.profile("CGATS001Compat-v2-micro.icc").kind == .lut)
        #expect(try ICCData.profile("CGATS001Compat-v2-micro.icc").space == .cmyk)
    }

    static func lcms(_ from: ColorProfile, _ to: ColorProfile, _ values: [Float]) throws -> [Float] {
        try LCMSTransform(from: from, to: to, intent: .relative, blackPointCompensation: false).run(values)
    }

    /// Interleaved grey values: the red of each triple.
    static func reds(_ rgb: [Float]) -> [Float] { stride(from: 0, to: rgb.count, by: 3).map { rgb[$0] } }
    static func spread(_ grey: [Float]) -> [Float] { grey.flatMap { [$0, $0, $0] } }

    @Test(arguments: matrixProfiles, WorkingSpace.allCases)
    func inputLegIsLCMS(name: String, space: WorkingSpace) throws {
        let profile = try ICCData.profile(name)
        let working = try ColorProfile(workingSpace: space)
        let kernel = try #require(MatrixTRCKernel.input(from: profile, to: space))
        let colours = profile.space == .grey ? Self.spread(Self.reds(ICCData.colours())) : ICCData.colours()
        let ours = ICCData.run(kernel, rgb: colours)
        let source = profile.space == .grey ? Self.reds(colours) : colours
        let theirs = try Self.lcms(profile, working, source)
        let (error, at) = ICCData.maxDifference(ours, theirs)
        ICCData.report("input \(name) -> \(space): max \(error)")
        #expect(error <= Self.tolerance, "at \(colours[at / 3 * 3..<at / 3 * 3 + 3]): \(ours[at]) vs lcms2 \(theirs[at])")
    }

    @Test(arguments: matrixProfiles, WorkingSpace.allCases)
    func outputLegIsLCMS(name: String, space: WorkingSpace) throws {
        let profile = try ICCData.profile(name)
        let working = try ColorProfile(workingSpace: space)
        let kernel = try #require(MatrixTRCKernel.output(from: space, to: profile))
        let colours = ICCData.colours()
        var ours = ICCData.run(kernel, rgb: colours)
        let theirs = try Self.lcms(working, profile, colours)
        if profile.space == .grey {
            #expect(ours == Self.spread(Self.reds(ours)))
            ours = Self.reds(ours)
        }
        let (error, steps, failure) = ICCData.compare(ours, theirs, lastCurves: profile.inverseCurves,
                                                      channels: profile.space == .grey ? 1 : 3)
        ICCData.report("output \(space) -> \(name): max \(error), 16-bit steps \(steps)")
        #expect(failure == nil, "\(failure ?? "")")
    }

    /// fc_matrix_trc (AVX2, where the processor has it) gives the Swift kernel's values bit
    /// for bit, both legs, on values in and around [0, 1] (dark ones below the curves'
    /// samples, negatives, above 1, NaN, infinities), in place and into other planes.
    @Test(arguments: matrixProfiles, WorkingSpace.allCases)
    func vectorisedKernelIsTheSwiftKernel(name: String, space: WorkingSpace) throws {
        let profile = try ICCData.profile(name)
        let kernels = [MatrixTRCKernel.input(from: profile, to: space), MatrixTRCKernel.output(from: space, to: profile)]
        var generator = SystemRandomNumberGenerator()
        let count = 4096
        var values = (0..<(3 * count)).map { _ in Float.random(in: -0.1...1.1, using: &generator) }
        for i in stride(from: 0, to: values.count, by: 97) { values[i] = Float.random(in: 0...0.0003, using: &generator) }
        for i in stride(from: 5, to: values.count, by: 389) { values[i] = [-0.0, .nan, .infinity, -.infinity, 1, 0][i % 6] }
        // Most vectors whole within the samples, for the vectorised path to take them.
        for i in stride(from: 0, to: 3 * count / 2, by: 1) { values[i] = Float.random(in: 0.01...0.99, using: &generator) }
        func planes(_ v: [Float]) -> [UnsafeMutablePointer<Float>] {
            (0..<4).map { c in
                let p = UnsafeMutablePointer<Float>.allocate(capacity: count)
                for i in 0..<count { p[i] = c < 3 ? v[c * count + i] : 1 }
                return p
            }
        }
        for kernel in kernels.compactMap({ $0 }) {
            let a = planes(values), b = planes(values), c = planes(values)
            defer { for p in a + b + c { p.deallocate() } }
            let pa = PlanarPixels(red: a[0], green: a[1], blue: a[2], alpha: a[3])
            let pb = PlanarPixels(red: b[0], green: b[1], blue: b[2], alpha: b[3])
            let pc = PlanarPixels(red: c[0], green: c[1], blue: c[2], alpha: c[3])
            kernel.apply(from: pa, into: pa, count: count, vectorised: false)
            kernel.apply(from: pb, into: pb, count: count)
            let source = planes(values)
            defer { for p in source { p.deallocate() } }
            kernel.apply(from: PlanarPixels(red: source[0], green: source[1], blue: source[2], alpha: source[3]),
                         into: pc, count: count)
            for p in 0..<3 {
                for i in 0..<count {
                    #expect(a[p][i].bitPattern == b[p][i].bitPattern, "\(name) \(space) plane \(p) at \(i): \(a[p][i]) vs \(b[p][i])")
                    #expect(a[p][i].bitPattern == c[p][i].bitPattern, "\(name) \(space) plane \(p) at \(i) (into others)")
                    if a[p][i].bitPattern != b[p][i].bitPattern || a[p][i].bitPattern != c[p][i].bitPattern { return }
                }
            }
        }
    }

    /// Colours for round trips: at least 0.02 in every channel. Near 0 a pure gamma's
    /// inverse has an infinite slope and lcms2 maps negatives to 0, so there a float
    /// rounding in the working space (a value of 1e-9 against -1e-9) makes differences of
    /// 1e-3 between any two implementations, lcms2 against itself included.
    static func roundTripColours() -> [Float] {
        var rng = SeededRandom(2022)
        let levels: [Float] = [0.02, 0.2, 0.5, 0.8, 1, 1.2]
        var out: [Float] = []
        for r in levels { for g in levels { for b in levels { out += [r, g, b] } } }
        for _ in 0..<2000 { out += (0..<3).map { _ in Float.random(in: 0.02...1.2, using: &rng) } }
        return out
    }

    /// In and out again: the kernels' round trip against lcms2's two transforms one after
    /// the other (not against the identity: a table curve clamps, and its inverse is sampled).
    @Test(arguments: matrixProfiles, WorkingSpace.allCases)
    func roundTripIsLCMS(name: String, space: WorkingSpace) throws {
        let profile = try ICCData.profile(name)
        let working = try ColorProfile(workingSpace: space)
        let into = try #require(MatrixTRCKernel.input(from: profile, to: space))
        let back = try #require(MatrixTRCKernel.output(from: space, to: profile))
        let colours = profile.space == .grey ? Self.spread(Self.reds(Self.roundTripColours())) : Self.roundTripColours()
        var ours = ICCData.run(back, rgb: ICCData.run(into, rgb: colours))
        let source = profile.space == .grey ? Self.reds(colours) : colours
        let theirs = try Self.lcms(working, profile, Self.lcms(profile, working, source))
        if profile.space == .grey { ours = Self.reds(ours) }
        let (error, steps, failure) = ICCData.compare(ours, theirs, lastCurves: profile.inverseCurves,
                                                      channels: profile.space == .grey ? 1 : 3)
        ICCData.report("round trip \(name) via \(space): max \(error), 16-bit steps \(steps)")
        #expect(failure == nil, "\(failure ?? "")")
    }

    /// Each curve and its inverse, alone, against lcms2's evaluation of the same curve.
    @Test(arguments: matrixProfiles)
    func curvesAreLCMS(name: String) throws {
        let profile = try ICCData.profile(name)
        var values = (0...4096).map { Float($0) / 4096 }
        values += [-1, -0.5, -0.01, 1.01, 1.5, 3]
        for (channel, curve) in profile.curves.enumerated() {
            for inverse in [false, true] {
                let evaluator = CurveEvaluator(inverse ? profile.inverseCurves[channel] : curve)
                var ours: [Float] = []
                for start in stride(from: 0, to: values.count, by: 8) {
                    var lanes = SIMD8<Float>(repeating: 0)
                    for k in 0..<8 where start + k < values.count { lanes[k] = values[start + k] }
                    let out = evaluator(lanes)
                    for k in 0..<8 where start + k < values.count { ours.append(out[k]) }
                }
                let theirs = try #require(profile.lcmsCurve(channel, inverse: inverse, at: values))
                let (error, at) = ICCData.maxDifference(ours, theirs)
                #expect(error <= Self.tolerance, "\(name) curve \(channel)\(inverse ? " inverse" : ""): at \(values[at]) \(ours[at]) vs lcms2 \(theirs[at])")
            }
        }
    }

    /// The output leg with the issue's output settings (black-point compensation on, any
    /// intent but absolute): for a matrix/TRC profile whose curves reach 0 at 0 lcms2's
    /// black point is 0, compensation changes nothing, and perceptual and saturation fall
    /// back to the colorimetric matrix, so the same kernel is lcms2's transform.
    @Test(arguments: matrixProfiles, [RenderingIntent.perceptual, .relative, .saturation])
    func outputLegWithCompensationIsLCMS(name: String, intent: RenderingIntent) throws {
        let profile = try ICCData.profile(name)
        guard profile.curves.allSatisfy({ $0.value(0) == 0 }) else { return }
        let working = try ColorProfile(workingSpace: .linearRec2020)
        let kernel = try #require(MatrixTRCKernel.output(from: .linearRec2020, to: profile))
        let colours = ICCData.colours()
        var ours = ICCData.run(kernel, rgb: colours)
        if profile.space == .grey { ours = Self.reds(ours) }
        let theirs = try LCMSTransform(from: working, to: profile, intent: intent, blackPointCompensation: true).run(colours)
        let (error, steps, failure) = ICCData.compare(ours, theirs, lastCurves: profile.inverseCurves,
                                                      channels: profile.space == .grey ? 1 : 3)
        ICCData.report("output bpc \(intent) -> \(name): max \(error), 16-bit steps \(steps)")
        #expect(failure == nil, "\(failure ?? "")")
    }

    /// Colours outside the target survive: Display P3's green in an sRGB working space has a
    /// negative red, as lcms2 gives it.
    @Test func wideGamutSurvivesInSRGB() throws {
        let p3 = try ICCData.profile("DisplayP3-v4.icc")
        let kernel = try #require(MatrixTRCKernel.input(from: p3, to: .srgb))
        let ours = ICCData.run(kernel, rgb: [0, 1, 0])
        let theirs = try Self.lcms(p3, ColorProfile(workingSpace: .srgb), [0, 1, 0])
        #expect(ours[0] < -0.1)
        #expect(ICCData.maxDifference(ours, theirs).error <= Self.tolerance)
    }
}
