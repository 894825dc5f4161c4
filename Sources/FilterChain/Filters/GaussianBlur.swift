import CEngines
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A Gaussian blur that never bleeds colour out of transparent pixels.
public struct GaussianBlur: Filter {
    public var sigma: Double

    /// Values are checked when a chain with this filter is rendered (see `validate()`).
    public init(sigma: Double = 2) { self.sigma = sigma }

    public init() { self.init(sigma: 2) }

    public static let declaration = FilterDeclaration<GaussianBlur>(
        type: "gaussianBlur",
        group: .detail,
        summary: "Gaussian blur on premultiplied colour: no halos around transparency.",
        documentation: """
            The separable convolution, horizontal then vertical, with the sampled Gaussian

                w_i = exp(-i^2 / (2 sigma^2)),  |i| <= ceil(4 sigma),  normalised to sum 1,

            with edge pixels repeated beyond the border. It works on premultiplied colour and
            alpha (colour times alpha, and alpha), then divides colour by the blurred alpha
            (colour is 0 where alpha is 0), so transparent pixels never bleed their colour
            into opaque ones. sigma 0 leaves the image unchanged.

            Up to ceil(4 sigma) = 16 the convolution is computed directly. Beyond that, in
            time independent of sigma: the truncated kernel is fitted, by least squares, with
            a0 + sum_{k=1..4} a_k cos(k pi i / (ceil(4 sigma) + 1)) on |i| <= ceil(4 sigma),
            and each cosine term is a sliding sum over the window. The fitted kernel's L1
            error is below 2.2e-3 (below 1e-3 from sigma 5), so results stay within a level
            of the direct convolution; the issue's bound is 2 levels at most and 0.25 on
            average on 8-bit photographs.
            """,
        parameters: [
            .number("sigma", \.sigma, in: 0...500, help: "standard deviation in pixels; the blur reaches ceil(4 sigma) pixels")
                .measured(in: .pixels),
        ])

    public func operation() -> FilterOperation {
        sigma == 0 || !isValid ? .identity : .separable(GaussianKernel(sigma: sigma))
    }

    public var keepsNeutralNeutral: Bool { true }
}

/// The kernel: direct convolution for short reaches, sliding cosine sums for long ones.
struct GaussianKernel: SeparableKernel {
    let sigma: Double
    let radius: Int
    /// w_0 ... w_radius, normalised so the whole symmetric kernel sums to 1.
    let weights: [Float]
    let sliding: SlidingCosines?

    /// Up to this reach the convolution is computed directly.
    static let directReach = 16

    init(sigma: Double) {
        self.sigma = sigma
        radius = Int((4 * sigma).rounded(.up))
        let raw = (0...radius).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let total = raw[0] + 2 * raw.dropFirst().reduce(0, +)
        weights = raw.map { Float($0 / total) }
        sliding = radius > Self.directReach ? SlidingCosines(sigma: sigma, radius: radius) : nil
    }

    func makeHorizontalPass(width: Int) -> any HorizontalPass {
        if let sliding { return SlidingHorizontal(sums: sliding, width: width) }
        return DirectHorizontal(weights: weights, width: width)
    }

    func makeVerticalPass(width: Int, height: Int) -> any VerticalPass {
        if let sliding { return SlidingVertical(sums: sliding, width: width, height: height) }
        return DirectVertical(weights: weights)
    }
}

// MARK: - Direct convolution

struct DirectHorizontal: HorizontalPass {
    /// w_0 ... w_radius, each in every lane.
    let weights: [SIMD8<Float>]
    /// The same, one float each, for fc_blur_horizontal.
    let scalars: [Float]
    let width: Int
    /// Whether fc_blur_horizontal (AVX2) may run the taps; the Swift loop is the reference
    /// it is tested against, and the path without AVX2.
    let vector: Bool

    init(weights: [Float], width: Int, vector: Bool = true) {
        self.weights = weights.map { SIMD8(repeating: $0) }
        scalars = weights
        self.width = width
        self.vector = vector
    }

