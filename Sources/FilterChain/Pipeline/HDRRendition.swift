#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The transfer an HDR output's samples are encoded with (ITU-R BT.2100).
public enum HDRTransfer: String, Sendable, Hashable, CaseIterable {
    /// Perceptual quantizer (SMPTE ST 2084): absolute, 0 to 10,000 cd/m².
    case pq
    /// Hybrid log-gamma, in BT.2100's display-referred form for a 1,000 cd/m² display.
    case hlg

    /// Its code point in nclx and cICP (H.273 transfer characteristics).
    public var codePoint: UInt16 { self == .pq ? 16 : 18 }

    /// The transfer whose code point this is (16 or 18), else nil.
    public init?(codePoint: UInt16) {
        switch codePoint {
        case 16: self = .pq
        case 18: self = .hlg
        default: return nil
        }
    }
}

/// An output written as HDR (`EncodeOptions.hdr`): the HDR rendition of the chain's image,
/// BT.2020 primaries, PQ or HLG, with SDR white at 203 cd/m² (ITU-R BT.2408).
public struct HDROutput: Sendable, Hashable {
    public var transfer: HDRTransfer
    /// The headroom rendered, in stops above SDR white (the display's peak over 203 cd/m²);
    /// nil: the gain map's full capacity for PQ, a 1,000 cd/m² display's (2.3 stops) for HLG.
    public var headroom: Double?

    /// The headrooms an output may ask for, in stops.
    public static let headroomRange: ClosedRange<Double> = 0...16

    public init(_ transfer: HDRTransfer, headroom: Double? = nil) {
        self.transfer = transfer
        self.headroom = headroom
    }
}

/// How a format says that its samples are HDR (`FormatCapabilities.hdr`).
public enum HDRSignalling: String, Sendable, Hashable {
    /// An nclx colour box (AVIF, HEIF): BT.2020 primaries and matrix, the transfer, full range.
    case nclx
    /// PNG's cICP chunk (PNG third edition): BT.2020, the transfer, RGB, full range.
    case cicp
}

/// The signal equations, in cd/m² of display light.
enum HDRSignal {
    /// SDR reference white (ITU-R BT.2408): the HDR rendition's 1.0.
    static let sdrWhite = 203.0
    /// HLG's nominal peak, the display its display-referred form is for.
    static let hlgPeak = 1000.0
    /// HLG's system gamma at a 1,000 cd/m² peak (BT.2100).
    static let hlgGamma = 1.2

    /// SMPTE ST 2084's inverse EOTF: cd/m² (0 to 10,000) to a signal 0...1.
    static func pq(_ nits: Double) -> Double {
        let m1 = 2610.0 / 16384, m2 = 2523.0 / 4096 * 128
        let c1 = 3424.0 / 4096, c2 = 2413.0 / 4096 * 32, c3 = 2392.0 / 4096 * 32
        let y = pow(min(max(nits / 10000, 0), 1), m1)
        return pow((c1 + c2 * y) / (1 + c3 * y), m2)
    }

    /// ST 2084's EOTF: a signal to cd/m².
    static func pqNits(_ signal: Double) -> Double {
        let m1 = 2610.0 / 16384, m2 = 2523.0 / 4096 * 128
        let c1 = 3424.0 / 4096, c2 = 2413.0 / 4096 * 32, c3 = 2392.0 / 4096 * 32
        let e = pow(min(max(signal, 0), 1), 1 / m2)
        return 10000 * pow(max(e - c1, 0) / (c2 - c3 * e), 1 / m1)
    }

    /// BT.2100 HLG's OETF: scene light 0...1 to a signal 0...1.
    static func hlg(_ e: Double) -> Double {
        let a = 0.17883277, b = 1 - 4 * 0.17883277, c = 0.5 - 0.17883277 * log(4 * 0.17883277)
        let v = min(max(e, 0), 1)
        return v <= 1.0 / 12 ? sqrt(3 * v) : a * log(12 * v - b) + c
    }

    /// BT.2020's luminance weights.
    static let rec2020Weights = SIMD3<Double>(0.2627, 0.6780, 0.0593)

