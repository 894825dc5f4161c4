extension RasterImage {
    /// A copy whose long side is at most `longSide` pixels (the image itself when it already
    /// fits), each pixel the average of the box of source pixels it covers, with colour
    /// weighted by alpha so transparent pixels lend no colour. The copy is 16-bit with the
    /// same channels and metadata. Averages are taken on the stored (encoded) values.
    public func downscaled(toFit longSide: Int) throws -> RasterImage {
        guard longSide > 0 else { throw RenderError(.badOption("a long side of \(longSide) pixels: it must be 1 or more")) }
        let scale = min(1, Double(longSide) / Double(max(width, height)))
        let tw = max(1, Int((Double(width) * scale).rounded()))
        let th = max(1, Int((Double(height) * scale).rounded()))
        if tw == width && th == height && format.depth == .sixteen { return self }
        let n = format.channels.count
        let hasAlpha = format.channels.hasAlpha
        let colourChannels = hasAlpha ? n - 1 : n
        let inverseMax = 1 / Float(format.depth.maxValue)
        let columnStart = (0...tw).map { $0 * width / tw }
        var out = [UInt16](repeating: 0, count: tw * th * n)
        var sums = [Float](repeating: 0, count: tw * n)
        pixels.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            let words = raw.bindMemory(to: UInt16.self)
            let floats = raw.bindMemory(to: Float.self)
            let depth = format.depth
            // Sample i over its full intensity (float as it is: the average is clamped below).
            @inline(__always) func value(_ i: Int) -> Float {
                switch depth {
                case .eight: Float(bytes[i]) * inverseMax
                case .sixteen: Float(words[i]) * inverseMax
                case .float32: floats[i]
                }
            }
            for ty in 0..<th {
                let ya = ty * height / th, yb = max(ya + 1, (ty + 1) * height / th)
                for i in sums.indices { sums[i] = 0 }
                for y in ya..<yb {
                    let rowStart = y * width * n
                    for tx in 0..<tw {
                        let xa = columnStart[tx], xb = max(xa + 1, columnStart[tx + 1])
                        for x in xa..<xb {
                            let s = rowStart + x * n
                            let a: Float = hasAlpha ? value(s + n - 1) : 1
                            for c in 0..<colourChannels {
                                let v = value(s + c)
                                sums[tx * n + c] += v * a
                            }
                            if hasAlpha { sums[tx * n + n - 1] += a }
                        }
                    }
                }
                for tx in 0..<tw {
                    let xa = columnStart[tx], xb = max(xa + 1, columnStart[tx + 1])
                    let count = Float((yb - ya) * (xb - xa))
                    let alphaSum = hasAlpha ? sums[tx * n + n - 1] : count
                    let d = (ty * tw + tx) * n
                    for c in 0..<colourChannels {
                        let v = alphaSum > 0 ? sums[tx * n + c] / alphaSum : 0
                        out[d + c] = UInt16(min(max(v, 0), 1) * 65535 + 0.5)
                    }
                    if hasAlpha { out[d + n - 1] = UInt16(min(max(alphaSum / count, 0), 1) * 65535 + 0.5) }
                }
            }
        }
        let bytes = out.withUnsafeBytes { Array($0) }
        return try RasterImage(width: tw, height: th, format: PixelFormat(format.channels, .sixteen),
                           metadata: metadata, pixels: bytes)
    }
}
