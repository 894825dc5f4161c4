import Foundation
import Testing
@testable import FilterChain

/// `Thumbnail`'s attention crop against a plain reading of its documented formula: the
/// interest of each pixel, and the box placed where the summed interest is largest.
@Suite struct ThumbnailTests {
    /// The interest as `Thumbnail.interest(of:)` documents it, in Double, pixel by pixel.
    static func referenceInterest(_ image: RasterImage) -> [Double] {
        let w = image.width, h = image.height, n = image.format.channels.count
        let v = image.samples.map { Double($0) / 255 }
        func rgb(_ x: Int, _ y: Int) -> (Double, Double, Double) {
            let x = min(max(x, 0), w - 1), y = min(max(y, 0), h - 1)
            let p = (y * w + x) * n
            return n >= 3 ? (v[p], v[p + 1], v[p + 2]) : (v[p], v[p], v[p])
        }
        func luma(_ x: Int, _ y: Int) -> Double {
            let (r, g, b) = rgb(x, y)
            return 0.2126 * r + 0.7152 * g + 0.0722 * b
        }
        var out: [Double] = []
        for y in 0..<h {
            for x in 0..<w {
                var gx = 0.0, gy = 0.0
                let kernel = [[-1.0, 0, 1], [-2, 0, 2], [-1, 0, 1]]
                for j in -1...1 {
                    for i in -1...1 {
                        gx += kernel[j + 1][i + 1] * luma(x + i, y + j)
                        gy += kernel[i + 1][j + 1] * luma(x + i, y + j)
                    }
                }
                let edge = min(1, (gx * gx + gy * gy).squareRoot() / 4)
                let (r, g, b) = rgb(x, y)
                let saturation = max(r, g, b) - min(r, g, b)
                let sum = r + g + b
                let Y = luma(x, y)
                let skin = sum > 0 && (0.36...0.465).contains(r / sum) && (0.28...0.363).contains(g / sum) && (0.2...0.9).contains(Y) ? 1.0 : 0
                let alpha = n == 2 || n == 4 ? v[(y * w + x) * n + n - 1] : 1
                out.append(alpha * (edge * (1 + saturation) + (edge >= 0.1 ? skin : 0)))
            }
        }
        return out
    }

    static func randomImage(width: Int, height: Int, channels: Channels, seed: UInt64) throws -> RasterImage {
        var rng = SeededRandom(seed)
        let n = channels.count
        // Blocks of colour, so that there are edges, flat parts and skin tones.
        var samples = [Int](repeating: 0, count: width * height * n)
        let palette = (0..<6).map { _ in (0..<n).map { _ in Int.random(in: 0...255, using: &rng) } } + [[224, 172, 140, 255].prefix(n).map { $0 }]
        let cell = Int.random(in: 2...5, using: &rng)
        let cells = (0..<((width / cell + 1) * (height / cell + 1))).map { _ in Int.random(in: 0..<palette.count, using: &rng) }
        for y in 0..<height {
            for x in 0..<width {
                let colour = palette[cells[(y / cell) * (width / cell + 1) + x / cell]]
                for c in 0..<n { samples[(y * width + x) * n + c] = colour[c] }
            }
        }
        return try RasterImage(width: width, height: height, format: PixelFormat(channels, .eight), samples: samples)
    }

    @Test(arguments: [Channels.rgb, .rgba, .grey, .greyAlpha])
    func interestIsTheDocumentedFormula(channels: Channels) throws {
        for seed: UInt64 in 0..<4 {
            let image = try Self.randomImage(width: 23 + Int(seed), height: 17, channels: channels, seed: seed + 10)
            let got = Thumbnail.interest(of: image)
            let expected = Self.referenceInterest(image)
            #expect(got.count == expected.count)
            let worst = zip(got, expected).map { abs(Double($0) - $1) }.max() ?? 0
            #expect(worst < 1e-5, "\(channels) seed \(seed): off by \(worst)")
        }
    }