    /// Display light (BT.2020, cd/m²) to HLG signals: the OOTF inverted for a 1,000 cd/m²
    /// display (Fd = Ys^(gamma - 1) Es, normalised to the peak), then the OETF. 203 cd/m²
    /// white is 75% signal.
    static func hlg(display rgb: SIMD3<Double>) -> SIMD3<Double> {
        let fd = rgb / hlgPeak
        let yd = (fd * rec2020Weights).sum()
        let scale = yd > 0 ? pow(yd, (1 - hlgGamma) / hlgGamma) : 0
        let es = fd * scale
        return SIMD3(hlg(es.x), hlg(es.y), hlg(es.z))
    }
}

/// An output's HDR rendition, made from the working space's SDR values as each row reaches
/// the output (so it streams with the image): the values as linear light, the source's gain
/// map applied at the pixel (sampled bilinearly at the map's own scale: it has followed the
/// image's geometry already), then BT.2020 and the transfer.
///
///     log2 G = mix(gainMapMin, gainMapMax, g ^ (1 / gamma)) w
///     hdr    = (sdr + baseOffset) 2^(log2 G) - alternateOffset     (linear, 1.0 = 203 cd/m²)
///     w      = clamp((H - baseHeadroom) / (alternateHeadroom - baseHeadroom), 0, 1)
///
/// with H the headroom asked for (default: the map's full capacity for PQ, w = 1; for HLG
/// the 1,000 cd/m² display's, log2(1000 / 203) = 2.3 stops), sdr the
/// working space's values as linear light (not clamped: wide-gamut colours and what an edit
/// pushed above white are kept), and the result taken to BT.2020 and clamped at 0. Without
/// a map the SDR image is placed with its white at 203 cd/m².
final class GainMapRendition: RowRendition {
    let transfer: HDRTransfer
    /// Working-space values carry the sRGB curve (decoded first).
    let encoded: Bool
    /// Working-space primaries to BT.2020, linear.
    let toRec2020: Matrix3
    /// The map's samples over 255, `mapChannels` a pixel; empty without a map.
    let map: [Float]
    let mapWidth: Int, mapHeight: Int, mapChannels: Int
    let width: Int, height: Int
    /// Per channel (three): the map's metadata, and the weight.
    let minimum: SIMD3<Double>, maximum: SIMD3<Double>, inverseGamma: SIMD3<Double>
    let baseOffset: SIMD3<Double>, alternateOffset: SIMD3<Double>
    let weight: Double
    /// The map's gamma is 1 (no power to take).
    let gammaIsOne: Bool
    /// One value serves the three channels (one power and one exponential a pixel).
    let oneChannel: Bool
    /// An HDR source's light (no map) onto a smaller headroom than the source's peak.
    let toneMap: ToneMap?
    /// Measures the content light levels of what is rendered (an AVIF's clli box).
    let meter: ContentLightMeter?