    func run(_ rows: UnsafeMutablePointer<Float>, stride: Int, rowCount: Int) {
        let k = weights.count - 1
        let padded = (width + 7) & ~7
        // The row with k copies of each end pixel on either side, and room for the last
        // SIMD step.
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: padded + 2 * k + 8)
        defer { scratch.deallocate() }
        let w = weights
        for r in 0..<rowCount {
            let row = rows + r * stride
            scratch.update(repeating: row[0], count: k)
            (scratch + k).update(from: row, count: width)
            (scratch + k + width).update(repeating: row[width - 1], count: padded - width + k + 8)
            let center = UnsafePointer(scratch + k)
            // AVX2 where the processor has it: the Swift loop below on the SSE2 baseline
            // took 12% of W1's samples.
            if vector, scalars.withUnsafeBufferPointer({ fc_blur_horizontal($0.baseAddress!, Int32(k), center, row, padded) }) != 0 {
                continue
            }
            var x = 0
            while x < padded {
                var sum = w[0] * load8(center + x)
                var i = 1
                while i <= k {
                    sum += w[i] * (load8(center + x - i) + load8(center + x + i))
                    i += 1
                }
                store8(sum, row + x)
                x += 8
            }
        }
    }
}

final class DirectVertical: VerticalPass {
    let weights: [SIMD8<Float>]
    /// The same, one float each, for fc_blur_vertical.
    let scalars: [Float]
    /// As DirectHorizontal's.
    let vector: Bool

    init(weights: [Float], vector: Bool = true) {
        self.weights = weights.map { SIMD8(repeating: $0) }
        scalars = weights
        self.vector = vector
    }

    func run(y: Int, input: (Int) -> UnsafePointer<Float>, destination: UnsafeMutablePointer<Float>, columns: Range<Int>) {
        let k = weights.count - 1
        let center = input(y)
        // 32 columns at a time held in registers across all taps: each input value is loaded
        // once, the output stored once.
        withUnsafeTemporaryAllocation(of: UnsafePointer<Float>.self, capacity: 2 * max(k, 1)) { rows in
            for i in 0..<k {
                rows[2 * i] = input(y - i - 1)
                rows[2 * i + 1] = input(y + i + 1)
            }
            // AVX2 where the processor has it (15% of W1's samples in the Swift loop).
            if vector, scalars.withUnsafeBufferPointer({
                fc_blur_vertical($0.baseAddress!, Int32(k), center, UnsafePointer(OpaquePointer(rows.baseAddress!)), destination,
                                 columns.lowerBound, columns.upperBound)
            }) != 0 {
                return
            }
            weights.withUnsafeBufferPointer { w in
                let w0 = w[0]
                var x = columns.lowerBound
                while x + 32 <= columns.upperBound {
                    var s0 = w0 * load8(center + x), s1 = w0 * load8(center + x + 8)
                    var s2 = w0 * load8(center + x + 16), s3 = w0 * load8(center + x + 24)
                    for i in 0..<k {
                        let up = rows[2 * i], down = rows[2 * i + 1], wi = w[i + 1]
                        s0 += wi * (load8(up + x) + load8(down + x))
                        s1 += wi * (load8(up + x + 8) + load8(down + x + 8))
                        s2 += wi * (load8(up + x + 16) + load8(down + x + 16))
                        s3 += wi * (load8(up + x + 24) + load8(down + x + 24))
                    }
                    store8(s0, destination + x)
                    store8(s1, destination + x + 8)
                    store8(s2, destination + x + 16)
                    store8(s3, destination + x + 24)
                    x += 32
                }
                while x < columns.upperBound {
                    var s0 = w0 * load8(center + x)
                    for i in 0..<k {
                        s0 += w[i + 1] * (load8(rows[2 * i] + x) + load8(rows[2 * i + 1] + x))
                    }
                    store8(s0, destination + x)
                    x += 8
                }
            }
        }
    }
}

// MARK: - Sliding cosine sums

/// The kernel fitted with cosines, a0 + sum_k a_k cos(k w i) on |i| <= radius with
/// w = pi / (radius + 1), so that the convolution becomes sliding sums:
///
///     y(n) = a0 S(n) + sum_k a_k (cos(k w n) C_k(n) + sin(k w n) D_k(n))
///
/// where S, C_k and D_k sum x(m), x(m) cos(k w m) and x(m) sin(k w m) over the window
/// n - radius ... n + radius. Moving the window adds one sample and removes one, whatever the
/// radius. Phases are absolute (taken at m, not m - n), so the sums are only ever added to:
/// rounding errors do not grow with the sums' age faster than any running sum's.
struct SlidingCosines: Sendable {
    static let terms = 4
    let radius: Int
    let omega: Double
    /// a0 ... a_terms.
    let coefficients: [Float]

