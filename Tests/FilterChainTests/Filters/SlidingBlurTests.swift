import CEngines
import Testing
@testable import FilterChain

/// The long Gaussian's inner loop runs in C (CEngines), eight columns at a time with AVX or
/// four without; both must give, bit for bit, what the Swift loop it replaced gives position
/// by position (`SlidingCosines.slideAndOutput`), so that output never depends on the machine.
@Suite struct SlidingBlurTests {
    /// Deterministic samples in -0.5...1.5 (out of range on purpose: a chain may hold any values).
    static func samples(_ count: Int, seed: UInt64) -> [Float] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Float(state >> 40) / Float(1 << 24) * 2 - 0.5
        }
    }

    enum Path: CaseIterable { case dispatched, fourWide, avx }

    /// A vertical pass over `rows` input rows of `lanes` columns, started at position 0 by
    /// the Swift code, then slid by the Swift loop (reference) and by `path`.
    @Test(arguments: Path.allCases, [(sigma: 5.0, lanes: 16, height: 40), (sigma: 10.0, lanes: 48, height: 120),
                                     (sigma: 25.0, lanes: 8, height: 260)])
    func slideMatchesThePositionByPositionLoop(path: Path, case c: (sigma: Double, lanes: Int, height: Int)) throws {
        let kernel = GaussianKernel(sigma: c.sigma)
        let sums = try #require(kernel.sliding)
        let r = sums.radius, lanes = c.lanes, height = c.height
        let phases = sums.phases(length: height)
        let image = Self.samples(lanes * height, seed: UInt64(lanes * height))
        let stateCount = lanes * SlidingCosines.stateCount
        var reference = [Float](repeating: 0, count: stateCount)
        var expected = [Float](repeating: 0, count: lanes * height)
        var got = [Float](repeating: .nan, count: lanes * height)
        try image.withUnsafeBufferPointer { image in
            let row = { (y: Int) in image.baseAddress! + min(max(y, 0), height - 1) * lanes }
            let all = 0..<lanes
            try phases.values.withUnsafeBufferPointer { ph in
                try phases.weighted.withUnsafeBufferPointer { wph in
                    let base = ph.baseAddress!, weighted = wph.baseAddress!
                    reference.withUnsafeMutableBufferPointer { state in
                        for m in -r...r {
                            sums.accumulate(state.baseAddress!, lanes: lanes, sample: row(m), phase: base + phases.at(m), sign: 1, columns: all)
                        }
                    }
                    var state = reference
                    expected.withUnsafeMutableBufferPointer { out in
                        reference.withUnsafeMutableBufferPointer { s in
                            for y in 1..<height {
                                sums.slideAndOutput(s.baseAddress!, lanes: lanes, entering: row(y + r), enteringPhase: base + phases.at(y + r),
                                                    leaving: row(y - r - 1), leavingPhase: base + phases.at(y - r - 1),
                                                    weighted: weighted + phases.at(y), into: out.baseAddress! + y * lanes, columns: all)
                            }
                        }
                    }
                    let count = height - 1
                    let entering: [UnsafePointer<Float>?] = (1..<height).map { row($0 + r) }
                    let leaving: [UnsafePointer<Float>?] = (1..<height).map { row($0 - r - 1) }
                    try got.withUnsafeMutableBufferPointer { out in
                        let outputs: [UnsafeMutablePointer<Float>?] = (1..<height).map { out.baseAddress! + $0 * lanes }
                        try state.withUnsafeMutableBufferPointer { s in
                            let arguments = (s.baseAddress!, lanes, count, entering, base + phases.at(1 + r), leaving,
                                             base + phases.at(-r), weighted + phases.at(1), outputs, sums.coefficients[0])
                            switch path {
                            case .dispatched:
                                sums.slide(s.baseAddress!, lanes: lanes, count: count, entering: entering, enteringPhase: arguments.4,
                                           leaving: leaving, leavingPhase: arguments.6, weighted: arguments.7, outputs: outputs, columns: all)
                            case .fourWide:
                                fc_sliding_cosines_4(s.baseAddress!, lanes, count, entering, arguments.4, leaving, arguments.6,
                                                     arguments.7, outputs, arguments.9, 0, lanes)
                            case .avx:
                                let ran = fc_sliding_cosines_8(s.baseAddress!, lanes, count, entering, arguments.4, leaving, arguments.6,
                                                               arguments.7, outputs, arguments.9, 0, lanes)
                                try #require(ran == 1 || fc_kernels_have_avx() == 0, "AVX present but the AVX path did not run")
                                if ran == 0 { return }  // no AVX here: the dispatched case covers this machine
                            }
                        }
                    }
                    // The running sums end where the reference's do, bit for bit.
                    if path != .avx || fc_kernels_have_avx() == 1 {
                        #expect(state.map(\.bitPattern) == reference.map(\.bitPattern))
                    }
                }
            }
        }
        if path == .avx && fc_kernels_have_avx() == 0 { return }
        let rows = lanes..<(lanes * height)  // row 0 is the Swift start, not slid
        #expect(Array(got[rows]).map(\.bitPattern) == Array(expected[rows]).map(\.bitPattern))
    }

    /// The horizontal pass turns blocks of rows on their side and back, four by four with a
    /// scalar tail: every row count and an odd width land where they started.
    @Test(arguments: [1, 3, 4, 5, 8, 13, 16])
    func turningRowsIsExact(rowCount: Int) {
        let width = 37, columns = 40, stride = 48, lanes = (rowCount + 7) & ~7
        let rows = Self.samples(stride * rowCount, seed: UInt64(rowCount))
        var turned = [Float](repeating: .nan, count: columns * lanes)
        var back = [Float](repeating: .nan, count: stride * rowCount)
        rows.withUnsafeBufferPointer { rows in
            turned.withUnsafeMutableBufferPointer { t in
                SlidingHorizontal.turn(rows.baseAddress!, stride: stride, rowCount: rowCount, into: t.baseAddress!, lanes: lanes, columns: columns)
            }
        }
        for row in 0..<rowCount {
            for x in 0..<columns where turned[x * lanes + row] != rows[row * stride + x] {
                Issue.record("turned row \(row), column \(x)")
                return
            }
        }
        turned.withUnsafeBufferPointer { t in
            back.withUnsafeMutableBufferPointer { b in
                SlidingHorizontal.turnBack(t.baseAddress!, lanes: lanes, into: b.baseAddress!, stride: stride, rowCount: rowCount, columns: columns)
            }
        }
        for row in 0..<rowCount {
            #expect(Array(back[(row * stride)..<(row * stride + width)]) == Array(rows[(row * stride)..<(row * stride + width)]))
        }
    }
}
