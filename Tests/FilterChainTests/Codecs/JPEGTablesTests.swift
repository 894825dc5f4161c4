import CJPEG
import Foundation
import Testing
@testable import FilterChain

/// filterchain's JPEG quantisation (JPEGTables) against plain references: the tables a file
/// holds are the documented formula, and its coefficients are the definition's DCT of the
/// pixels divided by them and rounded.
@Suite struct JPEGTablesTests {
    /// The formula of JPEGTables' documentation, written out again: base tables
    /// 14 (1 + 1.2 f) and 20 (1 + 0.8 f), f = sqrt(u² + v²), scaled by libjpeg's percentage at
    /// the effective quality.
    static func documentedTable(quality q: Double, chroma: Bool) -> [UInt16] {
        let scale = q < 50 ? 5000 / q : 200 - 2 * q
        var table: [UInt16] = []
        for v in 0..<8 {
            for u in 0..<8 {
                let f = Double(u * u + v * v).squareRoot()
                let base = chroma ? 20 * (1 + 0.8 * f) : 14 * (1 + 1.2 * f)
                table.append(UInt16(min(255, max(1, (base * scale / 100).rounded()))))
            }
        }
        return table
    }

    static func coefficients(_ data: [UInt8], component: Int) -> (blocks: [[Int16]], wide: Int) {
        var out = [Int16](repeating: 0, count: 1 << 20)
        var wide: UInt32 = 0
        let n = data.withUnsafeBufferPointer { d in
            out.withUnsafeMutableBufferPointer { fc_jpeg_coefficients(d.baseAddress, d.count, Int32(component), $0.baseAddress, $0.count, &wide) }
        }
        #expect(n > 0)
        return ((0..<max(0, n)).map { Array(out[$0 * 64..<($0 + 1) * 64]) }, Int(wide))
    }

