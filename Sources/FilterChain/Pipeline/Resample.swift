import CEngines
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Lanczos3 weights along one axis, with Pillow's resampling convention
/// (`Image.resize(LANCZOS, reducing_gap=None)`): from `n_in` samples to `n_out`, with
/// scale = n_in / n_out, f = max(scale, 1) and support = 3 f, output sample i (centre
/// c = (i + 0.5) scale) takes input samples j from max(trunc(c - support + 0.5), 0) up to
/// min(trunc(c + support + 0.5), n_in) - 1, each weighted L((j - c + 0.5) / f) with
/// L(x) = sinc(x) sinc(x / 3) on -3 <= x < 3, the weights normalised to sum 1. Taps beyond
/// the edges are dropped, not clamped. Only the outputs in `window` are kept (a cover fit's
/// crop), indexed from the window's start.
struct ResampleAxis: Sendable {
    /// For each kept output: the first input sample it reads (Int32, as fc_resample_horizontal
    /// reads it too).
    let first: [Int32]
    /// For each kept output: how many input samples it reads.
    let count: [Int32]
    /// `taps` weights per kept output; past the output's `count`, zeros.
    let weights: [Float]
    /// The largest number of input samples any output reads, rounded up to a multiple of 8.
    let taps: Int

    init(input nIn: Int, output nOut: Int, window: Range<Int>) {
        let scale = Double(nIn) / Double(nOut)
        let f = max(scale, 1)
        let support = 3 * f
        var first: [Int32] = [], count: [Int32] = [], rows: [[Double]] = []
        for i in window {
            let c = (Double(i) + 0.5) * scale
            let lo = max(Int(c - support + 0.5), 0)
            let hi = min(Int(c + support + 0.5), nIn)
            var w = (lo..<hi).map { ResampleAxis.lanczos3((Double($0) - c + 0.5) / f) }
            let total = w.reduce(0, +)
            if total != 0 { w = w.map { $0 / total } }
            first.append(Int32(lo))
            count.append(Int32(hi - lo))
            rows.append(w)
        }
        // Whole SIMD8 steps, the weights past each output's own count zero.
        let taps = (max(1, Int(count.max() ?? 1)) + 7) & ~7
        var weights = [Float](repeating: 0, count: taps * rows.count)
        for (o, w) in rows.enumerated() {
            for (k, v) in w.enumerated() { weights[o * taps + k] = Float(v) }
        }
        self.first = first
        self.count = count
        self.weights = weights
        self.taps = taps
    }

    static func sinc(_ x: Double) -> Double {
        if x == 0 { return 1 }
        let px = Double.pi * x
        return sin(px) / px
    }

    static func lanczos3(_ x: Double) -> Double {
        (-3 <= x && x < 3) ? sinc(x) * sinc(x / 3) : 0
    }

    /// The input samples output `o` (window-relative) reads.
    func inputs(of o: Int) -> Range<Int> { Int(first[o])..<Int(first[o] + count[o]) }
}

/// A Lanczos3 resize as a row source: output row y is the vertical resampling of the input
/// rows it reads (a weighted sum of whole rows, eight columns at a time), then the
/// horizontal resampling of that row. Either axis is skipped when its size does not change
/// and nothing is cropped from it (its weights would be the identity).
struct Resample: Sendable {
    let input: ImageSize
    let vertical: ResampleAxis?
    let horizontal: ResampleAxis?

    init(input: ImageSize, output: ImageSize, window: PixelRect) {
        self.input = input
        vertical = (output.height == input.height && window.height == input.height) ? nil
            : ResampleAxis(input: input.height, output: output.height, window: window.y..<(window.y + window.height))
        horizontal = (output.width == input.width && window.width == input.width) ? nil
            : ResampleAxis(input: input.width, output: output.width, window: window.x..<(window.x + window.width))
    }

    /// The input rows output row `y` reads.
    func inputRows(of y: Int) -> Range<Int> { vertical?.inputs(of: y) ?? y..<(y + 1) }