    init(sigma: Double, radius: Int) {
        self.radius = radius
        let omega = Double.pi / Double(radius + 1)
        self.omega = omega
        let p = Self.terms
        let raw = (-radius...radius).map { exp(-Double($0 * $0) / (2 * sigma * sigma)) }
        let total = raw.reduce(0, +)
        let g = raw.map { $0 / total }
        // Least squares: (A^T A) a = A^T g with A[i][k] = cos(k w i).
        var normal = [[Double]](repeating: [Double](repeating: 0, count: p + 2), count: p + 1)
        for (index, i) in (-radius...radius).enumerated() {
            let row = (0...p).map { cos(Double($0) * omega * Double(i)) }
            for r in 0...p {
                for c in 0...p { normal[r][c] += row[r] * row[c] }
                normal[r][p + 1] += row[r] * g[index]
            }
        }
        coefficients = SlidingCosines.solve(normal).map(Float.init)
    }

    /// Gaussian elimination with partial pivoting on an augmented matrix.
    static func solve(_ matrix: [[Double]]) -> [Double] {
        var m = matrix
        let n = m.count
        for col in 0..<n {
            let pivot = (col..<n).max { abs(m[$0][col]) < abs(m[$1][col]) }!
            m.swapAt(col, pivot)
            for r in 0..<n where r != col {
                let f = m[r][col] / m[col][col]
                for c in col...n { m[r][c] -= f * m[col][c] }
            }
        }
        return (0..<n).map { m[$0][n] / m[$0][$0] }
    }

    /// cos(k w m), sin(k w m) for k = 1...terms, at positions m in -radius-1 ... length+radius.
    func phases(length: Int) -> Phases { Phases(sums: self, length: length) }

    struct Phases: Sendable {
        let first: Int
        /// 2 * terms values per position: cos(k w m) for k = 1..., then sin(k w m).
        let values: [Float]
        /// The same times a_k, for the output.
        let weighted: [Float]

        init(sums: SlidingCosines, length: Int) {
            first = -sums.radius - 1
            let last = length + sums.radius
            var values: [Float] = [], weighted: [Float] = []
            values.reserveCapacity((last - first + 1) * 2 * SlidingCosines.terms)
            weighted.reserveCapacity(values.capacity)
            for m in first...last {
                for trig in [cos, sin] as [(Double) -> Double] {
                    for k in 1...SlidingCosines.terms {
                        let v = trig(Double(k) * sums.omega * Double(m))
                        values.append(Float(v))
                        weighted.append(Float(v * Double(sums.coefficients[k])))
                    }
                }
            }
            self.values = values
            self.weighted = weighted
        }

        @inline(__always) func at(_ m: Int) -> Int { (m - first) * 2 * SlidingCosines.terms }
    }

    /// The running sums of `lanes` independent signals: S, then C_1...C_terms, then
    /// D_1...D_terms, each `lanes` floats.
    static let stateCount = 1 + 2 * terms

    /// Adds `weight`-scaled sample at position m (or subtracts, with a negative sign).
    @inline(__always)
    func accumulate(_ state: UnsafeMutablePointer<Float>, lanes: Int, sample: UnsafePointer<Float>,
                    phase: UnsafePointer<Float>, sign: Float, columns: Range<Int>) {
        let p = Self.terms
        var x = columns.lowerBound
        let s = SIMD8<Float>(repeating: sign)
        while x < columns.upperBound {
            let v = s * load8(sample + x)
            store8(load8(state + x) + v, state + x)
            for k in 0..<p {
                let c = state + (1 + k) * lanes + x
                let d = state + (1 + p + k) * lanes + x
                store8(load8(c) + v * SIMD8(repeating: phase[k]), c)
                store8(load8(d) + v * SIMD8(repeating: phase[p + k]), d)
            }
            x += 8
        }
    }