    /// Every place of the box tried, by summing the box directly: the largest sum, nearest
    /// the middle (|2x - room| + |2y - room|) on a tie, as fractions of the room.
    @Test func theBoxGoesWhereTheSummedInterestIsLargest() throws {
        var rng = SeededRandom(3)
        for trial in 0..<30 {
            let w = Int.random(in: 8...40, using: &rng), h = Int.random(in: 8...40, using: &rng)
            let image = try Self.randomImage(width: w, height: h, channels: .rgb, seed: UInt64(trial))
            // A source twice the image's size; boxes of every shape.
            let source = ImageSize(width: 2 * w, height: 2 * h)
            let thumbnail = Thumbnail(width: Int.random(in: 1...60, using: &rng), height: Int.random(in: 1...60, using: &rng), crop: .attention)
            let kept = thumbnail.keptFraction(of: source)
            let bw = max(1, min(w, Int((Double(w) * kept.width).rounded())))
            let bh = max(1, min(h, Int((Double(h) * kept.height).rounded())))
            let interest = Self.referenceInterest(image)
            var best: (x: Int, y: Int, total: Double, distance: Int)?
            for y in 0...(h - bh) {
                for x in 0...(w - bw) {
                    var total = 0.0
                    for j in y..<(y + bh) { for i in x..<(x + bw) { total += interest[j * w + i] } }
                    let distance = abs(2 * x - (w - bw)) + abs(2 * y - (h - bh))
                    if let b = best {
                        let tie = abs(total - b.total) <= 1e-6 * max(1, abs(b.total))
                        if (!tie && total > b.total) || (tie && distance < b.distance) { best = (x, y, total, distance) }
                    } else {
                        best = (x, y, total, distance)
                    }
                }
            }
            let b = try #require(best)
            let p = thumbnail.position(in: image, sourceSize: source)
            let expected = ImagePoint(w == bw ? 0.5 : Double(b.x) / Double(w - bw), h == bh ? 0.5 : Double(b.y) / Double(h - bh))
            #expect(p == expected, "trial \(trial): \(w)x\(h) box \(bw)x\(bh)")
        }
    }

    /// A sharp, coloured square on a flat grey field, near the right edge: attention puts the
    /// box on it; centre does not; the render keeps the square.
    @Test func attentionFindsTheSubject() throws {
        let w = 600, h = 200
        var samples = [Int](repeating: 128, count: w * h * 3)
        for y in 60..<140 {
            for x in 480..<560 {
                let checker = ((x / 8) + (y / 8)) % 2 == 0
                samples[(y * w + x) * 3] = checker ? 230 : 20
                samples[(y * w + x) * 3 + 1] = checker ? 40 : 200
                samples[(y * w + x) * 3 + 2] = 30
            }
        }
        let image = try RasterImage(width: w, height: h, format: PixelFormat(.rgb, .eight), samples: samples)
        let folder = NSTemporaryDirectory() + "thumbnail-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try image.write(to: folder + "/subject.png")
        let renderer = Renderer(threads: 2)
        let thumbnail = Thumbnail(width: 100, height: 100, crop: .attention)
        let chain = try thumbnail.chain(for: .file(folder + "/subject.png"), renderer: renderer)
        let resize = try #require(chain.steps.first?.filter as? Resize)
        #expect(resize.fit == .cover && resize.enlarge == false && resize.fast)
        // The square spans 480...560 of 600: the 200-wide box (before the resize) must hold it.
        let room = Double(w - h)
        let x = (room * resize.position.x).rounded(.down)
        #expect(x <= 480 && x + Double(h) >= 560, "box at \(x)")
        let out = try renderer.render(chain, source: .file(folder + "/subject.png"), outputs: [RenderOutput(step: 1, .memory())])
        let small = try #require(out.images[0])
        #expect(small.width == 100 && small.height == 100)
        // The square's green is in the thumbnail; the middle crop is all grey.
        #expect(small.samples.enumerated().contains { $0.offset % 3 == 1 && $0.element > 150 })
        let middle = try renderer.render(Thumbnail(width: 100, height: 100, crop: .centre).chain(), source: .file(folder + "/subject.png"),
                                         outputs: [RenderOutput(step: 1, .memory())])
        #expect(try #require(middle.images[0]).samples.allSatisfy { abs($0 - 128) <= 1 })
    }

    /// A box the image does not need to be cut for (as wide as it or wider) leaves the middle.
    @Test func noRoomMeansTheMiddle() throws {
        let image = try Self.randomImage(width: 30, height: 20, channels: .rgb, seed: 1)
        let p = Thumbnail(width: 300, height: 200, crop: .attention).position(in: image, sourceSize: ImageSize(width: 30, height: 20))
        #expect(p == ImagePoint(0.5, 0.5))
    }
}
