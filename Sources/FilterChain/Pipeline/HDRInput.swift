#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// HDR sources without a gain map: PQ or HLG samples (an AVIF or HEIC whose nclx says so, a
// PNG whose cICP does) come into the chain as linear light with SDR white, 203 cd/m²
// (ITU-R BT.2408), at 1.0; their highlights are values above 1. An SDR output of such a
// source is tone-mapped (`SDRRendition`, BT.2390's EETF); an HDR output (`--hdr`) writes the
// light as it is, tone-mapped only to a smaller headroom than the source's.

extension HDRSignal {
    /// The peak a PQ source is taken to be graded for (its content's highest light), in
    /// cd/m²: the common mastering display's 1,000 (a brighter highlight is held at it by the
    /// tone mapping). HLG's is its nominal peak, `hlgPeak`, the same 1,000.
    static let pqSourcePeak = 1000.0

    /// The headroom of a peak, in stops above SDR white.
    static func headroom(of peak: Double) -> Double { log2(peak / sdrWhite) }

    /// BT.2100 HLG's inverse OETF: a signal 0...1 to scene light 0...1.
    static func hlgScene(_ signal: Double) -> Double {
        let a = 0.17883277, b = 1 - 4 * 0.17883277, c = 0.5 - 0.17883277 * log(4 * 0.17883277)
        let v = min(max(signal, 0), 1)
        return v <= 0.5 ? v * v / 3 : (exp((v - c) / a) + b) / 12
    }
}

extension HDRTransfer {
    /// A sample's light as this transfer's decoding gives it, per channel, with SDR white at
    /// 1.0: PQ's EOTF over 203 cd/m²; HLG's inverse OETF (scene light, 0...1; the OOTF that
    /// makes it display light needs all three channels: `HLGDisplayKernel`).
    var decodingCurve: CurveEvaluator {
        switch self {
        case .pq: CurveEvaluator(sampling: { HDRSignal.pqNits($0) / HDRSignal.sdrWhite })
        case .hlg: CurveEvaluator(sampling: HDRSignal.hlgScene)
        }
    }

    /// The peak a source with this transfer is taken to have, in cd/m²: a PQ source's MaxCLL
    /// where its file gives one (a clli box), held within SDR white and PQ's 10,000; else
    /// 1,000 (PQ's common mastering peak; HLG's nominal peak, whatever its file says).
    func sourcePeak(_ light: ContentLightLevel?) -> Double {
        guard self == .pq else { return HDRSignal.hlgPeak }
        guard let light, light.maxCLL > 0 else { return HDRSignal.pqSourcePeak }
        return min(max(Double(light.maxCLL), HDRSignal.sdrWhite), 10000)
    }
}

/// HLG's OOTF for a 1,000 cd/m² display (BT.2100), then a conversion: scene light E (the
/// source's primaries) to display light Fd = 1000 Ys^(gamma - 1) E, over 203 cd/m² (so
/// BT.2408's 75% HLG white is 1.0), with Ys the scene luminance of the source's primaries.
struct HLGDisplayKernel: PointKernel {
    /// Luminance weights of the source's primaries.
    let weights: SIMD3<Float>
    /// The primaries' linear values to the working space's (matrix and curve).
    let then: MatrixTRCKernel

    func apply(_ p: PlanarPixels, count: Int) {
        let scale = Float(HDRSignal.hlgPeak / HDRSignal.sdrWhite), exponent = Float(HDRSignal.hlgGamma - 1)
        for x in 0..<count {
            let r = p.red[x], g = p.green[x], b = p.blue[x]
            let ys = max(weights.x * r + weights.y * g + weights.z * b, 0)
            let k = ys > 0 ? scale * powf(ys, exponent) : 0
            p.red[x] = r * k; p.green[x] = g * k; p.blue[x] = b * k
        }
        then.apply(p, count: count)
    }
}

