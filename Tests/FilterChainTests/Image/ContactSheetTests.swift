import Testing
@testable import FilterChain

/// The contact sheet: thumbnails against a plain box average, cells for images of different
/// sizes, and labels in the bitmap font.
@Suite struct ContactSheetTests {
    /// The documented thumbnail: each pixel the mean over its box of the image's pixels,
    /// alpha over a checkerboard of 8-pixel squares (1.0 and 0.8), from integer samples.
    static func reference(_ p: Pixels, _ tw: Int, _ th: Int) -> [UInt8] {
        let n = p.format.channels.count, maxValue = Double(p.format.depth.maxValue)
        var out: [UInt8] = []
        for ty in 0..<th {
            for tx in 0..<tw {
                let ys = (ty * p.height / th)..<((ty + 1) * p.height / th), xs = (tx * p.width / tw)..<((tx + 1) * p.width / tw)
                let checker = (tx / 8 + ty / 8) % 2 == 0 ? 1.0 : 0.8
                var sum = [0.0, 0.0, 0.0]
                for y in ys {
                    for x in xs {
                        let s = (y * p.width + x) * n
                        let a = p.format.channels.hasAlpha ? Double(p.samples[s + n - 1]) / maxValue : 1
                        for c in 0..<3 {
                            let v = Double(p.samples[s + (p.format.channels.isGrey ? 0 : c)]) / maxValue
                            sum[c] += v * a + checker * (1 - a)
                        }
                    }
                }
                for c in 0..<3 { out.append(UInt8((sum[c] / Double(ys.count * xs.count) * 255).rounded())) }
            }
        }
        return out
    }

    static let formats = [PixelFormat(.rgb, .eight), PixelFormat(.rgba, .sixteen), PixelFormat(.grey, .eight),
                          PixelFormat(.greyAlpha, .sixteen)]

    @Test(arguments: formats)
    func thumbnailsAreBoxAveragesReadInStrips(format: PixelFormat) throws {
        // 700 x 333 fits as 240 x 114: boxes of 2 or 3 columns and 2 or 3 rows; 333 rows
        // are 11 strips, the last one short.
        let p = Pixels.random(width: 700, height: 333, format: format, seed: 3)
        let thumb = try ContactSheet.thumbnail(of: p.raster)
        #expect((thumb.width, thumb.height) == (240, 114))
        #expect(thumb.format == PixelFormat(.rgb, .eight))
        let expected = Self.reference(p, 240, 114)
        let worst = zip(thumb.pixels, expected).map { abs(Int($0) - Int($1)) }.max()!
        #expect(worst <= 1, "differs by \(worst)")
    }

    @Test func smallImagesAreNotEnlarged() throws {
        #expect(ContactSheet.fittedSize(width: 100, height: 50) == (100, 50))
        #expect(ContactSheet.fittedSize(width: 4000, height: 3000) == (240, 180))
        #expect(ContactSheet.fittedSize(width: 30, height: 9000) == (1, 240))
        let p = Pixels.random(width: 7, height: 5, format: PixelFormat(.rgb, .eight), seed: 1)
        #expect(try ContactSheet.thumbnail(of: p.raster).pixels.map(Int.init) == p.samples)
    }

    /// Steps of different sizes (geometry steps will make them): each is centred in a cell
    /// as large as the largest thumbnail.
    @Test func thumbnailsOfDifferentSizesEachFitTheirCell() throws {
        let layout = ContactSheet.layout([(240, 160), (100, 240), (50, 30), (240, 240), (9, 9)])
        // Cells 240 + 16 wide, 240 + 16 + 22 high; four a row, two rows.
        #expect((layout.width, layout.height) == (1024, 556))
        let origins = layout.origins.map { [$0.x, $0.y] }
        #expect(origins == [[8, 48], [256 + 78, 8], [512 + 103, 113], [768 + 8, 8], [8 + 115, 278 + 123]])
        #expect(layout.labelOrigins.map { [$0.x, $0.y] } == [[0, 256], [256, 256], [512, 256], [768, 256], [0, 534]])
    }

    @Test func labelsFallBackToThePositionOutsideASCII() throws {
        #expect(ContactSheet.label(position: 3, name: "soften") == "3 soften")
        #expect(ContactSheet.label(position: 2, name: "courbe-\u{E9}") == "2")
        #expect(ContactSheet.label(position: 4, name: "tab\there") == "4")
        #expect(ContactSheet.label(position: 1, name: nil) == "1")
    }

    /// The label's pixels are the font's glyphs, twice their size, centred under the cell.
    @Test func labelsAreDrawnInTheBitmapFont() throws {
        let thumb = try RasterImage(width: 40, height: 20, format: PixelFormat(.rgb, .eight), pixels: Array(repeating: 128, count: 40 * 20 * 3))
        let sheet = try ContactSheet.make(thumbnails: [thumb], labels: ["A1"])
        // One cell: 56 x 58; the label box is the last 22 rows; "A1" is 20 x 14 at scale 2.
        #expect((sheet.width, sheet.height) == (56, 58))
        let x0 = (56 - 20) / 2, y0 = 36 + (22 - 14) / 2
        for y in 0..<22 {
            for x in 0..<56 {
                let on = sheet.pixels[((36 + y) * 56 + x) * 3] == 20
                let gx = x - x0, gy = 36 + y - y0
                var expected = false
                if gx >= 0, gx < 20, gy >= 0, gy < 14 {
                    let character: Unicode.Scalar = gx < 10 ? "A" : "1"
                    expected = BitmapFont.isSet(character, x: (gx % 10) / 2, y: gy / 2)
                }
                #expect(on == expected, "(\(x), \(y))")
            }
        }
        // The font itself: "1" has its stem in the middle column, "A" a bar across row 3.
        #expect((0..<5).filter { BitmapFont.isSet("A", x: $0, y: 3) } == [0, 1, 2, 3])
        #expect((0..<7).allSatisfy { !BitmapFont.isSet(" ", x: 2, y: $0) })
        let cut = ContactSheet.fit(String(repeating: "x", count: 60), width: 256)
        #expect(cut.text == String(repeating: "x", count: 48) + ".." && cut.scale == 1, "252 pixels hold 50 characters")
    }
}
