import CEngines
import Testing
@testable import FilterChain

/// The Lanczos resize's two passes run in C with AVX where the processor has it
/// (fc_resample_vertical, fc_resample_horizontal); they must give, bit for bit, what
/// Resample.swift's own loops give, so that output never depends on the machine.
@Suite struct ResampleKernelTests {
    /// Sizes that reach every branch: shrinking and enlarging, widths that are and are not
    /// multiples of 8, 16 and 32, an output count that is not a multiple of 8, a crop window.
    static let cases: [(input: ImageSize, output: ImageSize, window: PixelRect)] = [
        (ImageSize(width: 2560, height: 1440), ImageSize(width: 800, height: 450), PixelRect(x: 0, y: 0, width: 800, height: 450)),
        (ImageSize(width: 333, height: 97), ImageSize(width: 101, height: 29), PixelRect(x: 0, y: 0, width: 101, height: 29)),
        (ImageSize(width: 45, height: 30), ImageSize(width: 131, height: 77), PixelRect(x: 0, y: 0, width: 131, height: 77)),
        (ImageSize(width: 1000, height: 600), ImageSize(width: 300, height: 300), PixelRect(x: 50, y: 0, width: 203, height: 300)),
        (ImageSize(width: 7, height: 9), ImageSize(width: 3, height: 2), PixelRect(x: 0, y: 0, width: 3, height: 2)),
    ]

    @Test(arguments: 0..<cases.count)
    func kernelsMatchTheSwiftLoopsBitForBit(index: Int) throws {
        try #require(fc_kernels_have_avx() != 0, "no AVX here: the Swift loops are the only path")
        let c = Self.cases[index]
        let r = Resample(input: c.input, output: c.output, window: c.window)
        let stride = (c.input.width + 7) & ~7
        // Out of range on purpose (a chain may hold any values), with exact zeros and a
        // negative zero among them.
        let image = SlidingBlurTests.samples(stride * c.input.height, seed: UInt64(index + 7)).enumerated().map {
            $0.offset % 97 == 0 ? 0 : $0.offset % 89 == 0 ? -0.0 : $0.element
        }
        let outputs = (c.output.width + 7) & ~7
        var scratchA = [Float](repeating: 0, count: r.scratchCount)
        var scratchB = scratchA
        try image.withUnsafeBufferPointer { image in
            let row = { (y: Int) in image.baseAddress! + y * stride }
            for y in 0..<c.window.height {
                var expected = [Float](repeating: .nan, count: outputs)
                var got = [Float](repeating: .nan, count: outputs)
                expected.withUnsafeMutableBufferPointer { e in
                    scratchA.withUnsafeMutableBufferPointer { s in
                        r.run(y: y, input: row, destination: e.baseAddress!, scratch: s.baseAddress!, vectorised: false)
                    }
                }
                got.withUnsafeMutableBufferPointer { g in
                    scratchB.withUnsafeMutableBufferPointer { s in
                        r.run(y: y, input: row, destination: g.baseAddress!, scratch: s.baseAddress!)
                    }
                }
                let n = c.window.width
                let same = zip(expected.prefix(n), got.prefix(n)).allSatisfy { $0.bitPattern == $1.bitPattern }
                try #require(same, "row \(y) of \(c.input) -> \(c.output): \(Array(expected.prefix(n).prefix(8))) against \(Array(got.prefix(n).prefix(8)))")
            }
        }
    }
}