extension InputLeg {
    /// The leg of an HDR source: its transfer's decoding by table of the samples, then (HLG)
    /// the OOTF, then its primaries' matrix into the working space and the space's curve
    /// (unbounded: highlights stay above 1).
    static func hdr(_ transfer: HDRTransfer, primaries: ColorProfile, into space: WorkingSpace) throws(ColorProfileError) -> InputLeg {
        guard let full = MatrixTRCKernel.input(from: primaries, to: space) else {
            throw ColorProfileError.cannotUse("the HDR source's primaries give no conversion into \(space.rawValue)")
        }
        let matrix = full.withoutFirstCurves
        let curve = transfer.decodingCurve
        switch transfer {
        case .pq:
            return InputLeg(decodesSRGB: false, kernel: matrix, lut: nil, sampleCurves: [curve, curve, curve])
        case .hlg:
            // Ys in the source's primaries: sRGB's luminance weights through the primaries'
            // matrix into linear sRGB.
            let toSRGB = MatrixTRCKernel.input(from: primaries, to: .linear)?.matrix ?? .identity
            let w = WorkingSpace.linear.luminanceWeights
            let weights = (0..<3).map { j in w.x * toSRGB[0, j] + w.y * toSRGB[1, j] + w.z * toSRGB[2, j] }
            return InputLeg(decodesSRGB: false,
                            kernel: HLGDisplayKernel(weights: SIMD3(Float(weights[0]), Float(weights[1]), Float(weights[2])), then: matrix),
                            lut: nil, sampleCurves: [curve, curve, curve])
        }
    }
}

/// ITU-R BT.2390's EETF (section 5.4.1): light from a source graded up to `sourcePeak` onto
/// a display that reaches `targetPeak` (cd/m², black 0 for both), in PQ's perceptual space:
///
///     E1 = PQ(L) / PQ(sourcePeak)                   (clamped to 0...1)
///     m  = PQ(targetPeak) / PQ(sourcePeak),   KS = 1.5 m - 0.5
///     E2 = E1                                       for E1 < KS
///        = (2T³ - 3T² + 1) KS + (T³ - 2T² + T)(1 - KS) + (-2T³ + 3T²) m,   T = (E1 - KS) / (1 - KS)
///     L' = PQ⁻¹(E2 PQ(sourcePeak))
///
/// Light below KS is kept as it is; above it a Hermite spline rolls it off to the target's
/// peak. It is applied to the largest of a pixel's BT.2020 components, and the pixel scaled
/// by L' / L (hue and saturation kept).
struct ToneMap: Sendable {
    let sourcePeak: Double, targetPeak: Double
    private let sourceSignal: Double, m: Double, ks: Double
    /// Light below it is kept as it is (the knee, KS, in cd/m²).
    private let knee: Double
    /// `scale` from the knee up, sampled at (i / cells)^4 x 10,000 cd/m² (indexed by the
    /// fourth root of the light, as PQ's table is; linear interpolation, within 1e-5 of the
    /// formula: HDRInputTests).
    private let scales: [Double]
    static let cells = 4096

    /// nil when the target holds the source (nothing to map).
    init?(sourcePeak: Double, targetPeak: Double) {
        guard targetPeak < sourcePeak, targetPeak > 0 else { return nil }
        self.sourcePeak = sourcePeak
        self.targetPeak = targetPeak
        sourceSignal = HDRSignal.pq(sourcePeak)
        m = HDRSignal.pq(targetPeak) / sourceSignal
        ks = 1.5 * m - 0.5
        knee = HDRSignal.pqNits(max(ks, 0) * sourceSignal)
        var scales = [Double](repeating: 1, count: Self.cells + 1)
        let (m, ks, sourceSignal) = (self.m, self.ks, self.sourceSignal)
        for i in 1...Self.cells {
            let t = Double(i) / Double(Self.cells)
            let nits = t * t * t * t * 10000
            scales[i] = Self.eetf(nits, m: m, ks: ks, sourceSignal: sourceSignal) / nits
        }
        self.scales = scales
    }