    /// `map`: the gain map's metadata and its pixels (already moved with the image), or nil;
    /// `sourcePeak`: an HDR source's peak in cd/m² (its values are light already, and are
    /// tone-mapped to the headroom asked for when it is smaller: by default PQ's is the
    /// source's, HLG's its 1,000 cd/m² display's).
    init(_ output: HDROutput, space: WorkingSpace, width: Int, height: Int, map: (metadata: GainMap, image: RasterImage)?,
         sourcePeak: Double? = nil, meter: ContentLightMeter? = nil) {
        self.meter = meter
        transfer = output.transfer
        encoded = !space.isLinear
        toRec2020 = WorkingSpace.linearRec2020.rgbToXYZ.inverse! * space.rgbToXYZ
        self.width = width
        self.height = height
        if map == nil, let peak = sourcePeak {
            let h = output.headroom ?? (output.transfer == .hlg ? log2(HDRSignal.hlgPeak / HDRSignal.sdrWhite) : log2(peak / HDRSignal.sdrWhite))
            toneMap = ToneMap(sourcePeak: peak, targetPeak: HDRSignal.sdrWhite * exp2(h))
        } else {
            toneMap = nil
        }
        if let (m, image) = map {
            let channels = image.format.channels.count
            mapWidth = image.width
            mapHeight = image.height
            mapChannels = channels
            let maxValue = Float(image.format.depth.maxValue)
            self.map = image.samples.map { Float($0) / maxValue }
            minimum = SIMD3(m.gainMapMin[0], m.gainMapMin[1], m.gainMapMin[2])
            maximum = SIMD3(m.gainMapMax[0], m.gainMapMax[1], m.gainMapMax[2])
            inverseGamma = 1 / SIMD3(m.gamma[0], m.gamma[1], m.gamma[2])
            baseOffset = SIMD3(m.baseOffset[0], m.baseOffset[1], m.baseOffset[2])
            alternateOffset = SIMD3(m.alternateOffset[0], m.alternateOffset[1], m.alternateOffset[2])
            let base = m.baseHeadroom, alternate = m.alternateHeadroom
            // HLG is for a 1,000 cd/m² display: the map is rendered for its headroom
            // (log2(1000 / 203), 2.3 stops) rather than clipped there.
            let h = output.headroom ?? (output.transfer == .hlg ? log2(HDRSignal.hlgPeak / HDRSignal.sdrWhite) : max(base, alternate))
            weight = alternate == base ? (m.baseIsHDR ? 0 : 1) : min(max((h - base) / (alternate - base), 0), 1)
            gammaIsOne = inverseGamma == .one
            oneChannel = channels == 1 && [minimum, maximum, inverseGamma].allSatisfy { $0 == SIMD3(repeating: $0.x) }
        } else {
            self.map = []
            mapWidth = 0; mapHeight = 0; mapChannels = 0
            minimum = .zero; maximum = .zero; inverseGamma = .one
            baseOffset = .zero; alternateOffset = .zero
            weight = 0
            gammaIsOne = true; oneChannel = true
        }
    }

    /// The map's value of channel `c` at output pixel (x, y): bilinear, pixel centres aligned,
    /// edges clamped.
    @inline(__always)
    private func sample(x: Int, y: Int) -> SIMD3<Double> {
        let u = max((Double(x) + 0.5) * Double(mapWidth) / Double(width) - 0.5, 0)
        let v = max((Double(y) + 0.5) * Double(mapHeight) / Double(height) - 0.5, 0)
        let x0 = min(Int(u), mapWidth - 1), y0 = min(Int(v), mapHeight - 1)
        let x1 = min(x0 + 1, mapWidth - 1), y1 = min(y0 + 1, mapHeight - 1)
        let fx = Float(min(u - Double(x0), 1)), fy = Float(min(v - Double(y0), 1))
        var out = SIMD3<Double>.zero
        for c in 0..<mapChannels {
            let p00 = map[(y0 * mapWidth + x0) * mapChannels + c], p10 = map[(y0 * mapWidth + x1) * mapChannels + c]
            let p01 = map[(y1 * mapWidth + x0) * mapChannels + c], p11 = map[(y1 * mapWidth + x1) * mapChannels + c]
            let top = p00 + (p10 - p00) * fx, bottom = p01 + (p11 - p01) * fx
            out[c] = Double(top + (bottom - top) * fy)
        }
        return mapChannels == 1 ? SIMD3(repeating: out[0]) : out
    }

    /// The sRGB curve as the working spaces extend it (their kernels, lcms2's parametric
    /// curves): its linear segment below 0, by `Tables.srgb` within 0...1 (linear
    /// interpolation between 4,097 exact values, error below 1e-6), the formula beyond.
    @inline(__always)
    static func decode(_ v: Double) -> Double {
        if v < 0 { return v / 12.92 }
        if v <= 1 {
            let position = v * Double(Tables.cells)
            let i = min(Int(position), Tables.cells - 1)
            return Tables.srgb[i] + (position - Double(i)) * (Tables.srgb[i + 1] - Tables.srgb[i])
        }
        return SRGB.decode(v)
    }

    /// Tables of the rendition's curves, made once.
    enum Tables {
        static let cells = 4096
        /// The sRGB decoding function at i / cells.
        static let srgb: [Double] = (0...cells).map { SRGB.decode(Double($0) / Double(cells)) }
        /// PQ's signal at (i / cells)^4 x 10,000 cd/m²: indexed by the fourth root of the
        /// light, where the curve is gentle (linear interpolation: error below 2e-6 of full
        /// scale from 1e-4 cd/m² up, far under a 16-bit step).
        static let pq: [Double] = (0...cells).map { i in
            let t = Double(i) / Double(cells)
            return HDRSignal.pq(t * t * t * t * 10000)
        }

