import CEngines
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The sRGB transfer function, both ways, exactly as documented.
enum SRGB {
    static func decode(_ v: Double) -> Double { v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }
    static func encode(_ v: Double) -> Double { v <= 0.0031308 ? 12.92 * v : 1.055 * pow(v, 1 / 2.4) - 0.055 }
    /// `encode` as the working spaces extend it: its linear segment below 0.
    static func encodeExtended(_ v: Double) -> Double { v < 0 ? 12.92 * v : encode(v) }
}

/// Eight Floats from any address (planes are not 32-byte aligned); the conversions below,
/// and the blur's passes, move pixels with these.
@inline(__always) func load8(_ p: UnsafePointer<Float>) -> SIMD8<Float> {
    UnsafeRawPointer(p).loadUnaligned(as: SIMD8<Float>.self)
}

@inline(__always) func store8(_ v: SIMD8<Float>, _ p: UnsafeMutablePointer<Float>) {
    UnsafeMutableRawPointer(p).storeBytes(of: v, as: SIMD8<Float>.self)
}

/// Stored samples to planes of Float: 8-bit / 255, 16-bit / 65535; grey spread to R = G = B;
/// a missing alpha is 1. Then the input leg's colour conversion into the working space (see
/// `InputLeg`): on the fast path from sRGB into linear sRGB, colour goes through the sRGB
/// decoding function by table (alpha never does).
struct InputConversion: Sendable {
    let format: PixelFormat
    let leg: InputLeg
    /// Colour values of the 256 8-bit samples, or of the 65536 16-bit ones (when linear, or
    /// through a profile's curves), one table a channel (red's serves grey); empty: 16-bit
    /// samples over 65535.
    private let colorTables: [[Float]]
    /// 8-bit RGB or RGBA samples that become their value over 255 (no transfer function on
    /// the way): the C loop of fc_kernels does them (`fc_unpack_rgb8`, the same quotients
    /// as `eightBit`'s, with AVX2 where the processor has it).
    private let plainEightBitRGB: Bool

    init(format: PixelFormat, leg: InputLeg) {
        self.format = format
        self.leg = leg
        plainEightBitRGB = format.depth == .eight && leg.sampleCurves == nil && !leg.decodesSRGB
            && !format.channels.isGrey && (format.channels.count == 3 || format.channels.count == 4)
        if format.depth.isFloat {
            // Float samples go through the curves as values (see `floatSamples`), not by table.
            colorTables = [[], [], []]
            return
        }
        if let curves = leg.sampleCurves {
            let levels = format.depth == .eight ? 256 : 65536
            colorTables = curves.map { InputConversion.table(levels: levels, through: $0) }
            return
        }
        let shared: [Float] = switch (format.depth, leg.decodesSRGB) {
        case (.eight, false): InputConversion.eightBit
        case (.eight, true): InputConversion.eightBitLinear
        case (.sixteen, true): InputConversion.sixteenBitLinear
        case (.sixteen, false), (.float32, _): []
        }
        colorTables = [shared, shared, shared]
    }

    /// The tables, made once per process (a render makes a conversion per image).
    private static func table(levels: Int, linear: Bool) -> [Float] {
        let maxValue = Double(levels - 1)
        return (0..<levels).map { i in
            let v = Double(i) / maxValue
            return Float(linear ? SRGB.decode(v) : v)
        }
    }
    private static let eightBit = table(levels: 256, linear: false)
    private static let eightBitLinear = table(levels: 256, linear: true)
    private static let sixteenBitLinear = table(levels: 65536, linear: true)

    /// A profile's curve at every sample value.
    private static func table(levels: Int, through curve: CurveEvaluator) -> [Float] {
        var out = [Float](repeating: 0, count: levels)
        let scale = 1 / Float(levels - 1)
        var i = 0
        while i < levels {
            var x = SIMD8<Float>()
            for k in 0..<8 { x[k] = Float(min(i + k, levels - 1)) * scale }
            let y = curve(x)
            for k in 0..<8 where i + k < levels { out[i + k] = y[k] }
            i += 8
        }
        return out
    }

    /// 8-bit RGB samples that become their value over 255 and nothing more: an output whose
    /// conversion `storesEightBitRGB` gives back these very bytes (v / 255 * 255 rounds to v).
    var givesEightBitRGB: Bool { plainEightBitRGB && format.channels == .rgb && leg.kernel == nil && leg.lut == nil }