    /// Moves the window from n - 1 to n (adds sample n + radius, removes n - radius - 1) and
    /// writes y(n), in one sweep, so each column's sums are loaded and stored once.
    @inline(__always)
    func slideAndOutput(_ state: UnsafeMutablePointer<Float>, lanes: Int, entering: UnsafePointer<Float>,
                        enteringPhase: UnsafePointer<Float>, leaving: UnsafePointer<Float>,
                        leavingPhase: UnsafePointer<Float>, weighted: UnsafePointer<Float>,
                        into destination: UnsafeMutablePointer<Float>, columns: Range<Int>) {
        let p = Self.terms
        let a0 = SIMD8<Float>(repeating: coefficients[0])
        var x = columns.lowerBound
        while x < columns.upperBound {
            let vin = load8(entering + x), vout = load8(leaving + x)
            let s = load8(state + x) + (vin - vout)
            store8(s, state + x)
            var sum = a0 * s
            for k in 0..<p {
                let c = state + (1 + k) * lanes + x
                let d = state + (1 + p + k) * lanes + x
                let cv = load8(c) + (vin * SIMD8(repeating: enteringPhase[k]) - vout * SIMD8(repeating: leavingPhase[k]))
                let dv = load8(d) + (vin * SIMD8(repeating: enteringPhase[p + k]) - vout * SIMD8(repeating: leavingPhase[p + k]))
                store8(cv, c)
                store8(dv, d)
                sum += SIMD8(repeating: weighted[k]) * cv + SIMD8(repeating: weighted[p + k]) * dv
            }
            store8(sum, destination + x)
            x += 8
        }
    }

    /// `slideAndOutput` for `count` consecutive positions: step i adds `entering[i]`, removes
    /// `leaving[i]` and writes `outputs[i]`; the phase tables advance one position a step.
    /// The loop is C's (fc_sliding_cosines, in CEngines): eight or four columns at a time,
    /// their nine sums held in registers across all the steps instead of loaded and stored
    /// at each position. It does the arithmetic of `slideAndOutput` in the same order, so
    /// the result is bit for bit the same.
    func slide(_ state: UnsafeMutablePointer<Float>, lanes: Int, count: Int,
               entering: UnsafePointer<UnsafePointer<Float>?>, enteringPhase: UnsafePointer<Float>,
               leaving: UnsafePointer<UnsafePointer<Float>?>, leavingPhase: UnsafePointer<Float>,
               weighted: UnsafePointer<Float>, outputs: UnsafePointer<UnsafeMutablePointer<Float>?>,
               columns: Range<Int>) {
        precondition(Self.terms == 4, "fc_sliding_cosines holds four cosine terms")
        precondition(columns.lowerBound % 8 == 0 && columns.count % 8 == 0, "whole blocks of 8 columns")
        fc_sliding_cosines(state, lanes, count, entering, enteringPhase, leaving, leavingPhase, weighted, outputs,
                           coefficients[0], columns.lowerBound, columns.count)
    }

    /// y(n) from the sums; `weighted` holds a_k cos(k w n), then a_k sin(k w n).
    @inline(__always)
    func output(_ state: UnsafePointer<Float>, lanes: Int, weighted: UnsafePointer<Float>, into destination: UnsafeMutablePointer<Float>, columns: Range<Int>) {
        let p = Self.terms
        let a0 = SIMD8<Float>(repeating: coefficients[0])
        var x = columns.lowerBound
        while x < columns.upperBound {
            var sum = a0 * load8(state + x)
            for k in 0..<p {
                sum += SIMD8(repeating: weighted[k]) * load8(state + (1 + k) * lanes + x)
                    + SIMD8(repeating: weighted[p + k]) * load8(state + (1 + p + k) * lanes + x)
            }
            store8(sum, destination + x)
            x += 8
        }
    }
}

/// The vertical pass with sliding sums: one state per column, rows in order.
final class SlidingVertical: VerticalPass {
    let sums: SlidingCosines
    let phases: SlidingCosines.Phases
    let lanes: Int
    let state: UnsafeMutablePointer<Float>

    init(sums: SlidingCosines, width: Int, height: Int) {
        self.sums = sums
        phases = sums.phases(length: height)
        lanes = (width + 7) & ~7
        state = .allocate(capacity: lanes * SlidingCosines.stateCount)
        state.initialize(repeating: 0, count: lanes * SlidingCosines.stateCount)
    }

    deinit { state.deallocate() }

