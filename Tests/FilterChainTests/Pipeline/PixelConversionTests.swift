import CEngines
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

    /// fc_kernels' packing loops (the plain one and, where the processor has it, the AVX2
    /// one) give the Swift loop's bytes exactly, for every width and the special values.
    @Test(arguments: [Channels.rgb, .rgba])
    func theCPackingLoopsAreTheSwiftOnes(channels: Channels) {
        let n = channels.count
        let conversion = OutputConversion(channels: channels, depth: .eight, leg: .stored, background: nil)
        for width in [1, 2, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 333] {
            var storage = (0..<4).flatMap { Self.values(count: width, seed: UInt64(1000 + width * 4 + $0)) }
            storage.withUnsafeMutableBufferPointer { s in
                let base = s.baseAddress!
                let p = PlanarPixels(red: base, green: base + width, blue: base + 2 * width, alpha: base + 3 * width)
                var reference = [UInt8](repeating: 0, count: width * n + 8)
                reference.withUnsafeMutableBytes { conversion.packEightBitReference(p, width: width, into: $0.baseAddress!) }
                for wide in [Int32(0), 1] {
                    var out = [UInt8](repeating: 0, count: width * n + 8)
                    out.withUnsafeMutableBufferPointer {
                        fc_pack_rgb8(p.red, p.green, p.blue, p.alpha, Int32(n), $0.baseAddress!, width, wide)
                    }
                    #expect(out[..<(width * n)] == reference[..<(width * n)], "width \(width), wide \(wide)")
                }
            }
        }
    }

    /// fc_kernels' unpacking loops give each 8-bit sample over 255 exactly as the conversion's
    /// table holds it (Float(Double(i) / 255)), for all 256 values, RGB and RGBA, both loops.
    @Test(arguments: [3, 4])
    func theCUnpackingLoopsGiveTheTablesValues(channels: Int) {
        let width = 256 + 3
        let samples = (0..<(width * channels)).map { UInt8(truncatingIfNeeded: $0 * 7 + $0 / channels) }
        for wide in [Int32(0), 1] {
            var planes = [Float](repeating: -1, count: 4 * width)
            planes.withUnsafeMutableBufferPointer { s in
                let base = s.baseAddress!
                samples.withUnsafeBufferPointer {
                    fc_unpack_rgb8($0.baseAddress!, Int32(channels), base, base + width, base + 2 * width, base + 3 * width, width, wide)
                }
            }
            for x in 0..<width {
                for c in 0..<channels {
                    let v = samples[x * channels + c]
                    #expect(planes[c * width + x] == Float(Double(v) / 255), "wide \(wide) pixel \(x) channel \(c)")
                }
            }
            if channels == 3 { #expect(planes[(3 * width)...].allSatisfy { $0 == -1 }, "RGB wrote alpha") }
        }
        // Every value, each channel.
        for v in 0...255 { #expect(Float(Double(v) / 255) == Float(v) / 255) }
    }
}
