import Foundation
import Testing
@testable import FilterChain

/// The HDR signal equations against the levels BT.2408 gives, and the rendition's tables
/// against the plain formulas they sample.
@Suite struct HDRSignalTests {
    @Test func referenceWhiteAndPeaks() {
        // BT.2408: 203 cd/m² is 58% PQ and 75% HLG (on a 1,000 cd/m² display).
        #expect(abs(HDRSignal.pq(203) - 0.5806) < 1e-4)
        #expect(abs(HDRSignal.hlg(display: SIMD3(repeating: 203)).x - 0.75) < 1e-3)
        #expect(abs(HDRSignal.pq(10000) - 1) < 1e-12 && HDRSignal.pq(0) < 1e-6)
        // (BT.2100's a, b, c have eight digits: the peak's signal is 1 to about 5e-9.)
        #expect(abs(HDRSignal.hlg(display: SIMD3(repeating: 1000)).x - 1) < 1e-8)
        for nits in [0.01, 1, 100, 203, 1000, 4000] {
            #expect(abs(HDRSignal.pqNits(HDRSignal.pq(nits)) - nits) / nits < 1e-9)
        }
    }

    @Test func tablesFollowTheFormulas() {
        var worstPQ = 0.0, worstSRGB = 0.0
        var nits = 1e-4
        while nits <= 10000 {
            worstPQ = max(worstPQ, abs(Double(GainMapRendition.Tables.pq(nits)) - HDRSignal.pq(nits)))
            nits *= 1.013
        }
        for i in 0...100_000 {
            let v = Double(i) / 100_000
            let t = v * Double(GainMapRendition.Tables.cells)
            let k = min(Int(t), GainMapRendition.Tables.cells - 1)
            let table = GainMapRendition.Tables.srgb
            worstSRGB = max(worstSRGB, abs(table[k] + (t - Double(k)) * (table[k + 1] - table[k]) - SRGB.decode(v)))
        }
        // Both far under a 16-bit output step (1.5e-5).
        #expect(worstPQ < 2e-6, "\(worstPQ)")
        #expect(worstSRGB < 1e-6, "\(worstSRGB)")
    }
}
