import Foundation
import Testing
@testable import FilterChain

/// HDR sources without a map (PQ, HLG by nclx or cICP): their legs against BT.2408's levels,
/// and BT.2390's EETF against its own definition's properties.
@Suite struct HDRInputTests {
    /// A BT.2020 nclx with `transfer`, as an AVIF says it.
    static func nclx(_ transfer: UInt16) -> ImageMetadata {
        var m = ImageMetadata()
        m.nclx = NCLXColor(colourPrimaries: 9, transferCharacteristics: transfer, matrixCoefficients: 9, fullRange: true)
        return m
    }

    /// The working-space values of 16-bit grey samples `signal` (0...1) through `metadata`'s leg.
    static func values(_ signals: [Double], metadata: ImageMetadata, space: WorkingSpace) throws -> [SIMD3<Float>] {
        let (colour, warning) = ImageColour.of(metadata)
        #expect(warning == nil)
        let leg = try InputLeg.into(space, from: colour, intent: .relative, sampleBytes: 2)
        let conversion = InputConversion(format: PixelFormat(.rgb, .sixteen), leg: leg)
        let n = (signals.count + 7) & ~7
        var samples = [UInt16](repeating: 0, count: 3 * n)
        for (i, s) in signals.enumerated() { for c in 0..<3 { samples[3 * i + c] = UInt16((s * 65535).rounded()) } }
        let planes = UnsafeMutableRawPointer.allocate(byteCount: 4 * n * 4, alignment: 32).bindMemory(to: Float.self, capacity: 4 * n)
        defer { planes.deallocate() }
        planes.initialize(repeating: 0, count: 4 * n)
        let p = PlanarPixels(red: planes, green: planes + n, blue: planes + 2 * n, alpha: planes + 3 * n)
        samples.withUnsafeBytes { conversion.convert($0.baseAddress!, width: n, into: p) }
        return signals.indices.map { SIMD3(p.red[$0], p.green[$0], p.blue[$0]) }
    }

    @Test func pqGreyIsLightOverSDRWhite() throws {
        // 58% PQ is 203 cd/m², SDR white (BT.2408): 1.0; 1,000 cd/m² is 4.93.
        let signals = [HDRSignal.pq(203), HDRSignal.pq(1000), HDRSignal.pq(20.3)]
        let v = try Self.values(signals, metadata: Self.nclx(16), space: .linearRec2020)
        for (value, expected) in zip(v, [1.0, 1000 / 203.0, 0.1]) {
            // 16-bit samples: a step of PQ is about 0.03% of the light near white.
            #expect(abs(Double(value.x) - expected) / expected < 2e-3, "\(value) for \(expected)")
            #expect(value.x == value.y && value.y == value.z)
        }
        // In the sRGB working space the same white is 1.0 encoded, and highlights stay above it.
        let srgb = try Self.values(signals, metadata: Self.nclx(16), space: .srgb)
        #expect(abs(srgb[0].x - 1) < 2e-3)
        #expect(srgb[1].x > 1.9)
    }

    @Test func hlgWhiteIsSeventyFivePercent() throws {
        // BT.2408: 75% HLG is 203 cd/m² on the 1,000 cd/m² display BT.2100's OOTF is for.
        let v = try Self.values([0.75, 1.0], metadata: Self.nclx(18), space: .linearRec2020)
        #expect(abs(v[0].x - 1) < 2e-3, "\(v[0])")
        #expect(abs(Double(v[1].x) - 1000 / 203.0) < 1e-2, "\(v[1])")
    }

    @Test func hdrSourcesAreDescribedAsHDR() {
        guard case .hdr(.pq, _) = ImageColour.of(Self.nclx(16)).colour else { Issue.record("PQ"); return }
        guard case .hdr(.hlg, _) = ImageColour.of(Self.nclx(18)).colour else { Issue.record("HLG"); return }
        guard case .profile = ImageColour.of(Self.nclx(1)).colour else { Issue.record("BT.709"); return }
    }

    @Test func eetfKeepsTheDarkAndRollsOffToThePeak() throws {
        let map = try #require(ToneMap(sourcePeak: 1000, targetPeak: 203))
        #expect(ToneMap(sourcePeak: 1000, targetPeak: 1000) == nil)
        // The knee: KS = 1.5 m - 0.5, m = PQ(203) / PQ(1000).
        let m = HDRSignal.pq(203) / HDRSignal.pq(1000)
        let knee = HDRSignal.pqNits((1.5 * m - 0.5) * HDRSignal.pq(1000))
        #expect(knee > 80 && knee < 110, "\(knee)")
        for nits in [0.05, 1, 10, knee * 0.99] { #expect(abs(map(nits) - nits) < 1e-9 * max(nits, 1)) }
        // The source's peak reaches the target's exactly; brighter light is held there.
        #expect(abs(map(1000) - 203) < 1e-6)
        #expect(abs(map(4000) - 203) < 1e-6)
        // Monotonic and continuous (the spline starts at the knee with slope 1 in PQ).
        var last = 0.0
        var nits = 1.0
        while nits <= 1000 {
            let out = map(nits)
            #expect(out >= last - 1e-9 && out <= nits + 1e-9)
            last = out
            nits *= 1.01
        }
        #expect(abs(map(knee * 1.001) - knee * 1.001) / knee < 1e-3)
    }

    /// The tables the SDR rendition uses, against the formulas they sample: the tone map's
    /// scale (from 1,000 and from 4,000 cd/m²) and the sRGB encoding.
    @Test func tablesFollowTheFormulas() throws {
        for peak in [1000.0, 4000.0] {
            let map = try #require(ToneMap(sourcePeak: peak, targetPeak: 203))
            var worst = 0.0
            var nits = 1.0
            while nits < 12000 {
                worst = max(worst, abs(map.scale(nits) - map(nits) / nits) / (map(nits) / nits))
                nits *= 1.003
            }
            #expect(worst < 1e-5, "from \(peak): \(worst)")
        }
        var worst = 0.0
        for i in -100...200_000 {
            let v = Double(i) / 100_000
            worst = max(worst, abs(GainMapRendition.Tables.encode(v) - (v < 0 ? 12.92 * v : SRGB.encode(v))))
        }
        // Far under a 16-bit output step (1.5e-5).
        #expect(worst < 1e-6, "\(worst)")
    }

}
