/// Every step's image as a thumbnail in a grid, in order, each labelled with its position,
/// so that a whole chain can be judged at a glance.
public enum ContactSheet {
    /// Thumbnails fit in a square this many pixels wide.
    public static let thumbnailSize = 240
    static let padding = 8
    static let labelHeight = 22
    static let columns = 4

    /// An 8-bit RGB sheet of `images` (any layout; alpha shown over a checkerboard), labelled
    /// with `labels` (digits are drawn; other characters are left out). Throws RenderError
    /// for no images, a label count that differs from the image count, or a damaged image.
    public static func make(_ images: [RasterImage], labels: [String]) throws(RenderError) -> RasterImage {
        guard !images.isEmpty else { throw RenderError(.mismatch("a contact sheet needs at least one image")) }
        guard images.count == labels.count else {
            throw RenderError(.mismatch("\(images.count) images and \(labels.count) labels: a contact sheet takes one label per image"))
        }
        for image in images { try image.checked() }
        let scale = images.map { img in min(1, Double(thumbnailSize) / Double(max(img.width, img.height))) }
        let sizes = zip(images, scale).map { img, s in
            (max(1, Int((Double(img.width) * s).rounded())), max(1, Int((Double(img.height) * s).rounded())))
        }
        let cellW = sizes.map(\.0).max()! + 2 * padding
        let cellH = sizes.map(\.1).max()! + 2 * padding + labelHeight
        let cols = min(columns, images.count)
        let rows = (images.count + cols - 1) / cols
        let width = cols * cellW, height = rows * cellH
        var pixels = [UInt8](repeating: 236, count: width * height * 3)
        for (i, image) in images.enumerated() {
            let (tw, th) = sizes[i]
            let x0 = (i % cols) * cellW + padding + (cellW - 2 * padding - tw) / 2
            let y0 = (i / cols) * cellH + padding
            let thumb = thumbnail(image, width: tw, height: th)
            for y in 0..<th {
                for x in 0..<tw {
                    let d = ((y0 + y) * width + x0 + x) * 3
                    for c in 0..<3 { pixels[d + c] = thumb[(y * tw + x) * 3 + c] }
                }
            }
            let digits = labels[i].compactMap { $0.wholeNumberValue }
            let textWidth = digits.count * 12 - 2
            let tx = (i % cols) * cellW + (cellW - textWidth) / 2
            let ty = (i / cols) * cellH + cellH - labelHeight + 3
            for (k, digit) in digits.enumerated() {
                drawDigit(digit, x: tx + k * 12, y: ty, into: &pixels, width: width)
            }
        }
        return try RasterImage(width: width, height: height, format: PixelFormat(.rgb, .eight), pixels: pixels)
    }

    /// Box-averaged thumbnail as 8-bit RGB; alpha over a light checkerboard.
    static func thumbnail(_ image: RasterImage, width tw: Int, height th: Int) -> [UInt8] {
        let n = image.format.channels.count
        let maxValue = Double(image.format.depth.maxValue)
        let samples = image.samples
        var out = [UInt8](repeating: 0, count: tw * th * 3)
        for ty in 0..<th {
            let ya = ty * image.height / th, yb = max(ya + 1, (ty + 1) * image.height / th)
            for tx in 0..<tw {
                let xa = tx * image.width / tw, xb = max(xa + 1, (tx + 1) * image.width / tw)
                var sum = (0.0, 0.0, 0.0)
                let checker = ((tx / 8 + ty / 8) % 2 == 0) ? 1.0 : 0.8
                for y in ya..<yb {
                    for x in xa..<xb {
                        let s = (y * image.width + x) * n
                        var rgb: (Double, Double, Double)
                        if image.format.channels.isGrey {
                            let v = Double(samples[s]) / maxValue
                            rgb = (v, v, v)
                        } else {
                            rgb = (Double(samples[s]) / maxValue, Double(samples[s + 1]) / maxValue, Double(samples[s + 2]) / maxValue)
                        }
                        if image.format.channels.hasAlpha {
                            let a = Double(samples[s + n - 1]) / maxValue
                            rgb = (rgb.0 * a + checker * (1 - a), rgb.1 * a + checker * (1 - a), rgb.2 * a + checker * (1 - a))
                        }
                        sum = (sum.0 + rgb.0, sum.1 + rgb.1, sum.2 + rgb.2)
                    }
                }
                let count = Double((yb - ya) * (xb - xa))
                let d = (ty * tw + tx) * 3
                out[d] = UInt8((sum.0 / count * 255).rounded())
                out[d + 1] = UInt8((sum.1 / count * 255).rounded())
                out[d + 2] = UInt8((sum.2 / count * 255).rounded())
            }
        }
        return out
    }

    /// 5x7 digits, one row per entry, high bit on the left.
    static let font: [[UInt8]] = [
        [0x0E, 0x11, 0x13, 0x15, 0x19, 0x11, 0x0E], [0x04, 0x0C, 0x04, 0x04, 0x04, 0x04, 0x0E],
        [0x0E, 0x11, 0x01, 0x02, 0x04, 0x08, 0x1F], [0x1F, 0x02, 0x04, 0x02, 0x01, 0x11, 0x0E],
        [0x02, 0x06, 0x0A, 0x12, 0x1F, 0x02, 0x02], [0x1F, 0x10, 0x1E, 0x01, 0x01, 0x11, 0x0E],
        [0x06, 0x08, 0x10, 0x1E, 0x11, 0x11, 0x0E], [0x1F, 0x01, 0x02, 0x04, 0x08, 0x08, 0x08],
        [0x0E, 0x11, 0x11, 0x0E, 0x11, 0x11, 0x0E], [0x0E, 0x11, 0x11, 0x0F, 0x01, 0x02, 0x0C],
    ]

    /// Draws a digit twice its font size (10 x 14 pixels), in near-black.
    static func drawDigit(_ digit: Int, x: Int, y: Int, into pixels: inout [UInt8], width: Int) {
        let height = pixels.count / 3 / width
        for (row, bits) in font[digit].enumerated() {
            for col in 0..<5 where bits & (0x10 >> UInt8(col)) != 0 {
                for dy in 0..<2 {
                    for dx in 0..<2 {
                        let px = x + col * 2 + dx, py = y + row * 2 + dy
                        guard px >= 0, px < width, py >= 0, py < height else { continue }
                        let d = (py * width + px) * 3
                        pixels[d] = 20; pixels[d + 1] = 20; pixels[d + 2] = 20
                    }
                }
            }
        }
    }
}