    func run(rows: Range<Int>, input: (Int) -> UnsafePointer<Float>, destination: (Int) -> UnsafeMutablePointer<Float>, columns: Range<Int>) {
        var first = rows.lowerBound
        if first == 0, !rows.isEmpty {
            run(y: 0, input: input, destination: destination(0), columns: columns)
            first = 1
        }
        let count = rows.upperBound - first
        guard count > 0 else { return }
        let r = sums.radius
        withUnsafeTemporaryAllocation(of: UnsafePointer<Float>?.self, capacity: 2 * count) { pointers in
          withUnsafeTemporaryAllocation(of: UnsafeMutablePointer<Float>?.self, capacity: count) { outputs in
            let entering = pointers.baseAddress!, leaving = entering + count
            for i in 0..<count {
                entering[i] = input(first + i + r)
                leaving[i] = input(first + i - r - 1)
                outputs[i] = destination(first + i)
            }
            phases.values.withUnsafeBufferPointer { ph in
              phases.weighted.withUnsafeBufferPointer { wph in
                sums.slide(state, lanes: lanes, count: count,
                           entering: entering, enteringPhase: ph.baseAddress! + phases.at(first + r),
                           leaving: UnsafePointer(leaving), leavingPhase: ph.baseAddress! + phases.at(first - r - 1),
                           weighted: wph.baseAddress! + phases.at(first), outputs: outputs.baseAddress!, columns: columns)
              }
            }
          }
        }
    }

    func run(y: Int, input: (Int) -> UnsafePointer<Float>, destination: UnsafeMutablePointer<Float>, columns: Range<Int>) {
        let r = sums.radius
        phases.values.withUnsafeBufferPointer { ph in
          phases.weighted.withUnsafeBufferPointer { wph in
            let base = ph.baseAddress!
            if y == 0 {
                for s in 0..<SlidingCosines.stateCount {
                    (state + s * lanes + columns.lowerBound).update(repeating: 0, count: columns.count)
                }
                for m in -r...r {
                    sums.accumulate(state, lanes: lanes, sample: input(m), phase: base + phases.at(m), sign: 1, columns: columns)
                }
                sums.output(state, lanes: lanes, weighted: wph.baseAddress! + phases.at(y), into: destination, columns: columns)
            } else {
                sums.slideAndOutput(state, lanes: lanes, entering: input(y + r), enteringPhase: base + phases.at(y + r),
                                    leaving: input(y - r - 1), leavingPhase: base + phases.at(y - r - 1),
                                    weighted: wph.baseAddress! + phases.at(y), into: destination, columns: columns)
            }
          }
        }
    }
}

/// The horizontal pass with sliding sums: a block of rows is turned on its side so that the
/// sums run along the row for all rows of the block at once (rows are the SIMD lanes).
struct SlidingHorizontal: HorizontalPass {
    let sums: SlidingCosines
    let phases: SlidingCosines.Phases
    let width: Int

    init(sums: SlidingCosines, width: Int) {
        self.sums = sums
        self.width = width
        phases = sums.phases(length: width)
    }