    /// Every value it writes is in 0...1 (integer samples over their maximum, through a
    /// transfer function that keeps 0...1, and no conversion to another space; float samples
    /// may be anything).
    var givesUnitRange: Bool { leg.givesUnitRange && !format.depth.isFloat }

    /// Converts one row of `width` pixels (the planes' rows are padded to 8 pixels and
    /// aligned, as point kernels need). `alpha` is written only when the input has alpha.
    func convert(_ source: UnsafeRawPointer, width: Int, into p: PlanarPixels) {
        if let lut = leg.lut {
            throughLCMS(source, width: width, transform: lut, into: p)
            return
        }
        samples(source, width: width, into: p)
        leg.kernel?.apply(p, count: (width + 7) & ~7)
    }

    /// A LUT-based profile's samples (CMYK inks, 0: no ink; RGB; grey) through lcms2's
    /// integer transform into 16-bit working-space RGB, over 65535, in pieces of a row.
    /// Alpha, when the image has it, is taken as stored.
    private func throughLCMS(_ source: UnsafeRawPointer, width: Int, transform: LCMSTransform, into p: PlanarPixels) {
        if format.depth.isFloat {
            // A LUT-based profile is defined over [0, 1]: float samples are clamped to it and
            // quantised to 16 bits, the transform's input (see `Renderer.inputColour`).
            let n = format.channels.count
            withUnsafeTemporaryAllocation(of: UInt16.self, capacity: width * n) { quantised in
                let s = source.assumingMemoryBound(to: Float.self)
                for i in 0..<(width * n) {
                    let v = s[i], c = v > 0 ? (v < 1 ? v : 1) : 0
                    quantised[i] = UInt16(truncatingIfNeeded: (c * 65535 + 8_388_608).bitPattern)
                }
                let sixteen = InputConversion(format: PixelFormat(format.channels, .sixteen), leg: leg)
                sixteen.throughLCMS(UnsafeRawPointer(quantised.baseAddress!), width: width, transform: transform, into: p)
            }
            return
        }
        let n = format.channels.count, colour = transform.inputChannels
        let bytes = format.depth.bytes
        if colour == n {
            // No alpha: straight into the planes, in C (the same values as the loop below).
            transform.run(samples: source, red: p.red, green: p.green, blue: p.blue, count: width)
            return
        }
        let hasAlpha = format.channels.hasAlpha && colour < n
        let piece = 512
        withUnsafeTemporaryAllocation(of: UInt16.self, capacity: piece * (colour + 3)) { scratch in
            let packed = UnsafeMutableRawPointer(scratch.baseAddress!)
            let out = scratch.baseAddress! + piece * colour
            var start = 0
            while start < width {
                let count = min(piece, width - start)
                let from = source + start * n * bytes
                // The colour samples without alpha.
                for x in 0..<count {
                    (packed + x * colour * bytes).copyMemory(from: from + x * n * bytes, byteCount: colour * bytes)
                }
                transform.run(samples: packed, into: out, count: count)
                let scale: Float = 1 / 65535
                for x in 0..<count {
                    p.red[start + x] = Float(out[3 * x]) * scale
                    p.green[start + x] = Float(out[3 * x + 1]) * scale
                    p.blue[start + x] = Float(out[3 * x + 2]) * scale
                }
                if hasAlpha {
                    for x in 0..<count {
                        let a = from + (x * n + n - 1) * bytes
                        p.alpha[start + x] = bytes == 1 ? Float(a.load(as: UInt8.self)) / 255
                            : Float(a.loadUnaligned(as: UInt16.self)) / 65535
                    }
                }
                start += count
            }
        }
    }

