/// DNG files written byte by byte for the RAW tests (no camera RAW can be committed): a
/// scene of linear sRGB colours as a camera would record it, mosaiced, in an uncompressed
/// 16-bit CFA DNG (TIFF 6 with the DNG tags LibRaw reads). Independent of the code under test:
/// the scene model is written here from the DNG specification's colour model.
///
/// The camera: `matrix` (XYZ to camera RGB, ColorMatrix1 for D65, Adobe's matrix of a Canon
/// EOS 5D Mark IV), a light `light` (per camera channel), the scene's white at `headroom` of
/// the range above `black`. For an in-gamut colour c (linear sRGB), LibRaw's development with
/// the as-shot white balance gives linear sRGB `headroom * c`: the as-shot neutral undoes the
/// light, the multipliers are scaled so the least is 1, and the camera matrix is normalised
/// so that the balanced white is white (dcraw's scale_colors and cam_xyz_coeff).
struct TestDNG {
    enum Pattern: String, CaseIterable, Sendable {
        case rggb = "RGGB", bggr = "BGGR", grbg = "GRBG", gbrg = "GBRG"
        /// The camera channel (0 R, 1 G, 2 B) at each of the 2x2 positions, row by row.
        var colours: [Int] {
            switch self {
            case .rggb: [0, 1, 1, 2]
            case .bggr: [2, 1, 1, 0]
            case .grbg: [1, 0, 2, 1]
            case .gbrg: [1, 2, 0, 1]
            }
        }
    }

    static let matrix: [[Double]] = [[0.6446, -0.0366, -0.0864], [-0.4436, 1.2204, 0.2513], [-0.0952, 0.2496, 0.6348]]
    static let light: [Double] = [1.3, 1.0, 0.7]
    static let srgbToXYZ: [[Double]] = [[0.4124564, 0.3575761, 0.1804375], [0.2126729, 0.7151522, 0.0721750],
                                        [0.0193339, 0.1191920, 0.9503041]]
    static let d65: [Double] = [0.95047, 1.0, 1.08883]

    var width: Int
    var height: Int
    var pattern: Pattern = .rggb
    var bits = 14
    var black = 512
    var headroom = 0.85
    var orientation = 1
    var asShot = true
    var make = "Filterchain"
    var model = "Test Camera"
    /// Overrides the white level written (an inconsistent file's).
    var whiteLevelTag: Int? = nil
    /// A JPEG preview, in a SubIFD (NewSubFileType 1), as cameras embed theirs.
    var preview: (jpeg: [UInt8], width: Int, height: Int)? = nil
    /// The scene: linear sRGB at each pixel.
    var scene: (Int, Int) -> [Double]

    var white: Int { (1 << bits) - 1 }

    static func apply(_ m: [[Double]], _ v: [Double]) -> [Double] {
        (0..<3).map { i in (0..<3).reduce(0) { $0 + m[i][$1] * v[$1] } }
    }

    /// The light's white in camera RGB, the largest channel 1 (AsShotNeutral).
    var neutral: [Double] {
        let w = zip(Self.apply(Self.matrix, Self.d65), Self.light).map { $0 * $1 }
        let top = w.max()!
        return w.map { $0 / top }
    }