    /// Scratch floats `run` needs: one input row, and room for the last horizontal taps
    /// (zeros) past its end.
    var scratchCount: Int { ((input.width + 7) & ~7) + (horizontal?.taps ?? 0) + 8 }

    /// Computes output row `y` of one plane into `destination`. Where the processor has AVX,
    /// both passes are CEngines' (fc_resample_vertical and fc_resample_horizontal), bit for
    /// bit these loops' results (ResampleKernelTests); `vectorised: false` runs these loops.
    func run(y: Int, input row: (Int) -> UnsafePointer<Float>, destination: UnsafeMutablePointer<Float>,
             scratch: UnsafeMutablePointer<Float>, vectorised: Bool = true) {
        let padded = (input.width + 7) & ~7
        let line: UnsafePointer<Float>
        if let vertical {
            // For each group of columns, the sum over the input rows in registers:
            // w0 r0 + w1 r1 + ... in that order (the same sums, to the bit, as adding each
            // row into a line of sums, without its loads and stores).
            let n = Int(vertical.count[y]), j0 = Int(vertical.first[y])
            vertical.weights.withUnsafeBufferPointer { w in
                let weights = w.baseAddress! + y * vertical.taps
                withUnsafeTemporaryAllocation(of: UnsafePointer<Float>?.self, capacity: max(n, 1)) { rows in
                    for k in 0..<n { rows[k] = row(j0 + k) }
                    if vectorised, fc_resample_vertical(rows.baseAddress!, weights, n, scratch, padded) != 0 { return }
                    var x = 0
                    while x + 16 <= padded {
                        let w0 = SIMD8<Float>(repeating: weights[0])
                        var a = w0 * load8(rows[0].unsafelyUnwrapped + x), b = w0 * load8(rows[0].unsafelyUnwrapped + x + 8)
                        var k = 1
                        while k < n {
                            let wk = SIMD8<Float>(repeating: weights[k])
                            a = a + wk * load8(rows[k].unsafelyUnwrapped + x)
                            b = b + wk * load8(rows[k].unsafelyUnwrapped + x + 8)
                            k += 1
                        }
                        store8(a, scratch + x)
                        store8(b, scratch + x + 8)
                        x += 16
                    }
                    if x < padded {
                        var a = SIMD8<Float>(repeating: weights[0]) * load8(rows[0].unsafelyUnwrapped + x)
                        var k = 1
                        while k < n {
                            a = a + SIMD8<Float>(repeating: weights[k]) * load8(rows[k].unsafelyUnwrapped + x)
                            k += 1
                        }
                        store8(a, scratch + x)
                    }
                }
            }
            line = UnsafePointer(scratch)
        } else if horizontal != nil {
            scratch.update(from: row(y), count: input.width)
            line = UnsafePointer(scratch)
        } else {
            line = row(y)
        }
        guard let horizontal else {
            destination.update(from: line, count: padded)
            return
        }
        // Horizontal taps read whole SIMD8 steps: zeros past the row's last sample.
        (scratch + input.width).update(repeating: 0, count: padded - input.width + horizontal.taps + 8)
        if vectorised, fc_resample_horizontal(line, horizontal.first, horizontal.count, horizontal.weights,
                                              horizontal.taps, horizontal.first.count, destination) != 0 {
            return
        }
        horizontal.weights.withUnsafeBufferPointer { w in
            horizontal.first.withUnsafeBufferPointer { first in
                horizontal.count.withUnsafeBufferPointer { count in
                    let taps = horizontal.taps
                    for x in 0..<first.count {
                        let src = line + Int(first[x])
                        let wx = w.baseAddress! + x * taps
                        // Whole SIMD8 steps; the weights past count are zero, and so are the
                        // samples past the row.
                        var sum = load8(src) * load8(wx)
                        var k = 8
                        while k < Int(count[x]) {
                            sum += load8(src + k) * load8(wx + k)
                            k += 8
                        }
                        destination[x] = sum.sum()
                    }
                }
            }
        }
    }
}
