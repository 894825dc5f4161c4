#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The sRGB transfer function, both ways, exactly as documented.
enum SRGB {
    static func decode(_ v: Double) -> Double { v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4) }
    static func encode(_ v: Double) -> Double { v <= 0.0031308 ? 12.92 * v : 1.055 * pow(v, 1 / 2.4) - 0.055 }
}

/// Stored samples to planes of Float: 8-bit / 255, 16-bit / 65535; grey spread to R = G = B;
/// a missing alpha is 1. In linear working space colour goes through the sRGB decoding
/// function (alpha never does).
struct InputConversion: Sendable {
    let format: PixelFormat
    let linear: Bool
    /// Colour values of the 256 8-bit samples, or of the 65536 16-bit ones when linear.
    private let colorTable: [Float]

    init(format: PixelFormat, linear: Bool) {
        self.format = format
        self.linear = linear
        let levels = format.depth == .eight ? 256 : (linear ? 65536 : 0)
        let maxValue = Double(format.depth.maxValue)
        colorTable = (0..<levels).map { i in
            let v = Double(i) / maxValue
            return Float(linear ? SRGB.decode(v) : v)
        }
    }

    /// Converts one row of `width` pixels. `alpha` is written only when the input has alpha.
    func convert(_ source: UnsafeRawPointer, width: Int, into p: PlanarPixels) {
        let n = format.channels.count
        let hasAlpha = format.channels.hasAlpha
        let grey = format.channels.isGrey
        colorTable.withUnsafeBufferPointer { table in
            if format.depth == .eight {
                let s = source.assumingMemoryBound(to: UInt8.self)
                for x in 0..<width {
                    let base = s + x * n
                    if grey {
                        let v = table[Int(base[0])]
                        p.red[x] = v; p.green[x] = v; p.blue[x] = v
                    } else {
                        p.red[x] = table[Int(base[0])]
                        p.green[x] = table[Int(base[1])]
                        p.blue[x] = table[Int(base[2])]
                    }
                    if hasAlpha { p.alpha[x] = Float(base[n - 1]) / 255 }
                }
            } else {
                let s = source.assumingMemoryBound(to: UInt16.self)
                let colour = { (v: UInt16) -> Float in linear ? table[Int(v)] : Float(v) / 65535 }
                for x in 0..<width {
                    let base = s + x * n
                    if grey {
                        let v = colour(base[0])
                        p.red[x] = v; p.green[x] = v; p.blue[x] = v
                    } else {
                        p.red[x] = colour(base[0])
                        p.green[x] = colour(base[1])
                        p.blue[x] = colour(base[2])
                    }
                    if hasAlpha { p.alpha[x] = Float(base[n - 1]) / 65535 }
                }
            }
        }
    }
}

/// Planes of Float to the samples an output stores: clamped to [0, 1] and rounded to
/// nearest, round(v * 255) or round(v * 65535); in linear working space colour is encoded
/// with the sRGB function first (after clamping). Without alpha in the output but with
/// alpha in the image, colour is composited over `background` (in the working space).
struct OutputConversion: Sendable {
    let channels: Channels
    let depth: BitDepth
    let linear: Bool
    /// The background in the working space, when alpha is composited away.
    let background: (Float, Float, Float)?

    init(channels: Channels, depth: BitDepth, linear: Bool, composite: RGBColor?) {
        self.channels = channels
        self.depth = depth
        self.linear = linear
        background = composite.map { c in
            let f = { (v: Double) in Float(linear ? SRGB.decode(v) : v) }
            return (f(c.red), f(c.green), f(c.blue))
        }
    }

    var format: PixelFormat { PixelFormat(channels, depth) }

    @inline(__always)
    private func encode(_ v: Float, scale: Float) -> Float {
        var c = min(max(v, 0), 1)
        if linear { c = Float(SRGB.encode(Double(c))) }
        return (c * scale).rounded(.toNearestOrAwayFromZero)
    }

    /// Converts one row; returns whether every pixel is neutral (R = G = B) at this depth.
    @discardableResult
    func convert(_ p: PlanarPixels, hasAlpha: Bool, width: Int, into destination: UnsafeMutableRawPointer) -> Bool {
        let n = channels.count
        let scale = Float(depth.maxValue)
        var neutral = true
        for x in 0..<width {
            var r = p.red[x], g = p.green[x], b = p.blue[x]
            let a = hasAlpha ? min(max(p.alpha[x], 0), 1) : 1
            if let bg = background, hasAlpha {
                r = r * a + bg.0 * (1 - a)
                g = g * a + bg.1 * (1 - a)
                b = b * a + bg.2 * (1 - a)
            }
            let er = encode(r, scale: scale)
            var values: (Float, Float, Float, Float) = (er, 0, 0, 0)
            if channels.isGrey {
                values.1 = (a * scale).rounded(.toNearestOrAwayFromZero)
            } else {
                values.1 = encode(g, scale: scale)
                values.2 = encode(b, scale: scale)
                values.3 = (a * scale).rounded(.toNearestOrAwayFromZero)
                if neutral && (values.0 != values.1 || values.1 != values.2) { neutral = false }
            }
            if depth == .eight {
                let d = destination.assumingMemoryBound(to: UInt8.self) + x * n
                d[0] = UInt8(values.0)
                if n >= 2 { d[1] = UInt8(values.1) }
                if n >= 3 { d[2] = UInt8(values.2) }
                if n == 4 { d[3] = UInt8(values.3) }
            } else {
                let d = destination.assumingMemoryBound(to: UInt16.self) + x * n
                d[0] = UInt16(values.0)
                if n >= 2 { d[1] = UInt16(values.1) }
                if n >= 3 { d[2] = UInt16(values.2) }
                if n == 4 { d[3] = UInt16(values.3) }
            }
        }
        return neutral
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

/// c / a for colour, and 0 where a is 0 (after a neighbourhood filter).
struct Unpremultiply: PointKernel {
    func apply(_ p: PlanarPixels, count: Int) {
        var i = 0
        let zero = SIMD8<Float>.zero
        while i < count {
            let a = load8(p.alpha + i)
            let transparent = a .== zero
            let safe = a.replacing(with: 1, where: transparent)
            store8((load8(p.red + i) / safe).replacing(with: 0, where: transparent), p.red + i)
            store8((load8(p.green + i) / safe).replacing(with: 0, where: transparent), p.green + i)
            store8((load8(p.blue + i) / safe).replacing(with: 0, where: transparent), p.blue + i)
            i += 8
        }
    }
}
