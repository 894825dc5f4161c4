/// Every step's image as a thumbnail in a grid, in order, each labelled with its position and
/// name, so that a whole chain can be judged at a glance. Thumbnails are made from strips of
/// rows (a reader's, or an image's), so a sheet of full-size steps needs only the thumbnails
/// in memory; images of different sizes each fit their own cell.
package enum ContactSheet {
    /// Thumbnails fit in a square this many pixels wide (smaller images stay as they are).
    public static let thumbnailSize = 240
    static let padding = 8
    static let labelHeight = 22
    static let columns = 4
    /// Rows read at a time while making a thumbnail.
    static let stripRows = 32

    /// The thumbnail size of a `width` x `height` image: aspect kept, within
    /// `thumbnailSize` on each side, never enlarged, at least 1 x 1.
    public static func fittedSize(width: Int, height: Int) -> (width: Int, height: Int) {
        let scale = min(1, Double(thumbnailSize) / Double(max(width, height, 1)))
        return (max(1, Int((Double(width) * scale).rounded())), max(1, Int((Double(height) * scale).rounded())))
    }

    /// What a thumbnail is labelled with: the position and the step's name or type, or only
    /// the position when that text has characters the font lacks (outside printable ASCII).
    public static func label(position: Int, name: String?) -> String {
        guard let name, !name.isEmpty, BitmapFont.canDraw(name) else { return String(position) }
        return "\(position) \(name)"
    }

    /// A box-averaged 8-bit RGB thumbnail of everything `source` has left to read (alpha over
    /// a light checkerboard), read in strips: memory is one strip and one row of sums.
    public static func thumbnail(reading source: PixelSource) throws -> RasterImage {
        let info = source.info
        let (tw, th) = fittedSize(width: info.width, height: info.height)
        let format = info.format
        let n = format.channels.count
        let hasAlpha = format.channels.hasAlpha, isGrey = format.channels.isGrey
        let maxValue = Double(format.depth.maxValue)
        let rowBytes = info.rowBytes
        // Column x of the image falls in thumbnail column columnOf[x]; columns of the
        // thumbnail cover [xa, xb) with xa = tx * width / tw (tw <= width: never empty).
        let start = (0...tw).map { $0 * info.width / tw }
        let columnOf = (0..<tw).flatMap { tx in Array(repeating: tx, count: start[tx + 1] - start[tx]) }
        let rowStart = (0...th).map { $0 * info.height / th }
        var sums = [Double](repeating: 0, count: tw * 3)
        var out = [UInt8](repeating: 0, count: tw * th * 3)
        var strip = [UInt8](repeating: 0, count: rowBytes * min(stripRows, info.height))
        var ty = 0
        var y = 0
        while y < info.height {
            let rows = min(stripRows, info.height - y)
            try strip.withUnsafeMutableBytes { try source.read(into: $0.baseAddress!, stride: rowBytes, rows: rows) }
            for r in 0..<rows {
                let base = r * rowBytes
                for x in 0..<info.width {
                    let tx = columnOf[x]
                    let s = base + x * n * format.depth.bytes
                    func sample(_ c: Int) -> Double {
                        if format.depth == .eight { return Double(strip[s + c]) / maxValue }
                        if format.depth.isFloat {
                            let i = s + 4 * c
                            let bits = UInt32(strip[i]) | UInt32(strip[i + 1]) << 8 | UInt32(strip[i + 2]) << 16 | UInt32(strip[i + 3]) << 24
                            // Clamped (NaN to 0), as a written image would be.
                            let v = Double(Float(bitPattern: UInt32(littleEndian: bits)))
                            return v > 0 ? (v < 1 ? v : 1) : 0
                        }
                        let i = s + 2 * c
                        return Double(UInt16(strip[i]) | UInt16(strip[i + 1]) << 8) / maxValue
                    }
                    var rgb = isGrey ? (sample(0), sample(0), sample(0)) : (sample(0), sample(1), sample(2))
                    if hasAlpha {
                        let a = sample(n - 1)
                        let checker = ((tx / 8 + ty / 8) % 2 == 0) ? 1.0 : 0.8
                        rgb = (rgb.0 * a + checker * (1 - a), rgb.1 * a + checker * (1 - a), rgb.2 * a + checker * (1 - a))
                    }
                    sums[tx * 3] += rgb.0
                    sums[tx * 3 + 1] += rgb.1
                    sums[tx * 3 + 2] += rgb.2
                }
                if y + r + 1 == rowStart[ty + 1] {
                    // The last row of thumbnail row ty: average and start the next.
                    let height = Double(rowStart[ty + 1] - rowStart[ty])
                    for tx in 0..<tw {
                        let count = height * Double(start[tx + 1] - start[tx])
                        for c in 0..<3 {
                            out[(ty * tw + tx) * 3 + c] = UInt8((sums[tx * 3 + c] / count * 255).rounded())
                            sums[tx * 3 + c] = 0
                        }
                    }
                    ty += 1
                }
            }
            y += rows
        }
        try source.finish()
        return try RasterImage(width: tw, height: th, format: PixelFormat(.rgb, .eight), pixels: out)
    }

    /// The thumbnail of an image in memory.
    public static func thumbnail(of image: RasterImage) throws -> RasterImage {
        try image.checked()
        return try thumbnail(reading: RasterSource(image))
    }

    /// Where the thumbnail `index` of these sizes sits on the sheet, and the sheet's size.
    public struct Layout: Sendable, Equatable {
        public var width: Int
        public var height: Int
        /// The top left corner of each thumbnail.
        public var origins: [(x: Int, y: Int)]
        /// The top left corner of each label's text box (labelHeight high, a cell wide).
        public var labelOrigins: [(x: Int, y: Int)]
        public var cellWidth: Int

        public static func == (a: Layout, b: Layout) -> Bool {
            a.width == b.width && a.height == b.height && a.cellWidth == b.cellWidth
                && a.origins.elementsEqual(b.origins, by: { $0 == $1 })
                && a.labelOrigins.elementsEqual(b.labelOrigins, by: { $0 == $1 })
        }
    }

    /// Cells as wide and high as the largest thumbnail (plus padding and the label), four a
    /// row; each thumbnail centred in its cell, its label below.
    public static func layout(_ sizes: [(width: Int, height: Int)]) -> Layout {
        let innerW = sizes.map(\.width).max() ?? 1, innerH = sizes.map(\.height).max() ?? 1
        let cellW = innerW + 2 * padding, cellH = innerH + 2 * padding + labelHeight
        let cols = max(1, min(columns, sizes.count))
        let rows = (sizes.count + cols - 1) / cols
        var origins: [(x: Int, y: Int)] = [], labels: [(x: Int, y: Int)] = []
        for (i, size) in sizes.enumerated() {
            let cx = (i % cols) * cellW, cy = (i / cols) * cellH
            origins.append((cx + padding + (innerW - size.width) / 2, cy + padding + (innerH - size.height) / 2))
            labels.append((cx, cy + cellH - labelHeight))
        }
        return Layout(width: cols * cellW, height: max(1, rows) * cellH, origins: origins, labelOrigins: labels, cellWidth: cellW)
    }

    /// An 8-bit RGB sheet of 8-bit RGB thumbnails, labelled with `labels`.
    public static func make(thumbnails: [RasterImage], labels: [String]) throws -> RasterImage {
        guard !thumbnails.isEmpty else { throw RenderError(.mismatch("a contact sheet needs at least one image")) }
        guard thumbnails.count == labels.count else {
            throw RenderError(.mismatch("\(thumbnails.count) images and \(labels.count) labels: a contact sheet takes one label per image"))
        }
        for thumb in thumbnails where thumb.format != PixelFormat(.rgb, .eight) || thumb.pixels.count != thumb.width * thumb.height * 3 {
            throw RenderError(.mismatch("a contact sheet takes 8-bit RGB thumbnails, not \(thumb.format)"))
        }
        let layout = layout(thumbnails.map { ($0.width, $0.height) })
        let width = layout.width
        var pixels = [UInt8](repeating: 236, count: width * layout.height * 3)
        for (i, thumb) in thumbnails.enumerated() {
            let (x0, y0) = layout.origins[i]
            for y in 0..<thumb.height {
                let d = ((y0 + y) * width + x0) * 3
                pixels.replaceSubrange(d..<(d + thumb.width * 3), with: thumb.pixels[(y * thumb.width * 3)..<((y + 1) * thumb.width * 3)])
            }
            if i < labels.count {
                drawLabel(labels[i], box: layout.labelOrigins[i], width: layout.cellWidth, into: &pixels, sheetWidth: width)
            }
        }
        return try RasterImage(width: width, height: layout.height, format: PixelFormat(.rgb, .eight), pixels: pixels)
    }

    /// A sheet of images in memory (any layout).
    public static func make(_ images: [RasterImage], labels: [String]) throws -> RasterImage {
        try make(thumbnails: images.map { try thumbnail(of: $0) }, labels: labels)
    }

    /// The text a label box `width` pixels wide shows, and its scale: twice the font's size
    /// when it fits, else the font's size, cut with ".." when even that is too wide.
    static func fit(_ text: String, width: Int) -> (text: String, scale: Int) {
        let room = width - 4
        if BitmapFont.width(of: text, scale: 2) <= room { return (text, 2) }
        if BitmapFont.width(of: text, scale: 1) <= room { return (text, 1) }
        let keep = max(0, room / BitmapFont.width - 2)
        return (String(text.unicodeScalars.prefix(keep).map(Character.init)) + "..", 1)
    }

    /// Draws a label centred in its box, in near-black.
    static func drawLabel(_ label: String, box: (x: Int, y: Int), width: Int, into pixels: inout [UInt8], sheetWidth: Int) {
        let (text, scale) = fit(label, width: width)
        let height = pixels.count / 3 / sheetWidth
        let tx = box.x + (width - BitmapFont.width(of: text, scale: scale)) / 2
        let ty = box.y + (labelHeight - BitmapFont.height * scale) / 2
        for (k, character) in text.unicodeScalars.enumerated() {
            for row in 0..<BitmapFont.height {
                for col in 0..<BitmapFont.width where BitmapFont.isSet(character, x: col, y: row) {
                    for dy in 0..<scale {
                        for dx in 0..<scale {
                            let px = tx + (k * BitmapFont.width + col) * scale + dx, py = ty + row * scale + dy
                            guard px >= 0, px < sheetWidth, py >= 0, py < height else { continue }
                            let d = (py * sheetWidth + px) * 3
                            pixels[d] = 20; pixels[d + 1] = 20; pixels[d + 2] = 20
                        }
                    }
                }
            }
        }
    }
}
