import Foundation
import Testing
@testable import FilterChain

/// The vectorised x^p that gamma and levels use, against Double pow.
@Suite struct PowerFunctionTests {
    @Test(arguments: [0.1, 0.45, 1 / 2.2, 0.8, 1.7, 2.2, 3.3, 10])
    func againstDoublePow(p: Double) {
        var random = SeededRandom(UInt64(p * 1000))
        var xs: [Float] = [0, 1, 0.5, 2, 1e-6, 0.999_999, 1.000_001, 1.414_213_5, 0.707_106_8]
        xs += (0..<4000).map { _ in Float.random(in: 0...1, using: &random) }
        xs += (0..<1000).map { _ in Float(exp2(Double.random(in: -12...12, using: &random))) }
        xs += (0..<65536).map { Float($0) / 65535 }
        var worst = 0.0
        var i = 0
        while i + 8 <= xs.count {
            let x = SIMD8<Float>(xs[i..<(i + 8)])
            let y = power(x, Float(p))
            for k in 0..<8 {
                let exact = pow(Double(x[k]), Double(Float(p)))
                // Below float's normal range the answer is 0 or subnormal: compare absolutely.
                let error = exact < Double(Float.leastNormalMagnitude)
                    ? (abs(Double(y[k]) - exact) <= Double(Float.leastNormalMagnitude) ? 0 : 1)
                    : abs(Double(y[k]) - exact) / exact
                worst = max(worst, error)
            }
            i += 8
        }
        #expect(worst < 1e-5, "p \(p): relative error \(worst)")
    }

    /// Values outside the polynomials' range go through powf: NaN, infinity, subnormals,
    /// results beyond float's range, and 0.
    @Test func edgeValues() {
        let x = SIMD8<Float>(.nan, .infinity, Float.leastNonzeroMagnitude, Float.leastNormalMagnitude / 16, 1e30, 0, 3e38, 0.25)
        for p: Float in [0.1, 2, 10] {
            let y = power(x, p)
            for k in 0..<8 {
                let expected = powf(x[k], p)
                #expect(y[k] == expected || (y[k].isNaN && expected.isNaN) || abs(y[k] - expected) <= 5e-6 * abs(expected),
                        "\(x[k])^\(p): \(y[k]) vs \(expected)")
            }
        }
    }

    /// A lane's result depends on that lane alone: the same value beside neighbours that
    /// need powf (NaN, subnormal, huge: what a row's padding lanes may hold) and beside
    /// ordinary ones is the same bits. (Found by the random-chain test: a gamma step's pixels
    /// changed with the strip height, through the garbage in a 7-wide row's padding lane.)
    @Test func lanesDoNotDependOnTheirNeighbours() {
        var random = SeededRandom(19)
        for p: Float in [0.1, 2.2, 10] {
            for _ in 0..<500 {
                let values = (0..<8).map { _ in Float.random(in: 0...1, using: &random) }
                let plain = power(SIMD8<Float>(values), p)
                for lane in 0..<8 {
                    for odd: Float in [.nan, Float.leastNormalMagnitude / 16, 3e38, .infinity] {
                        var mixed = SIMD8<Float>(values)
                        mixed[lane] = odd
                        let y = power(mixed, p)
                        for k in 0..<8 where k != lane {
                            #expect(y[k].bitPattern == plain[k].bitPattern, "\(values[k])^\(p) beside \(odd)")
                        }
                    }
                }
            }
        }
    }
}