    /// The sensor's samples, after the mosaic.
    var samples: [UInt16] {
        let w = zip(Self.apply(Self.matrix, Self.d65), Self.light).map { $0 * $1 }
        let scale = headroom * Double(white - black) / w.max()!
        var out = [UInt16](repeating: 0, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                let cam = zip(Self.apply(Self.matrix, Self.apply(Self.srgbToXYZ, scene(x, y))), Self.light).map { $0 * $1 }
                let c = pattern.colours[(y & 1) * 2 + (x & 1)]
                let v = (cam[c] * scale + Double(black)).rounded()
                out[y * width + x] = UInt16(min(max(v, 0), Double(white)))
            }
        }
        return out
    }

    /// The file: little-endian TIFF, IFD0 the raw image (one strip).
    var bytes: [UInt8] {
        var entries: [(tag: UInt16, type: UInt16, count: Int, value: [UInt8])] = []
        func u16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF)] }
        func u32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8((v >> (8 * $0)) & 0xFF) } }
        func ascii(_ s: String) -> [UInt8] { Array(s.utf8) + [0] }
        func short(_ tag: UInt16, _ values: [Int]) { entries.append((tag, 3, values.count, values.flatMap(u16))) }
        func long(_ tag: UInt16, _ values: [Int]) { entries.append((tag, 4, values.count, values.flatMap(u32))) }
        func rationals(_ tag: UInt16, _ values: [Double], signed: Bool) {
            let d = 1_000_000
            entries.append((tag, signed ? 10 : 5, values.count, values.flatMap { u32(Int(($0 * Double(d)).rounded())) + u32(d) }))
        }
        let data = samples.flatMap { u16(Int($0)) }
        entries.append((254, 4, 1, u32(0)))                // NewSubFileType: the main image
        long(256, [width])
        long(257, [height])
        short(258, [16])
        short(259, [1])                                    // no compression
        short(262, [32803])                                // CFA
        entries.append((271, 2, ascii(make).count, ascii(make)))
        entries.append((272, 2, ascii(model).count, ascii(model)))
        long(273, [0])                                     // StripOffsets, set below
        short(274, [orientation])
        short(277, [1])
        long(278, [height])
        long(279, [data.count])
        short(284, [1])
        short(33421, [2, 2])                               // CFARepeatPatternDim
        entries.append((33422, 1, 4, pattern.colours.map(UInt8.init)))  // CFAPattern
        entries.append((50706, 1, 4, [1, 4, 0, 0]))        // DNGVersion
        entries.append((50707, 1, 4, [1, 1, 0, 0]))        // DNGBackwardVersion
        let unique = ascii("\(make) \(model)")
        entries.append((50708, 2, unique.count, unique))
        long(50714, [black])                               // BlackLevel
        long(50717, [whiteLevelTag ?? white])              // WhiteLevel
        rationals(50721, Self.matrix.flatMap { $0 }, signed: true)  // ColorMatrix1
        if asShot { rationals(50728, neutral, signed: false) }     // AsShotNeutral
        short(50778, [21])                                 // CalibrationIlluminant1: D65
        if preview != nil { long(330, [0]) }               // SubIFDs, set below
        entries.sort { $0.tag < $1.tag }
        // Layout: header, IFD, the values that do not fit in 4 bytes, the strip.
        let ifdSize = 2 + 12 * entries.count + 4
        var extra: [UInt8] = []
        var out: [UInt8] = [0x49, 0x49, 0x2A, 0x00] + u32(8)
        var table: [UInt8] = u16(entries.count)
        let extraStart = 8 + ifdSize
        var stripOffsetField = 0, subIFDField = 0
        for e in entries {
            table += u16(Int(e.tag)) + u16(Int(e.type)) + u32(e.count)
            if e.tag == 273 { stripOffsetField = 8 + table.count }
            if e.tag == 330 { subIFDField = 8 + table.count }
            if e.value.count <= 4 {
                table += e.value + [UInt8](repeating: 0, count: 4 - e.value.count)
            } else {
                if extra.count % 2 == 1 { extra.append(0) }
                table += u32(extraStart + extra.count)
                extra += e.value
            }
        }
        table += u32(0)
        out += table + extra
        if out.count % 2 == 1 { out.append(0) }
        if let preview {
            // The preview's IFD, its bits-per-sample array, then the JPEG.
            let at = out.count
            out.replaceSubrange(subIFDField..<subIFDField + 4, with: u32(at))
            let fields: [(UInt16, UInt16, Int, [UInt8])] = [
                (254, 4, 1, u32(1)), (256, 4, 1, u32(preview.width)), (257, 4, 1, u32(preview.height)),
                (258, 3, 3, u32(at + 2 + 12 * 11 + 4)), (259, 3, 1, u16(7) + [0, 0]), (262, 3, 1, u16(6) + [0, 0]),
                (273, 4, 1, u32(at + 2 + 12 * 11 + 4 + 6)), (277, 3, 1, u16(3) + [0, 0]), (278, 4, 1, u32(preview.height)),
                (279, 4, 1, u32(preview.jpeg.count)), (284, 3, 1, u16(1) + [0, 0]),
            ]
            out += u16(fields.count)
            for f in fields { out += u16(Int(f.0)) + u16(Int(f.1)) + u32(f.2) + f.3 }
            out += u32(0) + u16(8) + u16(8) + u16(8) + preview.jpeg
            if out.count % 2 == 1 { out.append(0) }
        }
        let stripOffset = out.count
        out.replaceSubrange(stripOffsetField..<stripOffsetField + 4, with: u32(stripOffset))
        return out + data
    }
}