    private func samples(_ source: UnsafeRawPointer, width: Int, into p: PlanarPixels) {
        let n = format.channels.count
        if format.depth.isFloat {
            floatSamples(source.assumingMemoryBound(to: Float.self), width: width, into: p)
            return
        }
        if plainEightBitRGB {
            fc_unpack_rgb8(source.assumingMemoryBound(to: UInt8.self), Int32(n), p.red, p.green, p.blue, p.alpha, width, 1)
            return
        }
        let hasAlpha = format.channels.hasAlpha
        let grey = format.channels.isGrey
        colorTables[0].withUnsafeBufferPointer { tr in
        colorTables[1].withUnsafeBufferPointer { tg in
        colorTables[2].withUnsafeBufferPointer { tb in
            if format.depth == .eight && n == 3 && !grey {
                // The common case, without the per-pixel tests of the general loop below.
                let s = source.assumingMemoryBound(to: UInt8.self)
                let r = tr.baseAddress!, g = tg.baseAddress!, b = tb.baseAddress!
                for x in 0..<width {
                    let base = s + x &* 3
                    p.red[x] = r[Int(base[0])]
                    p.green[x] = g[Int(base[1])]
                    p.blue[x] = b[Int(base[2])]
                }
            } else if format.depth == .eight {
                let s = source.assumingMemoryBound(to: UInt8.self)
                for x in 0..<width {
                    let base = s + x * n
                    if grey {
                        let v = tr[Int(base[0])]
                        p.red[x] = v; p.green[x] = v; p.blue[x] = v
                    } else {
                        p.red[x] = tr[Int(base[0])]
                        p.green[x] = tg[Int(base[1])]
                        p.blue[x] = tb[Int(base[2])]
                    }
                    if hasAlpha { p.alpha[x] = Float(base[n - 1]) / 255 }
                }
            } else {
                let s = source.assumingMemoryBound(to: UInt16.self)
                let tabled = !tr.isEmpty
                for x in 0..<width {
                    let base = s + x * n
                    if grey {
                        let v = tabled ? tr[Int(base[0])] : Float(base[0]) / 65535
                        p.red[x] = v; p.green[x] = v; p.blue[x] = v
                    } else if tabled {
                        p.red[x] = tr[Int(base[0])]
                        p.green[x] = tg[Int(base[1])]
                        p.blue[x] = tb[Int(base[2])]
                    } else {
                        p.red[x] = Float(base[0]) / 65535
                        p.green[x] = Float(base[1]) / 65535
                        p.blue[x] = Float(base[2]) / 65535
                    }
                    if hasAlpha { p.alpha[x] = Float(base[n - 1]) / 65535 }
                }
            }
        }
        }
        }
    }
}

extension InputConversion {
    /// Float samples as they are, unclamped (grey into all three planes); then, as for
    /// integer samples, the profile's curves or the sRGB decoding function, here computed on
    /// the values, extended beyond [0, 1] as lcms2 extends them (the curves' own formulas;
    /// sRGB's linear segment below 0.04045, its power above 1). Alpha is never decoded.
    fileprivate func floatSamples(_ s: UnsafePointer<Float>, width: Int, into p: PlanarPixels) {
        let n = format.channels.count
        let grey = format.channels.isGrey, hasAlpha = format.channels.hasAlpha
        for x in 0..<width {
            let base = s + x * n
            if grey {
                p.red[x] = base[0]; p.green[x] = base[0]; p.blue[x] = base[0]
            } else {
                p.red[x] = base[0]; p.green[x] = base[1]; p.blue[x] = base[2]
            }
            if hasAlpha { p.alpha[x] = base[n - 1] }
        }
        let padded = (width + 7) & ~7
        for x in width..<padded { p.red[x] = 0; p.green[x] = 0; p.blue[x] = 0 }
        if let curves = leg.sampleCurves {
            let planes = [p.red, p.green, p.blue]
            for c in 0..<3 {
                let curve = grey ? curves[0] : curves[min(c, curves.count - 1)]
                var x = 0
                while x < padded {
                    store8(curve(load8(planes[c] + x)), planes[c] + x)
                    x += 8
                }
            }
        } else if leg.decodesSRGB {
            for plane in [p.red, p.green, p.blue] {
                for x in 0..<width { plane[x] = Float(SRGB.decode(Double(plane[x]))) }
            }
        }
    }
}

/// Planes of Float to the samples an output stores: without alpha in the output but with
/// alpha in the image, colour is first composited over `background` (in the working space);
/// then the output leg's colour conversion (see `OutputLeg`: a kernel to the output's
/// profile, or on the fast path from linear sRGB the sRGB encoding function by table, after
/// clamping); then clamped to [0, 1] and rounded to nearest, round(v * 255) or
/// round(v * 65535) (exact halves to even).
struct OutputConversion: Sendable {
    let channels: Channels
    let depth: BitDepth
    let leg: OutputLeg
    /// The background in the working space, when alpha is composited away.
    let background: (Float, Float, Float)?
    /// The sRGB encoding function sampled at `encodeCells` + 1 points of [0, 1], for linear
    /// interpolation (error below 1e-7, far under half a 16-bit level).
    private let encodeTable: [Float]
    static let encodeCells = 65536