    static func encode(_ pixels: Pixels, _ options: EncodeOptions) throws -> [UInt8] {
        let path = TestData.temporaryFolder().appendingPathComponent("t.jpg").path
        try pixels.write(to: .file(path), format: .jpeg, options: options)
        return [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// DQT segments parsed by hand (an independent reader): tables 0 and 1, natural order.
    static func tablesOf(_ data: [UInt8]) -> [[UInt16]?] {
        let zigzag = [0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21,
                      28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63]
        var tables: [[UInt16]?] = [nil, nil, nil, nil]
        var i = 2
        while i + 4 <= data.count, data[i] == 0xFF {
            let marker = data[i + 1], length = Int(data[i + 2]) << 8 | Int(data[i + 3])
            if marker == 0xDA { break }
            if marker == 0xDB {
                var p = i + 4
                while p < i + 2 + length {
                    let precision = data[p] >> 4, id = Int(data[p] & 15)
                    var t = [UInt16](repeating: 0, count: 64)
                    for z in 0..<64 {
                        t[zigzag[z]] = precision == 0 ? UInt16(data[p + 1 + z]) : UInt16(data[p + 1 + 2 * z]) << 8 | UInt16(data[p + 2 + 2 * z])
                    }
                    tables[id] = t
                    p += 1 + (precision == 0 ? 64 : 128)
                }
            }
            i += 2 + length
        }
        return tables
    }

    @Test(arguments: [(1, 1.0), (30, 59.8), (70, 84.4), (90, 94.5), (100, 100.0)])
    func filesHoldTheDocumentedTables(quality: Int, effective: Double) throws {
        let pixels = Pixels.random(width: 24, height: 16, format: PixelFormat(.rgb, .eight), seed: 3)
        let tables = Self.tablesOf(try Self.encode(pixels, EncodeOptions(quality: quality)))
        #expect(tables[0] == Self.documentedTable(quality: effective, chroma: false))
        #expect(tables[1] == Self.documentedTable(quality: effective, chroma: true))
        // And a re-encode reads back a quality with the same tables (1 and 2 both saturate at 255).
        let estimate = try #require(JPEGEncoding.estimateQuality([tables[0], tables[1]]))
        #expect(JPEGTables.tables(quality: estimate) == (tables[0]!, tables[1]!))
    }

    /// A grey image's coefficients against the definition: F(u,v) = C(u)C(v)/4 sum f(x,y)
    /// cos((2x+1)u pi/16) cos((2y+1)v pi/16) of the level-shifted samples, over the file's
    /// table, rounded to nearest. libjpeg's integer DCT is within a coefficient unit of the
    /// definition, so a value within one unit of a rounding boundary may round either way.
    @Test(arguments: [40, 75, 90], [false, true])
    func greyCoefficientsAreTheDefinitionsRounded(quality: Int, progressive: Bool) throws {
        let w = 32, h = 24
        var samples: [Int] = []
        var seed: UInt64 = 11
        for y in 0..<h {
            for x in 0..<w {
                seed = seed &* 6364136223846793005 &+ 1442695040888963407
                let noise = Int(seed >> 59)   // 0...31
                samples.append(min(255, max(0, 40 + x * 5 + (y % 8) * 9 + noise)))
            }
        }
        let pixels = Pixels(width: w, height: h, format: PixelFormat(.grey, .eight), samples: samples)
        let data = try Self.encode(pixels, EncodeOptions(quality: quality, progressive: progressive))
        let table = Self.tablesOf(data)[0]!
        let (blocks, wide) = Self.coefficients(data, component: 0)
        #expect(blocks.count == (w / 8) * (h / 8))
        var exact = 0
        for (b, levels) in blocks.enumerated() {
            let bx = b % wide, by = b / wide
            for v in 0..<8 {
                for u in 0..<8 {
                    var sum = 0.0
                    for y in 0..<8 {
                        for x in 0..<8 {
                            let f = Double(samples[(by * 8 + y) * w + bx * 8 + x] - 128)
                            sum += f * cos(Double((2 * x + 1) * u) * .pi / 16) * cos(Double((2 * y + 1) * v) * .pi / 16)
                        }
                    }
                    let coefficient = (u == 0 ? 0.5.squareRoot() : 1) * (v == 0 ? 0.5.squareRoot() : 1) / 4 * sum
                    let k = v * 8 + u
                    let q = coefficient / Double(table[k])
                    let reference = q.rounded()
                    let got = Double(levels[k])
                    let nearBoundary = abs(abs(q - q.rounded(.down)) - 0.5) < 1 / Double(table[k])
                    if nearBoundary {
                        #expect(abs(got - q) <= 0.5 + 1 / Double(table[k]), "block \(b) coefficient \(k)")
                    } else {
                        #expect(got == reference, "block \(b) coefficient \(k): \(got) against \(q)")
                        exact += 1
                    }
                }
            }
        }
        #expect(exact > blocks.count * 48)
    }

    /// Effort 0 is one sequential pass with the trained Huffman tables (valid prefix codes, the
    /// all-ones code free); effort 1 optimises them for the image, still sequential; effort 2
    /// and `progressive` write progressive scans. Each decodes to the same pixels, as the
    /// coefficients are the same.
    @Test func effortsAndTheTrainedTables() throws {
        for band in JPEGTables.huffmanBands {
            for table in [band.dcLuma, band.dcChroma, band.acLuma, band.acChroma] { #expect(table.isValid) }
            #expect(band.dcLuma.symbols.count == 12 && band.acLuma.symbols.count == 162)
        }
        #expect(JPEGTables.huffmanBands.map(\.qualities).flatMap { Array($0) } == Array(1...100))
        func frame(_ data: [UInt8]) -> UInt8? {
            var i = 2
            while i + 4 <= data.count, data[i] == 0xFF {
                if (0xC0...0xC2).contains(data[i + 1]) { return data[i + 1] }
                i += 2 + (Int(data[i + 2]) << 8 | Int(data[i + 3]))
            }
            return nil
        }
        var samples: [Int] = []
        for y in 0..<48 { for x in 0..<64 { samples += [x * 4, y * 5, (x * y) % 256] } }
        let pixels = Pixels(width: 64, height: 48, format: PixelFormat(.rgb, .eight), samples: samples)
        var decoded: [Pixels] = []
        var sizes: [Int] = []
        for (settings, sof) in [([:], 0xC0), (["effort": 1], 0xC1), (["effort": 2], 0xC2), (["progressive": true], 0xC2)] as [([String: EncodeOptionValue], UInt8)] {
            for quality in [30, 60, 85, 95] {
                var options = EncodeOptions(quality: quality)
                for (k, v) in settings { options.settings[k] = v }
                let data = try Self.encode(pixels, options)
                // Baseline (C0) when the tables are the standard's or ours; optimised tables may
                // be C0 or C1 (libjpeg writes C0 for 8-bit Huffman either way).
                if sof == 0xC2 { #expect(frame(data) == 0xC2) } else { #expect(frame(data) == 0xC0) }
                let path = TestData.temporaryFolder().appendingPathComponent("e.jpg").path
                try Data(data).write(to: URL(fileURLWithPath: path))
                if quality == 85 { decoded.append(try Pixels.read(path).0); sizes.append(data.count) }
            }
        }
        #expect(decoded.allSatisfy { $0 == decoded[0] })
        #expect(sizes[1] <= sizes[0])
    }

    /// A JPEG with the standard's tables (libjpeg's jpeg_set_quality, `--tables standard`),
    /// written again with its own quality and chroma (the defaults), keeps those tables: the
    /// second generation is quantised on the first's grid and stays within a level or two.
    @Test func aReencodeKeepsTheStandardTablesItFinds() throws {
        let source = try Pixels.read(TestData.samples.appendingPathComponent("coffee.png").path).0
        for quality in [50, 75, 92] {
            var options = EncodeOptions(quality: quality)
            options.settings["tables"] = "standard"
            let first = try Self.encode(source, options)
            let tables = Self.tablesOf(first)
            #expect(tables[0] == JPEGTables.standard(quality: quality).luma && tables[1] == JPEGTables.standard(quality: quality).chroma)
            let path = TestData.temporaryFolder().appendingPathComponent("first.jpg").path
            try Data(first).write(to: URL(fileURLWithPath: path))
            let image = try RasterImage(decoding: first)
            #expect(image.metadata.sourceJPEG == JPEGEncoding(quality: quality, chroma: .yuv420, standardTables: true))
            let second = [UInt8](try image.encoded(as: .jpeg, options: EncodeOptions()))
            #expect(Self.tablesOf(second)[0] == tables[0] && Self.tablesOf(second)[1] == tables[1])
            let a = try RasterImage(decoding: first).pixels, b = try RasterImage(decoding: second).pixels
            let mean = zip(a, b).map { abs(Double($0) - Double($1)) }.reduce(0, +) / Double(a.count)
            #expect(mean < 0.5, "quality \(quality): the second generation is \(mean) levels off the first on average")
        }
    }

    /// The standard's tables and the source's chroma subsampling are kept only where the
    /// output's 8x8 blocks are the source's: through no step, or a colour step, a re-encode
    /// keeps them; a resize (a thumbnail), a flip (the same size, other blocks) and a crop get
    /// filterchain's tables and 4:2:0, as a new image does, at the source's quality.
    @Test func onlyAnOutputOnTheSourcesBlocksKeepsItsTablesAndChroma() throws {
        let pixels = try Pixels.read(TestData.samples.appendingPathComponent("coffee.png").path).0
        var options = EncodeOptions(quality: 80, chroma: .yuv444)
        options.settings["tables"] = "standard"
        let source = try RasterImage(decoding: try Self.encode(pixels, options))
        #expect(source.metadata.sourceJPEG == JPEGEncoding(quality: 80, chroma: .yuv444, standardTables: true))
        let standard = JPEGTables.standard(quality: 80), ours = JPEGTables.tables(quality: 80)
        var crop = Crop()
        crop.unit = .fraction
        crop.width = 0.5
        crop.height = 1
        let cases: [(String, Chain, [UInt16])] = [
            ("no step", Chain(), standard.luma), ("a colour step", Chain([Invert()]), standard.luma),
            ("a resize", Chain([Resize(scale: 0.5)]), ours.luma), ("a flip", Chain([Flip()]), ours.luma),
            ("a crop", Chain([crop]), ours.luma),
        ]
        let renderer = Renderer()
        for (name, chain, luma) in cases {
            let image = try renderer.images(chain, of: source).final
            let written = [UInt8](try image.encoded(as: .jpeg))
            #expect(Self.tablesOf(written)[0] == luma, "\(name)")
            let kept = luma == standard.luma
            #expect(try RasterImage(decoding: written).metadata.sourceJPEG == JPEGEncoding(quality: 80, chroma: kept ? .yuv444 : .yuv420,
                                                                                        standardTables: kept), "\(name)")
        }
    }

    /// `restartInterval` writes a DRI segment with the interval and a restart marker after every
    /// that many MCUs, in baseline and progressive scans; the coefficients are the same, so the
    /// pixels decode exactly as without markers.
    @Test(arguments: [false, true])
    func restartMarkersAreWrittenWhenAsked(progressive: Bool) throws {
        var samples: [Int] = []
        for y in 0..<75 { for x in 0..<101 { samples += [(x * 5) % 256, (y * 3) % 256, (x * y) % 256] } }
        let pixels = Pixels(width: 101, height: 75, format: PixelFormat(.rgb, .eight), samples: samples)
        /// The DRI interval (nil: none) and the RSTn markers in order, by a walk of the file.
        func restarts(_ data: [UInt8]) -> (interval: Int?, markers: [UInt8]) {
            var interval: Int?
            var markers: [UInt8] = []
            var i = 2
            while i + 4 <= data.count, data[i] == 0xFF, data[i + 1] != 0xDA {
                if data[i + 1] == 0xDD { interval = Int(data[i + 4]) << 8 | Int(data[i + 5]) }
                i += 2 + (Int(data[i + 2]) << 8 | Int(data[i + 3]))
            }
            while i + 1 < data.count {
                if data[i] == 0xFF, (0xD0...0xD7).contains(data[i + 1]) { markers.append(data[i + 1]) }
                i += 1
            }
            return (interval, markers)
        }
        var decoded: [Pixels] = []
        for (interval, chroma) in [(0, "4:2:0"), (3, "4:2:0"), (1, "4:4:4"), (7, "4:2:2")] {
            var options = EncodeOptions(quality: 85)
            options.settings["chroma"] = .choice(chroma)
            options.settings["progressive"] = .boolean(progressive)
            if interval > 0 { options.settings["restartInterval"] = .integer(interval) }
            let data = try Self.encode(pixels, options)
            let found = restarts(data)
            if interval == 0 {
                #expect(found.interval == nil && found.markers.isEmpty)
            } else {
                #expect(found.interval == interval)
                // A sequential (interleaved) scan has ceil(w / mcu) x ceil(h / mcu) MCUs; its
                // markers count 0xD0, 0xD1, ... 0xD7 and round again.
                let mcu = chroma == "4:2:0" ? (16, 16) : chroma == "4:2:2" ? (16, 8) : (8, 8)
                let mcus = ((101 + mcu.0 - 1) / mcu.0) * ((75 + mcu.1 - 1) / mcu.1)
                if progressive {
                    #expect(found.markers.count > (mcus - 1) / interval)
                } else {
                    #expect(found.markers.count == (mcus - 1) / interval)
                    #expect(found.markers.enumerated().allSatisfy { $0.element == 0xD0 + UInt8($0.offset % 8) })
                }
            }
            let path = TestData.temporaryFolder().appendingPathComponent("r.jpg").path
            try Data(data).write(to: URL(fileURLWithPath: path))
            if chroma == "4:2:0" { decoded.append(try Pixels.read(path).0) }
        }
        #expect(decoded.count == 2 && decoded[0] == decoded[1])
    }
}
