import Foundation
import Testing
@testable import FilterChain
import CLCMS
import CEngines

/// fc_lcms's CMYK tables (made on several threads) and its interpolator for them (four
/// inputs, three outputs; called by lcms2, or for 8-bit samples straight from the table) give
/// lcms2's own results to the bit: the same transform made with lcms2's interpolators only is the
/// reference, on every intent, 8- and 16-bit samples, over a lattice of edge values, sweeps
/// of each channel and random samples, for every CMYK profile at hand.
@Suite(.serialized) struct LCMSInterpolationTests {
    static let ghostscriptCMYK = "/usr/share/color/icc/ghostscript/default_cmyk.icc"

    static var profiles: [String] {
        ICCData.names(in: .cmyk).map { ICCData.folder.appendingPathComponent($0).path }
            + (FileManager.default.fileExists(atPath: ghostscriptCMYK) ? [ghostscriptCMYK] : [])
    }

    /// 8-bit samples: every combination of edge values, each channel swept over all 256
    /// values with the others random, then random samples.
    static func eightBitSamples(random count: Int) -> [UInt8] {
        let edges: [UInt8] = [0, 1, 2, 11, 12, 127, 128, 200, 244, 254, 255]
        var out: [UInt8] = []
        for c in edges { for m in edges { for y in edges { for k in edges { out += [c, m, y, k] } } } }
        var random = SeededRandom(41)
        for channel in 0..<4 {
            for v in 0...255 {
                var pixel = (0..<4).map { _ in UInt8.random(in: 0...255, using: &random) }
                pixel[channel] = UInt8(v)
                out += pixel
            }
        }
        for _ in 0..<(count * 4) { out.append(UInt8.random(in: 0...255, using: &random)) }
        return out
    }

    static func sixteenBitSamples(random count: Int) -> [UInt16] {
        let edges: [UInt16] = [0, 1, 2978, 2979, 32767, 32768, 62557, 65534, 65535]
        var out: [UInt16] = []
        for c in edges { for m in edges { for y in edges { for k in edges { out += [c, m, y, k] } } } }
        var random = SeededRandom(43)
        for _ in 0..<(count * 4) { out.append(UInt16.random(in: 0...65535, using: &random)) }
        return out
    }

    static func run(_ transform: LCMSTransform, _ samples: UnsafeRawBufferPointer, count: Int) -> [UInt16] {
        var out = [UInt16](repeating: 0, count: count * 3)
        out.withUnsafeMutableBufferPointer { transform.run(samples: samples.baseAddress!, into: $0.baseAddress!, count: count) }
        return out
    }

    /// With AVX2 where the processor has it, and in scalar code (on every processor).
    @Test(arguments: RenderingIntent.allCases, [true, false])
    func ownInterpolationIsLCMS2sToTheBit(intent: RenderingIntent, avx2: Bool) throws {
        #expect(!Self.profiles.isEmpty)
        let eight = Self.eightBitSamples(random: 250_000)
        let sixteen = Self.sixteenBitSamples(random: 100_000)
        for path in Self.profiles {
            let cmyk = try ColorProfile(iccData: [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
            for bytes in [1, 2] {
                // Other suites' transforms made meanwhile may take the scalar code too: the same results.
                fc_lcms_allow_avx2(avx2 ? 1 : 0)
                let own = try LCMSTransform(samplesFrom: cmyk, bytes: bytes, to: .srgb, intent: intent,
                                            blackPointCompensation: true, lcms2Interpolation: false)
                fc_lcms_allow_avx2(1)
                let reference = try LCMSTransform(samplesFrom: cmyk, bytes: bytes, to: .srgb, intent: intent,
                                                  blackPointCompensation: true, lcms2Interpolation: true)
                #expect(own.usesOwnInterpolation, "\(path): lcms2 does not call fc_lcms's interpolator")
                #expect(!reference.usesOwnInterpolation)
                // 8-bit samples are evaluated straight from the table (the memo's misses).
                let direct = bytes == 2 ? 0 : avx2 && fc_lcms_has_avx2() != 0 ? 2 : 1
                #expect(own.directEvaluation == direct && reference.directEvaluation == 0, "\(path)")
                #expect(own.madeOwnTable && !reference.madeOwnTable, "\(path): the table was not made by fc_lcms")
                let (a, b): ([UInt16], [UInt16]) = bytes == 1
                    ? eight.withUnsafeBytes { (Self.run(own, $0, count: eight.count / 4), Self.run(reference, $0, count: eight.count / 4)) }
                    : sixteen.withUnsafeBytes { (Self.run(own, $0, count: sixteen.count / 4), Self.run(reference, $0, count: sixteen.count / 4)) }
                let differing = zip(a, b).filter { $0 != $1 }.count
                #expect(differing == 0, "\(path) \(intent) \(bytes * 8)-bit: \(differing) samples differ from lcms2's")
            }
        }
    }
}