    /// `background`: the colour composited under transparency, already in the working space.
    init(channels: Channels, depth: BitDepth, leg: OutputLeg, background: (Float, Float, Float)?) {
        self.channels = channels
        self.depth = depth
        self.leg = leg
        self.background = background
        encodeTable = leg.encodesSRGB ? OutputConversion.sharedEncodeTable : []
    }

    /// 8-bit RGB stored as each value times 255, rounded, with no colour conversion on the
    /// way: the inverse of an input conversion that `givesEightBitRGB`.
    var storesEightBitRGB: Bool {
        depth == .eight && channels == .rgb && !leg.encodesSRGB && leg.kernel == nil && leg.inks == nil && background == nil
    }

    /// Made once per process: every output of a linear chain uses it.
    private static let sharedEncodeTable: [Float] =
        (0...encodeCells).map { Float(SRGB.encode(Double($0) / Double(encodeCells))) }

    /// Clamps, encodes (linear) and scales one row of a plane into `out` (values ready to
    /// round).
    @inline(__always)
    private func prepare(_ source: UnsafePointer<Float>, _ out: UnsafeMutablePointer<Float>, width: Int, colour: Bool,
                         table: UnsafePointer<Float>?) {
        let scale = Float(depth.maxValue)
        if colour, let table {
            let cells = Float(OutputConversion.encodeCells)
            let last = OutputConversion.encodeCells - 1
            for x in 0..<width {
                let v = source[x]
                let c = v > 0 ? (v < 1 ? v : 1) : 0
                let position = c * cells
                var cell = Int((position + 8_388_608).bitPattern & 0x7F_FFFF)
                if Float(cell) > position { cell &-= 1 }
                if cell > last { cell = last }
                let fraction = position - Float(cell)
                out[x] = (table[cell] + fraction * (table[cell + 1] - table[cell])) * scale
            }
        } else {
            for x in 0..<width {
                let v = source[x]
                out[x] = (v > 0 ? (v < 1 ? v : 1) : 0) * scale
            }
        }
    }

    /// Rounds a value in [0, 65535] to the nearest integer (halves to even), exactly and
    /// without a checked conversion: adding 2^23 leaves the integer in the low mantissa bits.
    @inline(__always)
    private static func round(_ v: Float) -> UInt32 {
        (v + 8_388_608).bitPattern
    }

    /// Clamps to [0, 1] (NaN to 0), scales by 255 and adds 2^23: the rounded sample is then
    /// in the low bits of each lane's bit pattern. The same arithmetic as `prepare` + `round`.
    @inline(__always)
    private static func eightBitLanes(_ p: UnsafePointer<Float>) -> SIMD8<UInt32> {
        let v = load8(p)
        let low = SIMD8<Float>.zero.replacing(with: v, where: v .> 0)
        let c = low.replacing(with: 1, where: .!(low .< 1))
        let biased = c * SIMD8(repeating: 255) + SIMD8(repeating: 8_388_608)
        return unsafeBitCast(biased, to: SIMD8<UInt32>.self) & SIMD8(repeating: 0xFF)
    }

    @inline(__always)
    private static func eightBit(_ v: Float) -> UInt8 {
        UInt8(truncatingIfNeeded: round((v > 0 ? (v < 1 ? v : 1) : 0) * 255))
    }

    /// The common case of 8-bit RGB or RGBA in the stored space, without compositing: one
    /// pass, eight pixels at a time, each pixel's samples packed in a 32-bit word and stored
    /// at once (for RGB the word's fourth byte is overwritten by the next pixel's store).
    private func packEightBit(_ p: PlanarPixels, width: Int, into destination: UnsafeMutableRawPointer) {
        // The same arithmetic as `eightBitLanes`, in C (fc_kernels, AVX2 where the processor
        // has it): Swift's SIMD on the SSE2 baseline stores each pixel's word on its own.
        fc_pack_rgb8(p.red, p.green, p.blue, p.alpha, channels == .rgba ? 4 : 3,
                     destination.assumingMemoryBound(to: UInt8.self), width, 1)
    }