        /// The sRGB encoding function at (i / cells)², indexed by the square root of the
        /// light, where the curve is gentle (linear interpolation: error below 1e-7).
        static let srgbEncoding: [Double] = (0...cells).map { i in
            let u = Double(i) / Double(cells)
            return SRGB.encode(u * u)
        }

        /// The sRGB encoding function as the working spaces extend it (linear below 0), by
        /// `srgbEncoding` within 0...1, the formula beyond.
        @inline(__always)
        static func encode(_ v: Double) -> Double {
            if v < 0.0031308 { return 12.92 * v }
            if v > 1 { return SRGB.encode(v) }
            let position = v.squareRoot() * Double(cells)
            let i = min(Int(position), cells - 1)
            return srgbEncoding[i] + (position - Double(i)) * (srgbEncoding[i + 1] - srgbEncoding[i])
        }

        @inline(__always)
        static func pq(_ nits: Double) -> Float {
            let t = (min(max(nits / 10000, 0), 1)).squareRoot().squareRoot()
            let position = t * Double(cells)
            let i = min(Int(position), cells - 1)
            return Float(pq[i] + (position - Double(i)) * (pq[i + 1] - pq[i]))
        }
    }

    /// Row `y`'s `width` pixels of working-space values (straight colour, read only) as the
    /// HDR signal, each 0...1, into `out`'s colour planes.
    func render(_ p: PlanarPixels, row y: Int, width count: Int, into out: PlanarPixels) {
        var rowMax = 0.0, rowSum = 0.0
        defer { meter?.add(rowMax: rowMax, rowSum: rowSum, count: count) }
        for x in 0..<count {
            // Not clamped: a wide-gamut colour (a Display P3 photograph in the sRGB working
            // space) has values outside 0...1 that BT.2020 holds.
            var sdr = SIMD3<Double>(Double(p.red[x]), Double(p.green[x]), Double(p.blue[x]))
            if encoded { sdr = SIMD3(Self.decode(sdr.x), Self.decode(sdr.y), Self.decode(sdr.z)) }
            var hdr = sdr
            if !map.isEmpty {
                let g = sample(x: x, y: y)
                let gain: SIMD3<Double>
                if oneChannel {
                    // One value for the three channels: one power and one exponential.
                    let r = gammaIsOne ? g.x : Double(powf(Float(g.x), Float(inverseGamma.x)))
                    gain = SIMD3(repeating: Double(exp2f(Float((minimum.x + (maximum.x - minimum.x) * r) * weight))))
                } else {
                    let r = gammaIsOne ? g : SIMD3(Double(powf(Float(g.x), Float(inverseGamma.x))), Double(powf(Float(g.y), Float(inverseGamma.y))),
                                                   Double(powf(Float(g.z), Float(inverseGamma.z))))
                    let log2Gain = (minimum + (maximum - minimum) * r) * weight
                    gain = SIMD3(Double(exp2f(Float(log2Gain.x))), Double(exp2f(Float(log2Gain.y))), Double(exp2f(Float(log2Gain.z))))
                }
                hdr = (sdr + baseOffset) * gain - alternateOffset
            }
            var nits = (toRec2020 * hdr).clamped(lowerBound: .zero, upperBound: SIMD3(repeating: .infinity)) * HDRSignal.sdrWhite
            if let toneMap { nits *= toneMap.scale(nits.max()) }
            if meter != nil {
                // The light the signal holds: PQ's up to 10,000 cd/m², HLG's up to its peak.
                let light = min(nits.max(), transfer == .pq ? 10000 : HDRSignal.hlgPeak)
                rowMax = max(rowMax, light)
                rowSum += light
            }
            switch transfer {
            case .pq:
                out.red[x] = Tables.pq(nits.x)
                out.green[x] = Tables.pq(nits.y)
                out.blue[x] = Tables.pq(nits.z)
            case .hlg:
                let signal = HDRSignal.hlg(display: nits.clamped(lowerBound: .zero, upperBound: SIMD3(repeating: HDRSignal.hlgPeak)))
                out.red[x] = Float(signal.x)
                out.green[x] = Float(signal.y)
                out.blue[x] = Float(signal.z)
            }
        }
    }
}
