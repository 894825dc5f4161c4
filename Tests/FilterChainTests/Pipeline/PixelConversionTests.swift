import Testing
@testable import FilterChain

/// The conversion of working-space floats to stored 8-bit samples, against the documented
/// formula evaluated in Double: clamp to [0, 1] (NaN to 0), times 255, round half to even.
@Suite struct PixelConversionTests {
    /// The formula, in Double. nil where the Float product may round to the other side of a
    /// tie than the exact one (within 1e-4 of x.5): both answers are then accepted.
    static func expected(_ v: Float) -> (Int, Int) {
        let c = v.isNaN ? 0 : min(max(Double(v), 0), 1)
        let exact = c * 255
        let r = Int(exact.rounded(.toNearestOrEven))
        if abs(exact - exact.rounded(.down) - 0.5) < 1e-4 {
            return (Int(exact.rounded(.down)), Int(exact.rounded(.up)))
        }
        return (r, r)
    }

    static func values(count: Int, seed: UInt64) -> [Float] {
        var rng = SeededRandom(seed)
        let special: [Float] = [0, 1, 0.5, -0, -1, 2, .nan, .infinity, -.infinity, 1.5 / 255, 2.5 / 255,
                                254.5 / 255, 1e-30, 0.9999999, 1.0000001]
        return (0..<count).map { i in
            i % 5 == 0 ? special[(i / 5) % special.count] : Float.random(in: -0.1...1.1, using: &rng)
        }
    }

    @Test(arguments: [Channels.rgb, .rgba])
    func eightBitRowsOfEveryWidth(channels: Channels) {
        let n = channels.count
        let conversion = OutputConversion(channels: channels, depth: .eight, leg: .stored, background: nil)
        for width in 1...41 {
            let planes = (0..<4).map { Self.values(count: width, seed: UInt64(width * 4 + $0)) }
            var out = [UInt8](repeating: 0xAB, count: width * n + 8)
            var storage = planes.flatMap { $0 }
            storage.withUnsafeMutableBufferPointer { s in
                let base = s.baseAddress!
                let p = PlanarPixels(red: base, green: base + width, blue: base + 2 * width, alpha: base + 3 * width)
                out.withUnsafeMutableBytes { conversion.convert(p, hasAlpha: true, width: width, into: $0.baseAddress!) }
            }
            for x in 0..<width {
                for c in 0..<n {
                    let v = planes[c][x]
                    let (low, high) = Self.expected(v)
                    let got = Int(out[x * n + c])
                    #expect(got == low || got == high, "width \(width) pixel \(x) channel \(c): \(v) gave \(got)")
                }
            }
            // Nothing is written past the row.
            #expect(out[(width * n)...].allSatisfy { $0 == 0xAB }, "width \(width) wrote past the row")
        }
    }
}