    /// `packEightBit` in Swift: the reference the C loop is tested against.
    func packEightBitReference(_ p: PlanarPixels, width: Int, into destination: UnsafeMutableRawPointer) {
        let rgba = channels == .rgba
        let n = rgba ? 4 : 3
        // For RGB the last pixel's word would overrun the row: the tail is stored bytewise.
        let wordPixels = rgba ? width : width - 1
        var x = 0
        while x + 8 <= wordPixels {
            var words = OutputConversion.eightBitLanes(p.red + x)
                | OutputConversion.eightBitLanes(p.green + x) &<< 8
                | OutputConversion.eightBitLanes(p.blue + x) &<< 16
            if rgba { words |= OutputConversion.eightBitLanes(p.alpha + x) &<< 24 }
            let d = destination + x &* n
            for i in 0..<8 { d.storeBytes(of: words[i].littleEndian, toByteOffset: i &* n, as: UInt32.self) }
            x += 8
        }
        let d = destination.assumingMemoryBound(to: UInt8.self)
        while x < width {
            d[x &* n] = OutputConversion.eightBit(p.red[x])
            d[x &* n &+ 1] = OutputConversion.eightBit(p.green[x])
            d[x &* n &+ 2] = OutputConversion.eightBit(p.blue[x])
            if rgba { d[x &* n &+ 3] = OutputConversion.eightBit(p.alpha[x]) }
            x += 1
        }
    }

    /// Converts one row of `width` pixels.
    func convert(_ p: PlanarPixels, hasAlpha: Bool, width: Int, into destination: UnsafeMutableRawPointer) {
        if let inks = leg.inks {
            convertToInks(p, hasAlpha: hasAlpha, width: width, through: inks, into: destination)
            return
        }
        if depth == .eight && !leg.encodesSRGB && leg.kernel == nil && (background == nil || !hasAlpha)
            && (channels == .rgb || channels == .rgba) {
            packEightBit(p, width: width, into: destination)
            return
        }
        // Planes padded to 8 pixels and aligned to 32 bytes, as a kernel needs them.
        let padded = (width + 7) & ~7
        withUnsafeTemporaryAllocation(byteCount: 4 * max(padded, 8) * MemoryLayout<Float>.size, alignment: 64) { raw in
            let r = raw.baseAddress!.bindMemory(to: Float.self, capacity: 4 * max(padded, 8))
            let scratch = PlanarPixels(red: r, green: r + padded, blue: r + 2 * padded, alpha: r + 3 * padded)
            var colour = (red: UnsafePointer(p.red), green: UnsafePointer(p.green), blue: UnsafePointer(p.blue))
            let composites = background != nil && hasAlpha
            if composites {
                composite(p, width: width, into: scratch)
                colour = (UnsafePointer(scratch.red), UnsafePointer(scratch.green), UnsafePointer(scratch.blue))
            }
            if let kernel = leg.kernel {
                convertColour(p, composited: composites, width: width, padded: padded, kernel: kernel, into: scratch)
                colour = (UnsafePointer(scratch.red), UnsafePointer(scratch.green), UnsafePointer(scratch.blue))
                if depth == .eight && !leg.encodesSRGB && (channels == .rgb || channels == .rgba) {
                    // Converted: packed as the common case is (alpha, when kept, as it was).
                    packEightBit(PlanarPixels(red: scratch.red, green: scratch.green, blue: scratch.blue, alpha: p.alpha),
                                 width: width, into: destination)
                    return
                }
            }
            if depth.isFloat {
                storeFloat(colour, alpha: p.alpha, width: width, into: destination)
                return
            }
            encodeTable.withUnsafeBufferPointer { t in
                let table = leg.encodesSRGB ? t.baseAddress : nil
                prepare(colour.red, scratch.red, width: width, colour: true, table: table)
                if !channels.isGrey {
                    prepare(colour.green, scratch.green, width: width, colour: true, table: table)
                    prepare(colour.blue, scratch.blue, width: width, colour: true, table: table)
                }
                if channels.hasAlpha { prepare(p.alpha, scratch.alpha, width: width, colour: false, table: nil) }
            }
            storePrepared(scratch, width: width, into: destination)
        }
    }

