import Testing
@testable import FilterChain

/// vignette through the pipeline. Needs positional runs in the pipeline (the lead's rework
/// on main); on the filters branch alone the pipeline calls point kernels without positions.
@Suite struct VignetteRenderTests {
    @Test(arguments: [false, true])
    func allEightBitValues(alpha: Bool) throws {
        for f in VignetteTests.settings { try Catalogue.check(f, Catalogue.allValues(alpha: alpha)) }
    }

    @Test func sixteenBitRamp() throws {
        for f in VignetteTests.settings { try Catalogue.checkWithin(f, Catalogue.ramp16(), maxDiff: 8) }
    }

    /// The size is the current step's: after another filter, with 1-4 threads and several
    /// strip heights. Each schedule is within 1 level of the scalar reference, and every
    /// schedule gives the same bytes as the first (results never depend on the schedule).
    @Test func sameForEverySchedule() throws {
        let input = Pixels.random(width: 97, height: 61, format: PixelFormat(.rgba, .eight), seed: 3)
        let chain = Chain([Exposure(ev: 0.2), Vignette(intensity: 0.7, radius: 0.8, softness: 0.6, center: ImagePoint(0.3, 0.6))])
        let expected = Reference.encode(Reference.apply(chain, to: input), format: input.format, linear: false)
        var first: (samples: [Int], schedule: String)?
        for threads in 1...4 {
            for strip in [1, 5, 16, 200] {
                let out = try Renderer(threads: threads, stripHeight: strip).apply(chain, to: input.raster)
                let samples = Pixels(out).samples
                let schedule = "threads \(threads), strip \(strip)"
                #expect(differences(samples, expected).max <= 1, "\(schedule)")
                if let first {
                    #expect(samples == first.samples, "\(schedule) differs from \(first.schedule)")
                } else {
                    first = (samples, schedule)
                }
            }
        }
    }
}
