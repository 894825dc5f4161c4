/// GIF files written byte by byte for the tests, independent of giflib and of fc_gif: LZW
/// without compression (a clear code every 252 literals keeps the codes 9 bits wide), every
/// field set by hand, so that a test can make what no encoder makes (a frame outside the
/// canvas, a truncated frame, a huge logical screen). And the plain rule of how a browser
/// shows the frames (`composite`), written from the GIF89a specification and the HTML
/// living standard's notes: the canvas starts transparent; disposal 2 clears the frame's
/// rectangle to transparent, disposal 3 restores what was under it; a frame is clipped to
/// the canvas.
enum TestGIF {
    struct Frame {
        var x = 0, y = 0, width: Int, height: Int
        /// Row by row, `width * height`.
        var indices: [UInt8]
        /// A local colour table (RGB triples); nil: the global one.
        var palette: [[UInt8]]? = nil
        var transparent: Int? = nil
        var disposal = 0
        /// Hundredths of a second.
        var delay = 10
        var interlaced = false
    }

    /// `loop`: the NETSCAPE2.0 block's count (nil: no block). `cutAt`: the file ends after
    /// this many bytes (nil: whole).
    static func make(width: Int, height: Int, global: [[UInt8]]?, loop: Int? = 0, frames: [Frame], trailer: Bool = true) -> [UInt8] {
        var b = Array("GIF89a".utf8)
        b += le16(width) + le16(height)
        if let global {
            b += [0x80 | 0x70 | UInt8(tableBits(global.count) - 1), 0, 0]
            b += table(global)
        } else {
            b += [0x70, 0, 0]
        }
        if let loop { b += [0x21, 0xFF, 11] + Array("NETSCAPE2.0".utf8) + [3, 1] + le16(loop) + [0] }
        for f in frames {
            b += [0x21, 0xF9, 4, UInt8(f.disposal << 2) | (f.transparent != nil ? 1 : 0)] + le16(f.delay)
                + [UInt8(f.transparent ?? 0), 0]
            b += [0x2C] + le16(f.x) + le16(f.y) + le16(f.width) + le16(f.height)
            var flags: UInt8 = f.interlaced ? 0x40 : 0
            if let p = f.palette { flags |= 0x80 | UInt8(tableBits(p.count) - 1) }
            b.append(flags)
            if let p = f.palette { b += table(p) }
            var rows = Array(0..<f.height)
            if f.interlaced {
                rows = Array(stride(from: 0, to: f.height, by: 8)) + Array(stride(from: 4, to: f.height, by: 8))
                    + Array(stride(from: 2, to: f.height, by: 4)) + Array(stride(from: 1, to: f.height, by: 2))
            }
            let stored = rows.flatMap { r in f.indices[(r * f.width)..<((r + 1) * f.width)] }
            b.append(8)
            b += subBlocks(lzw(stored))
        }
        if trailer { b.append(0x3B) }
        return b
    }

    static func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF)] }

    static func tableBits(_ count: Int) -> Int {
        var bits = 1
        while (1 << bits) < count { bits += 1 }
        return bits
    }

    static func table(_ colours: [[UInt8]]) -> [UInt8] {
        var t = colours.flatMap { $0 }
        t += [UInt8](repeating: 0, count: (1 << tableBits(colours.count)) * 3 - t.count)
        return t
    }

    /// LZW with a minimum code size of 8, every index a literal code of 9 bits.
    static func lzw(_ indices: [UInt8]) -> [UInt8] {
        var codes: [Int] = []
        for (k, i) in indices.enumerated() {
            if k % 252 == 0 { codes.append(256) }
            codes.append(Int(i))
        }
        codes.append(257)
        var out: [UInt8] = []
        var acc = 0, bits = 0
        for c in codes {
            acc |= c << bits
            bits += 9
            while bits >= 8 {
                out.append(UInt8(acc & 0xFF))
                acc >>= 8
                bits -= 8
            }
        }
        if bits > 0 { out.append(UInt8(acc & 0xFF)) }
        return out
    }

    static func subBlocks(_ data: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var at = 0
        while at < data.count {
            let n = min(255, data.count - at)
            out.append(UInt8(n))
            out += data[at..<(at + n)]
            at += n
        }
        out.append(0)
        return out
    }

    /// The frames as a browser shows them: RGBA canvases, transparent pixels 0, 0, 0, 0.
    static func composite(width: Int, height: Int, global: [[UInt8]]?, frames: [Frame]) -> [[UInt8]] {
        var canvas = [UInt8](repeating: 0, count: width * height * 4)
        var shown: [[UInt8]] = []
        var previous: (frame: Frame, saved: [UInt8])?
        for f in frames {
            if let (p, saved) = previous {
                if p.disposal == 2 {
                    forEach(p, width, height) { x, y in for c in 0..<4 { canvas[(y * width + x) * 4 + c] = 0 } }
                } else if p.disposal == 3 {
                    canvas = saved
                }
            }
            let saved = canvas
            let palette = f.palette ?? global!
            forEach(f, width, height) { x, y in
                let i = Int(f.indices[(y - f.y) * f.width + (x - f.x)])
                if i == f.transparent { return }
                let rgb = i < palette.count ? palette[i] : [0, 0, 0]
                let at = (y * width + x) * 4
                canvas[at] = rgb[0]
                canvas[at + 1] = rgb[1]
                canvas[at + 2] = rgb[2]
                canvas[at + 3] = 255
            }
            shown.append(canvas)
            previous = (f, saved)
        }
        return shown
    }

    private static func forEach(_ f: Frame, _ width: Int, _ height: Int, _ body: (Int, Int) -> Void) {
        for y in f.y..<min(height, f.y + f.height) {
            for x in f.x..<min(width, f.x + f.width) { body(x, y) }
        }
    }
}