    private static func eetf(_ nits: Double, m: Double, ks: Double, sourceSignal: Double) -> Double {
        let e1 = min(max(HDRSignal.pq(nits) / sourceSignal, 0), 1)
        guard e1 >= ks else { return nits }
        let t = (e1 - ks) / (1 - ks), t2 = t * t, t3 = t2 * t
        let e2 = (2 * t3 - 3 * t2 + 1) * ks + (t3 - 2 * t2 + t) * (1 - ks) + (-2 * t3 + 3 * t2) * m
        return HDRSignal.pqNits(e2 * sourceSignal)
    }

    /// The light `nits` (cd/m²) becomes (the formula).
    func callAsFunction(_ nits: Double) -> Double {
        Self.eetf(nits, m: m, ks: ks, sourceSignal: sourceSignal)
    }

    /// The factor a pixel whose largest BT.2020 component is `nits` is scaled by: 1 below
    /// the knee, else EETF(nits) / nits by the table (the formula above 10,000 cd/m²).
    @inline(__always)
    func scale(_ nits: Double) -> Double {
        guard nits > knee else { return 1 }
        guard nits < 10000 else { return self(nits) / nits }
        let position = (nits / 10000).squareRoot().squareRoot() * Double(Self.cells)
        let i = min(Int(position), Self.cells - 1)
        return scales[i] + (position - Double(i)) * (scales[i + 1] - scales[i])
    }
}

/// Something an output makes of each row of working-space values before its conversion (an
/// HDR signal, a tone-mapped SDR image): `render` writes `width` pixels of row `y` of `p`
/// (straight colour, read only) into `out`'s colour planes.
protocol RowRendition: Sendable {
    func render(_ p: PlanarPixels, row y: Int, width count: Int, into out: PlanarPixels)
}

/// The SDR rendition of an HDR source (`ToneMap` from the source's peak to SDR white, 203
/// cd/m², which becomes 1.0): working-space values in, working-space values out, for the
/// output's own conversion.
final class SDRRendition: RowRendition {
    /// nil: the source's light does not pass SDR white (nothing to map).
    let toneMap: ToneMap?
    let encoded: Bool
    let toRec2020: Matrix3
    /// Its rows, for the pixels.
    private let rows: (SIMD3<Double>, SIMD3<Double>, SIMD3<Double>)
    /// A gain map being made beside the SDR image (`--gain-map create`): each pixel's gain,
    /// 1 / s, into its row.
    let map: GainMapInProgress?

    init(space: WorkingSpace, sourcePeak: Double, map: GainMapInProgress? = nil) {
        toneMap = ToneMap(sourcePeak: sourcePeak, targetPeak: HDRSignal.sdrWhite)
        encoded = !space.isLinear
        toRec2020 = WorkingSpace.linearRec2020.rgbToXYZ.inverse! * space.rgbToXYZ
        rows = (toRec2020.row(0), toRec2020.row(1), toRec2020.row(2))
        self.map = map
    }

    func render(_ p: PlanarPixels, row y: Int, width count: Int, into out: PlanarPixels) {
        let gains = map?.row(y)
        for x in 0..<count {
            var v = SIMD3<Double>(Double(p.red[x]), Double(p.green[x]), Double(p.blue[x]))
            if encoded { v = SIMD3(GainMapRendition.decode(v.x), GainMapRendition.decode(v.y), GainMapRendition.decode(v.z)) }
            let largest = max((rows.0 * v).sum(), (rows.1 * v).sum(), (rows.2 * v).sum(), 0)
            let s = toneMap?.scale(largest * HDRSignal.sdrWhite) ?? 1
            v *= s
            if let gains { gains[x] = map!.level(gain: 1 / s) }
            if encoded {
                v = SIMD3(GainMapRendition.Tables.encode(v.x), GainMapRendition.Tables.encode(v.y), GainMapRendition.Tables.encode(v.z))
            }
            out.red[x] = Float(v.x); out.green[x] = Float(v.y); out.blue[x] = Float(v.z)
        }
    }
}