    /// Composites over the background in the working space: c a + bg (1 - a), alpha clamped.
    private func composite(_ p: PlanarPixels, width: Int, into scratch: PlanarPixels) {
        guard let bg = background else { return }
        for x in 0..<width {
            let av = p.alpha[x]
            let alpha = av > 0 ? (av < 1 ? av : 1) : 0
            scratch.red[x] = p.red[x] * alpha + bg.0 * (1 - alpha)
            scratch.green[x] = p.green[x] * alpha + bg.1 * (1 - alpha)
            scratch.blue[x] = p.blue[x] * alpha + bg.2 * (1 - alpha)
        }
    }

    /// The output leg's kernel into the scratch planes (the tap's planes are read by others
    /// too): from the composited scratch, or straight from the tap's planes.
    private func convertColour(_ p: PlanarPixels, composited: Bool, width: Int, padded: Int, kernel: any PointKernel,
                               into scratch: PlanarPixels) {
        if !composited, let matrixTRC = kernel as? MatrixTRCKernel {
            // Straight from the tap's planes (their rows are padded to 8 pixels as well; what
            // the padding gives is not stored).
            matrixTRC.apply(from: p, into: scratch, count: padded)
            return
        }
        if !composited {
            scratch.red.update(from: p.red, count: width)
            scratch.green.update(from: p.green, count: width)
            scratch.blue.update(from: p.blue, count: width)
        }
        for x in width..<padded { scratch.red[x] = 0; scratch.green[x] = 0; scratch.blue[x] = 0 }
        kernel.apply(scratch, count: padded)
    }

    /// Float (in memory only): the values as they are, unclamped; the sRGB encoding function
    /// computed, extended as the decoding one is (its linear segment below 0, its power above 1).
    private func storeFloat(_ colour: (red: UnsafePointer<Float>, green: UnsafePointer<Float>, blue: UnsafePointer<Float>),
                            alpha: UnsafeMutablePointer<Float>, width: Int, into destination: UnsafeMutableRawPointer) {
        let n = channels.count
        let d = destination.assumingMemoryBound(to: Float.self)
        let planes = channels.isGrey ? [colour.red] : [colour.red, colour.green, colour.blue]
        for (c, source) in planes.enumerated() {
            for x in 0..<width {
                let v = source[x]
                d[x &* n &+ c] = leg.encodesSRGB ? Float(SRGB.encode(Double(v))) : v
            }
        }
        if channels.hasAlpha { for x in 0..<width { d[x &* n &+ n - 1] = alpha[x] } }
    }

    /// The prepared planes (values scaled, clamped and ready to round) stored as 8- or
    /// 16-bit samples.
    private func storePrepared(_ scratch: PlanarPixels, width: Int, into destination: UnsafeMutableRawPointer) {
        let n = channels.count
        let r = scratch.red, g = scratch.green, b = scratch.blue, a = scratch.alpha
        // The prepared plane of stored channel c.
        func plane(_ c: Int) -> UnsafeMutablePointer<Float> {
            switch c {
            case 0: r
            case 1: channels.isGrey ? a : g
            case 2: b
            default: a
            }
        }
        if depth == .eight && (channels == .rgb || channels == .rgba) && width > 1 {
            // One pass per pixel: the samples packed into a 32-bit word (the 2^23 added for
            // rounding leaves each value in the low bits), stored at once. For RGB the word's
            // fourth byte is overwritten by the next pixel; the last pixel is stored byte by byte.
            let d = destination.assumingMemoryBound(to: UInt8.self)
            let words = UnsafeMutableRawPointer(destination)
            let count = channels == .rgb ? width - 1 : width
            for x in 0..<count {
                var word = (OutputConversion.round(r[x]) & 0xFF) | (OutputConversion.round(g[x]) & 0xFF) << 8
                    | (OutputConversion.round(b[x]) & 0xFF) << 16
                if n == 4 { word |= (OutputConversion.round(a[x]) & 0xFF) << 24 }
                words.storeBytes(of: word.littleEndian, toByteOffset: x &* n, as: UInt32.self)
            }
            if channels == .rgb {
                let x = width - 1
                d[x * 3] = UInt8(truncatingIfNeeded: OutputConversion.round(r[x]))
                d[x * 3 + 1] = UInt8(truncatingIfNeeded: OutputConversion.round(g[x]))
                d[x * 3 + 2] = UInt8(truncatingIfNeeded: OutputConversion.round(b[x]))
            }
        } else if depth == .eight {
            let d = destination.assumingMemoryBound(to: UInt8.self)
            for c in 0..<n {
                let source = plane(c)
                for x in 0..<width { d[x &* n &+ c] = UInt8(truncatingIfNeeded: OutputConversion.round(source[x])) }
            }
        } else {
            let d = destination.assumingMemoryBound(to: UInt16.self)
            for c in 0..<n {
                let source = plane(c)
                for x in 0..<width { d[x &* n &+ c] = UInt16(truncatingIfNeeded: OutputConversion.round(source[x])) }
            }
        }
    }
}

