/// A thumbnail, vipsthumbnail's job: the image made to fit a box, or to fill it with a crop
/// chosen in the middle or where the interest is. It is a chain of one resize (Lanczos3,
/// never enlarging, shrink-on-load allowed), rendered by the same engine as any chain.
///
/// `crop: .attention` looks at the image first: a render of it at most
/// `Thumbnail.analysisSide` pixels on its long side, in sRGB, whose interest (see
/// `Thumbnail.interest(of:)`) places the box (`Resize.position`). That is a second, small
/// decode of the file (shrunk on load where the format allows it).
public struct Thumbnail: Sendable, Hashable {
    public enum Crop: String, CaseIterable, Sendable {
        /// No crop: the whole image, fitted in the box (the box's other side is not filled).
        case none
        /// The box filled; what is cut is cut equally from both ends.
        case centre
        /// The box filled where the image is most interesting (edges, saturation, skin).
        case attention
    }

    public var width: Int
    public var height: Int
    public var crop: Crop

    public init(width: Int, height: Int, crop: Crop = .none) {
        self.width = width
        self.height = height
        self.crop = crop
    }

    /// The long side of the image the attention crop looks at.
    public static let analysisSide = 256

    /// The chain: one resize into the box (contain), or covering it (cover) at `position`.
    public func chain(position: ImagePoint = ImagePoint(0.5, 0.5)) -> Chain {
        Chain([resize(position: position)])
    }

    func resize(position: ImagePoint = ImagePoint(0.5, 0.5)) -> Resize {
        Resize(width: width, height: height, fit: crop == .none ? .contain : .cover,
               enlarge: false, fast: true, position: crop == .none ? ImagePoint(0.5, 0.5) : position)
    }

    /// The chain for one image: with `crop: .attention`, the box placed where `source` is
    /// most interesting (a small render of it first); otherwise `chain()`.
    public func chain(for source: ImageSource, renderer: Renderer, decode: DecodeOptions = .init(),
                      cancel: CancellationFlag? = nil) throws -> Chain {
        guard crop == .attention else { return chain() }
        let look = Chain([Resize(width: Self.analysisSide, height: Self.analysisSide, fit: .contain, enlarge: false, fast: true)])
        let result = try renderer.render(look, source: source, decode: decode,
                                         outputs: [RenderOutput(step: 1, .memory(depth: .eight, profile: .srgb))], cancel: cancel)
        guard let image = result.images[0], let size = result.sourceSize else { return chain() }
        return chain(position: position(in: image, sourceSize: size))
    }

    /// The part of an image of `size` the thumbnail keeps, as fractions of its width and
    /// height (the resize's cover layout: its window over the resized size).
    func keptFraction(of size: ImageSize) -> (width: Double, height: Double) {
        guard let layout = try? resize().layout(for: size) else { return (1, 1) }
        switch layout {
        case .resample(let to, let window):
            return (Double(window.width) / Double(to.width), Double(window.height) / Double(to.height))
        case .crop(let rect):
            return (Double(rect.width) / Double(size.width), Double(rect.height) / Double(size.height))
        case .turn:
            return (1, 1)
        }
    }

    /// Where the box goes in `image`, the whole picture made small, of an image whose own
    /// size is `sourceSize`: the box is the part the thumbnail keeps (the resize's layout for
    /// `sourceSize`), as the same fractions of `image`, rounded. Among every whole-pixel place
    /// of that box, the one of the largest total interest (nearest the middle on a tie), as
    /// fractions of the room left over (0.5 where there is none).
    public func position(in image: RasterImage, sourceSize: ImageSize) -> ImagePoint {
        let w = image.width, h = image.height
        let kept = keptFraction(of: sourceSize)
        let bw = max(1, min(w, Int((Double(w) * kept.width).rounded())))
        let bh = max(1, min(h, Int((Double(h) * kept.height).rounded())))
        let interest = Self.interest(of: image)
        // Summed-area table: s[(y)(w+1) + x] is the total over [0, x) x [0, y).
        var s = [Double](repeating: 0, count: (w + 1) * (h + 1))
        for y in 0..<h {
            var row = 0.0
            for x in 0..<w {
                row += Double(interest[y * w + x])
                s[(y + 1) * (w + 1) + x + 1] = s[y * (w + 1) + x + 1] + row
            }
        }
        func total(_ x: Int, _ y: Int) -> Double {
            s[(y + bh) * (w + 1) + x + bw] - s[y * (w + 1) + x + bw] - s[(y + bh) * (w + 1) + x] + s[y * (w + 1) + x]
        }
        let roomX = w - bw, roomY = h - bh
        var best = (x: roomX / 2, y: roomY / 2)
        var bestTotal = total(best.x, best.y), bestDistance = 0
        for y in 0...roomY {
            for x in 0...roomX {
                let t = total(x, y)
                let d = abs(2 * x - roomX) + abs(2 * y - roomY)
                // A total counts as larger only beyond rounding (1e-9 of the best).
                if t > bestTotal + 1e-9 * abs(bestTotal) || (abs(t - bestTotal) <= 1e-9 * abs(bestTotal) && d < bestDistance) {
                    (best, bestTotal, bestDistance) = ((x, y), t, d)
                }
            }
        }
        return ImagePoint(roomX == 0 ? 0.5 : Double(best.x) / Double(roomX),
                          roomY == 0 ? 0.5 : Double(best.y) / Double(roomY))
    }