    func run(_ rows: UnsafeMutablePointer<Float>, stride: Int, rowCount: Int) {
        let lanes = (rowCount + 7) & ~7
        let r = sums.radius
        // Column x of the block, as `lanes` floats (one per row).
        // Whole blocks of 4 columns (the stride leaves room), so that rows turn 4 x 4.
        let padded = (width + 3) & ~3
        let turned = UnsafeMutablePointer<Float>.allocate(capacity: padded * lanes)
        let out = UnsafeMutablePointer<Float>.allocate(capacity: padded * lanes)
        let state = UnsafeMutablePointer<Float>.allocate(capacity: lanes * SlidingCosines.stateCount)
        defer {
            turned.deallocate()
            out.deallocate()
            state.deallocate()
        }
        state.initialize(repeating: 0, count: lanes * SlidingCosines.stateCount)
        (out + width * lanes).initialize(repeating: 0, count: (padded - width) * lanes)
        Self.turn(rows, stride: stride, rowCount: rowCount, into: turned, lanes: lanes, columns: padded)
        // Lanes past the last row: zeros, not whatever the allocation held.
        if rowCount < lanes {
            for x in 0..<padded { (turned + x * lanes + rowCount).initialize(repeating: 0, count: lanes - rowCount) }
        }
        let all = 0..<lanes
        let column = { (x: Int) in UnsafePointer(turned + min(max(x, 0), width - 1) * lanes) }
        phases.values.withUnsafeBufferPointer { ph in
          phases.weighted.withUnsafeBufferPointer { wph in
            let base = ph.baseAddress!, weighted = wph.baseAddress!
            for m in -r...r {
                sums.accumulate(state, lanes: lanes, sample: column(m), phase: base + phases.at(m), sign: 1, columns: all)
            }
            sums.output(state, lanes: lanes, weighted: weighted + phases.at(0), into: out, columns: all)
            let count = width - 1
            if count > 0 {
                withUnsafeTemporaryAllocation(of: UnsafePointer<Float>?.self, capacity: 2 * count) { pointers in
                  withUnsafeTemporaryAllocation(of: UnsafeMutablePointer<Float>?.self, capacity: count) { outputs in
                    let entering = pointers.baseAddress!, leaving = entering + count
                    for i in 0..<count {
                        entering[i] = column(1 + i + r)
                        leaving[i] = column(i - r)
                        outputs[i] = out + (1 + i) * lanes
                    }
                    sums.slide(state, lanes: lanes, count: count,
                               entering: entering, enteringPhase: base + phases.at(1 + r),
                               leaving: UnsafePointer(leaving), leavingPhase: base + phases.at(-r),
                               weighted: weighted + phases.at(1), outputs: outputs.baseAddress!, columns: all)
                  }
                }
            }
          }
        }
        Self.turnBack(out, lanes: lanes, into: rows, stride: stride, rowCount: rowCount, columns: padded)
    }

    /// turned[x * lanes + row] = rows[row * stride + x] for x < columns, four rows and four
    /// columns at a time.
    static func turn(_ rows: UnsafePointer<Float>, stride: Int, rowCount: Int,
                     into turned: UnsafeMutablePointer<Float>, lanes: Int, columns: Int) {
        var row = 0
        while row + 4 <= rowCount {
            let r0 = rows + row * stride, r1 = r0 + stride, r2 = r1 + stride, r3 = r2 + stride
            var x = 0
            while x < columns {
                let a = load4(r0 + x), b = load4(r1 + x), c = load4(r2 + x), d = load4(r3 + x)
                let t = turned + x * lanes + row
                store4(SIMD4(a[0], b[0], c[0], d[0]), t)
                store4(SIMD4(a[1], b[1], c[1], d[1]), t + lanes)
                store4(SIMD4(a[2], b[2], c[2], d[2]), t + 2 * lanes)
                store4(SIMD4(a[3], b[3], c[3], d[3]), t + 3 * lanes)
                x += 4
            }
            row += 4
        }
        for row in row..<rowCount {
            let source = rows + row * stride
            for x in 0..<columns { turned[x * lanes + row] = source[x] }
        }
    }

    /// The inverse of `turn`.
    static func turnBack(_ turned: UnsafePointer<Float>, lanes: Int, into rows: UnsafeMutablePointer<Float>,
                         stride: Int, rowCount: Int, columns: Int) {
        var row = 0
        while row + 4 <= rowCount {
            let r0 = rows + row * stride, r1 = r0 + stride, r2 = r1 + stride, r3 = r2 + stride
            var x = 0
            while x < columns {
                let t = turned + x * lanes + row
                let a = load4(t), b = load4(t + lanes), c = load4(t + 2 * lanes), d = load4(t + 3 * lanes)
                store4(SIMD4(a[0], b[0], c[0], d[0]), r0 + x)
                store4(SIMD4(a[1], b[1], c[1], d[1]), r1 + x)
                store4(SIMD4(a[2], b[2], c[2], d[2]), r2 + x)
                store4(SIMD4(a[3], b[3], c[3], d[3]), r3 + x)
                x += 4
            }
            row += 4
        }
        for row in row..<rowCount {
            let destination = rows + row * stride
            for x in 0..<columns { destination[x] = turned[x * lanes + row] }
        }
    }
}

@inline(__always) private func load4(_ p: UnsafePointer<Float>) -> SIMD4<Float> {
    UnsafeRawPointer(p).loadUnaligned(as: SIMD4<Float>.self)
}

@inline(__always) private func store4(_ v: SIMD4<Float>, _ p: UnsafeMutablePointer<Float>) {
    UnsafeMutableRawPointer(p).storeBytes(of: v, as: SIMD4<Float>.self)
}