extension OutputConversion {
    /// A CMYK output: colour composited over the background where the image has alpha (CMYK
    /// holds none), through lcms2 to ink amounts (0 to 100), then clamped and rounded as
    /// other samples are: round(ink / 100 * 255) or * 65535, four samples a pixel.
    fileprivate func convertToInks(_ p: PlanarPixels, hasAlpha: Bool, width: Int, through transform: LCMSTransform,
                                   into destination: UnsafeMutableRawPointer) {
        let piece = 512
        let bg = background ?? (1, 1, 1)
        let scale = Float(depth.maxValue) / 100
        withUnsafeTemporaryAllocation(of: Float.self, capacity: piece * 7) { scratch in
            let rgb = scratch.baseAddress!, cmyk = rgb + piece * 3
            var start = 0
            while start < width {
                let n = min(piece, width - start)
                for x in 0..<n {
                    let i = start + x
                    var (r, g, b) = (p.red[i], p.green[i], p.blue[i])
                    if hasAlpha {
                        let av = p.alpha[i], a = av > 0 ? (av < 1 ? av : 1) : 0
                        r = r * a + bg.0 * (1 - a); g = g * a + bg.1 * (1 - a); b = b * a + bg.2 * (1 - a)
                    }
                    rgb[3 * x] = r; rgb[3 * x + 1] = g; rgb[3 * x + 2] = b
                }
                transform.run(rgb, into: cmyk, count: n)
                for k in 0..<(4 * n) {
                    if depth.isFloat {
                        destination.storeBytes(of: cmyk[k] / 100, toByteOffset: (start * 4 + k) * 4, as: Float.self)
                        continue
                    }
                    let v = cmyk[k] * scale
                    let c = v > 0 ? (v < Float(depth.maxValue) ? v : Float(depth.maxValue)) : 0
                    let q = (c + 8_388_608).bitPattern & 0xFFFF
                    if depth == .eight {
                        destination.storeBytes(of: UInt8(truncatingIfNeeded: q), toByteOffset: start * 4 + k, as: UInt8.self)
                    } else {
                        destination.storeBytes(of: UInt16(truncatingIfNeeded: q), toByteOffset: (start * 4 + k) * 2, as: UInt16.self)
                    }
                }
                start += n
            }
        }
    }
}

/// c * a for colour (before a neighbourhood filter).
struct Premultiply: PointKernel {
    func apply(_ p: PlanarPixels, count: Int) {
        var i = 0
        while i < count {
            let a = load8(p.alpha + i)
            store8(load8(p.red + i) * a, p.red + i)
            store8(load8(p.green + i) * a, p.green + i)
            store8(load8(p.blue + i) * a, p.blue + i)
            i += 8
        }
    }
}

/// c / a for colour, and 0 where a is 0 (after a neighbourhood filter). With
/// `clampsAlpha` (after a resampling, whose lobes overshoot) alpha is first clamped to
/// [0, 1]; colour itself is not clamped.
struct Unpremultiply: PointKernel {
    var clampsAlpha = false

    func apply(_ p: PlanarPixels, count: Int) {
        var i = 0
        let zero = SIMD8<Float>.zero, one = SIMD8<Float>(repeating: 1)
        while i < count {
            var a = load8(p.alpha + i)
            if clampsAlpha {
                a.replace(with: zero, where: a .< zero)
                a.replace(with: one, where: a .> one)
                store8(a, p.alpha + i)
            }
            let transparent = a .== zero
            let safe = a.replacing(with: 1, where: transparent)
            store8((load8(p.red + i) / safe).replacing(with: 0, where: transparent), p.red + i)
            store8((load8(p.green + i) / safe).replacing(with: 0, where: transparent), p.green + i)
            store8((load8(p.blue + i) / safe).replacing(with: 0, where: transparent), p.blue + i)
            i += 8
        }
    }
}