    /// The interest of each pixel of `image` (row by row), for an sRGB image with values
    /// R, G, B and alpha A in [0, 1] (grey: R = G = B; no alpha: A = 1):
    ///
    ///     Y = 0.2126 R + 0.7152 G + 0.0722 B                       (luma of the encoded values)
    ///     edge = min(1, sqrt(gx^2 + gy^2) / 4)                     (Sobel of Y, edges repeated)
    ///     saturation = max(R, G, B) - min(R, G, B)
    ///     skin = 1 when 0.36 <= r <= 0.465 and 0.28 <= g <= 0.363 and 0.2 <= Y <= 0.9,
    ///            with r = R / (R + G + B), g = G / (R + G + B); else 0
    ///     interest = A (edge (1 + saturation) + skin [edge >= 0.1])
    ///
    /// Edges carry the interest (a subject in focus, not a blurred background, however
    /// coloured), colour makes an edge count up to twice as much, and skin where there is some
    /// detail (a face, not a beige wall) counts whole.
    public static func interest(of image: RasterImage) -> [Float] {
        let w = image.width, h = image.height, n = image.format.channels.count
        let v = image.values
        let colour = n >= 3, hasAlpha = n == 2 || n == 4
        var luma = [Float](repeating: 0, count: w * h)
        var rest = [Float](repeating: 0, count: w * h)
        var alpha = [Float](repeating: 1, count: w * h)
        var skins = [Float](repeating: 0, count: w * h)
        for i in 0..<(w * h) {
            let p = i * n
            let (r, g, b) = colour ? (v[p], v[p + 1], v[p + 2]) : (v[p], v[p], v[p])
            let y = 0.2126 * r + 0.7152 * g + 0.0722 * b
            luma[i] = y
            if hasAlpha { alpha[i] = v[p + n - 1] }
            let saturation = max(r, g, b) - min(r, g, b)
            let sum = r + g + b
            var skin: Float = 0
            if sum > 0 {
                let rr = r / sum, gg = g / sum
                if rr >= 0.36 && rr <= 0.465 && gg >= 0.28 && gg <= 0.363 && y >= 0.2 && y <= 0.9 { skin = 1 }
            }
            rest[i] = saturation
            skins[i] = skin
        }
        func Y(_ x: Int, _ y: Int) -> Float { luma[min(max(y, 0), h - 1) * w + min(max(x, 0), w - 1)] }
        var out = [Float](repeating: 0, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                let gx = (Y(x + 1, y - 1) + 2 * Y(x + 1, y) + Y(x + 1, y + 1)) - (Y(x - 1, y - 1) + 2 * Y(x - 1, y) + Y(x - 1, y + 1))
                let gy = (Y(x - 1, y + 1) + 2 * Y(x, y + 1) + Y(x + 1, y + 1)) - (Y(x - 1, y - 1) + 2 * Y(x, y - 1) + Y(x + 1, y - 1))
                let edge = min(1, (gx * gx + gy * gy).squareRoot() / 4)
                let i = y * w + x
                out[i] = alpha[i] * (edge * (1 + rest[i]) + (edge >= 0.1 ? skins[i] : 0))
            }
        }
        return out
    }
}
