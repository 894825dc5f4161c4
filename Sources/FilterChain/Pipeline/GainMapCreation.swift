#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A gain map made by a render (`--gain-map create`): an Ultra HDR JPEG from a PQ or HLG
/// source. Its metadata is known before the first row (ISO 21496-1, one channel, full size):
///
///     gainMapMin = 0, gainMapMax = H, gamma = 1, offsets = 0,
///     baseHeadroom = 0, alternateHeadroom = H,  H = log2(source peak / 203)
///
/// and its pixels are filled row by row by the output's SDR rendition (`SDRRendition`): the
/// SDR pixel is the HDR one scaled by the tone map's s, so the gain is 1 / s for all three
/// channels, g = log2(1 / s) / H (clamped to 0...1, 8 bits). Rows come from any thread, each
/// to its own row. When the image is complete the map is encoded as a grey JPEG with its
/// metadata (`encoded`), and the JPEG encoder writes it after the primary.
final class GainMapInProgress: @unchecked Sendable, Hashable {
    let metadata: GainMap
    let quality: Int
    let width: Int, height: Int
    private let pixels: UnsafeMutableBufferPointer<UInt8>

    init(width: Int, height: Int, headroom: Double, quality: Int) {
        self.width = width
        self.height = height
        self.quality = quality
        metadata = GainMap(width: width, height: height, channels: 1, source: .iso21496, byteCount: 0,
                           gainMapMin: [0, 0, 0], gainMapMax: [headroom, headroom, headroom], gamma: [1, 1, 1],
                           baseOffset: [0, 0, 0], alternateOffset: [0, 0, 0], baseHeadroom: 0, alternateHeadroom: headroom,
                           baseIsHDR: false, usesBaseColourSpace: true)
        pixels = .allocate(capacity: max(1, width * height))
        pixels.initialize(repeating: 0)
    }

    deinit { pixels.deallocate() }

    /// Row `y`'s `width` samples.
    func row(_ y: Int) -> UnsafeMutablePointer<UInt8> { pixels.baseAddress! + y * width }

    /// The stored value of a gain (a factor of 1 or more).
    @inline(__always)
    func level(gain: Double) -> UInt8 {
        let h = metadata.alternateHeadroom
        guard h > 0, gain > 1 else { return 0 }
        return UInt8((min(log2(gain) / h, 1) * 255).rounded())
    }

    /// The map's JPEG (grey, `quality`), with its ISO 21496-1 APP2 segment first and Ultra HDR
    /// v1's hdrgm XMP beside it.
    func encoded() throws -> GainMapImage {
        let image = try RasterImage(width: width, height: height, format: PixelFormat(.grey, .eight),
                                    pixels: Array(pixels))
        let buffer = OutputBuffer(name: "its gain map")
        _ = try Renderer(threads: 1).render(Chain(), image: image, outputs: [RenderOutput(step: 0, .file(.memory(buffer), EncodeOptions(
            format: .jpeg, quality: quality, settings: ["tables": "standard"])))])
        let jpeg = GainMap.withISOSegment(metadata.isoPayload, in: buffer.bytes)
        var map = metadata
        map.byteCount = jpeg.count
        return UltraHDR.withHDRGM(GainMapImage(map: map, jpeg: jpeg))
    }

    static func == (a: GainMapInProgress, b: GainMapInProgress) -> Bool { a === b }
    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

extension GainMap {
    /// A map's JPEG with ISO 21496-1's APP2 segment (`payload`, after its URN) first after
    /// SOI, as libultrahdr places it.
    static func withISOSegment(_ payload: [UInt8], in jpeg: [UInt8]) -> [UInt8] {
        let body = isoPrefix + payload
        var out = jpeg
        out.insert(contentsOf: [0xff, 0xe2, UInt8((body.count + 2) >> 8), UInt8((body.count + 2) & 0xff)] + body, at: 2)
        return out
    }

    /// The metadata as ISO 21496-1's APP2 payload holds it after its URN (the layout
    /// `readISO` reads): versions 0, the flags (several channels, the base colour space, one
    /// common denominator, the base is HDR), the denominator, then numerators: base and
    /// alternate headroom, and per channel min, max, gamma, base and alternate offset.
    var isoPayload: [UInt8] {
        let several = channels > 1 && (gainMapMin != [gainMapMin[0], gainMapMin[0], gainMapMin[0]]
            || gainMapMax != [gainMapMax[0], gainMapMax[0], gainMapMax[0]] || gamma != [gamma[0], gamma[0], gamma[0]]
            || baseOffset != [baseOffset[0], baseOffset[0], baseOffset[0]]
            || alternateOffset != [alternateOffset[0], alternateOffset[0], alternateOffset[0]])
        var flags: UInt8 = 0x08
        if several { flags |= 0x80 }
        if usesBaseColourSpace { flags |= 0x40 }
        if baseIsHDR { flags |= 0x04 }
        let denominator: UInt32 = 1_000_000
        var out: [UInt8] = [0, 0, 0, 0, flags]
        func put(_ v: UInt32) { out += [UInt8(v >> 24), UInt8((v >> 16) & 0xff), UInt8((v >> 8) & 0xff), UInt8(v & 0xff)] }
        func fraction(_ v: Double) { put(UInt32(bitPattern: Int32(clamping: Int((v * Double(denominator)).rounded())))) }
        put(denominator)
        fraction(baseHeadroom)
        fraction(alternateHeadroom)
        for c in 0..<(several ? 3 : 1) {
            fraction(gainMapMin[c]); fraction(gainMapMax[c]); fraction(gamma[c])
            fraction(baseOffset[c]); fraction(alternateOffset[c])
        }
        return out
    }
}
