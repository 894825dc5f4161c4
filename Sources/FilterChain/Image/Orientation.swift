/// The EXIF Orientation tag: how the stored pixels must be turned to stand upright.
public enum Orientation: Int, Sendable, CaseIterable {
    case up = 1               // as stored
    case upMirrored = 2       // mirror left-right
    case down = 3             // rotate 180°
    case downMirrored = 4     // mirror top-bottom
    case leftMirrored = 5     // transpose (mirror across the main diagonal)
    case right = 6            // rotate 90° clockwise
    case rightMirrored = 7    // transverse (mirror across the other diagonal)
    case left = 8             // rotate 90° counter-clockwise

    /// Width and height become height and width.
    public var swapsAxes: Bool { rawValue >= 5 }

    /// The stored position (x, y) of the upright pixel (ux, uy), for a stored image of
    /// width w and height h.
    @inline(__always)
    func storedPosition(ux: Int, uy: Int, width w: Int, height h: Int) -> (x: Int, y: Int) {
        switch self {
        case .up: (ux, uy)
        case .upMirrored: (w - 1 - ux, uy)
        case .down: (w - 1 - ux, h - 1 - uy)
        case .downMirrored: (ux, h - 1 - uy)
        case .leftMirrored: (uy, ux)
        case .right: (uy, h - 1 - ux)
        case .rightMirrored: (w - 1 - uy, h - 1 - ux)
        case .left: (w - 1 - uy, ux)
        }
    }

    /// Turns a whole stored image upright. Returns the new pixels and size.
    func apply(to pixels: [UInt8], width: Int, height: Int, bytesPerPixel bpp: Int)
        -> (pixels: [UInt8], width: Int, height: Int)
    {
        if self == .up { return (pixels, width, height) }
        let (ow, oh) = swapsAxes ? (height, width) : (width, height)
        var out = [UInt8](repeating: 0, count: ow * oh * bpp)
        pixels.withUnsafeBytes { src in
            out.withUnsafeMutableBytes { dst in
                for uy in 0..<oh {
                    for ux in 0..<ow {
                        let (x, y) = storedPosition(ux: ux, uy: uy, width: width, height: height)
                        let from = (y * width + x) * bpp
                        let to = (uy * ow + ux) * bpp
                        for k in 0..<bpp { dst[to + k] = src[from + k] }
                    }
                }
            }
        }
        return (out, ow, oh)
    }
}
