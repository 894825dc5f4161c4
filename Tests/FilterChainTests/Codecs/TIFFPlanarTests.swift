import Foundation
import Testing
@testable import FilterChain

/// TIFFs of separate planes (PlanarConfiguration 2) and BigTIFF, against references that do not
/// come from libtiff: files tifffile wrote from formulas computed again here
/// (Tests/Fixtures/tiff/make-fixtures.py), and tifffile's decode of Pillow's files.
@Suite struct TIFFPlanarTests {
    static let folder = TestData.fixtures.appendingPathComponent("tiff")
    static let width = 37, height = 29

    /// The fixtures' sample formula (see make-fixtures.py).
    static func sample(depth: Int, x: Int, y: Int, c: Int) -> Int {
        depth == 8 ? (x * 37 + y * 91 + c * 53 + (x * y) % 17) % 256
                   : (x * 1237 + y * 4091 + c * 7919 + (x * y * 31) % 257) % 65536
    }

    /// What the decoder delivers for an associated (premultiplied) colour `c` with alpha `a`:
    /// c / a at the sample's scale, rounded to nearest, 0 where alpha is 0 (TIFFDecoder's rule).
    static func unpremultiplied(_ c: Int, alpha a: Int, top: Int) -> Int {
        a == 0 ? 0 : min(top, (c * top + a / 2) / a)
    }

    struct Case: CustomStringConvertible, Sendable {
        var depth: Int
        var layout: String
        var alpha: String
        var description: String { "planar-\(depth)-\(layout)-\(alpha).tif" }
    }

    static let cases = [8, 16].flatMap { depth in
        ["tiles", "strips"].flatMap { layout in
            ["none", "unassociated", "associated"].map { Case(depth: depth, layout: layout, alpha: $0) }
        }
    }

    /// Separate planes decode to the sample at 8 and 16 bits, tiled (three tiles across, the
    /// last partial) or in strips, without alpha or with either kind.
    @Test(arguments: cases)
    func separatePlanesDecodeToTheSample(_ c: Case) throws {
        let (pixels, info) = try Pixels.read(Self.folder.appendingPathComponent(c.description).path)
        #expect(info.width == Self.width && info.height == Self.height)
        let channels = c.alpha == "none" ? 3 : 4
        #expect(pixels.format == PixelFormat(channels == 4 ? .rgba : .rgb, c.depth == 8 ? .eight : .sixteen))
        let top = c.depth == 8 ? 255 : 65535
        var wrong = 0
        var first: String?
        for y in 0..<Self.height {
            for x in 0..<Self.width {
                let a = Self.sample(depth: c.depth, x: x, y: y, c: 3)
                for k in 0..<channels {
                    let s = Self.sample(depth: c.depth, x: x, y: y, c: k)
                    var expected = s
                    if c.alpha == "associated" && k < 3 {
                        // Stored premultiplied (as make-fixtures.py wrote it), delivered straight.
                        expected = Self.unpremultiplied((s * a + top / 2) / top, alpha: a, top: top)
                    }
                    let got = pixels.samples[(y * Self.width + x) * channels + k]
                    if got != expected {
                        wrong += 1
                        if first == nil { first = "(\(x), \(y)) channel \(k): \(got), expected \(expected)" }
                    }
                }
            }
        }
        #expect(wrong == 0, "\(c): \(wrong) samples differ, first \(first ?? "")")
    }

    /// Pillow's tiled, planar, 16-bit files decode to tifffile's samples exactly (the RGB one)
    /// and, with their associated alpha divided out, by the same rule (the RGBa one).
    @Test(arguments: ["tiff_tiled_planar_16bit_RGB", "tiff_tiled_planar_16bit_RGBa"])
    func pillowsTiledPlanarFilesDecodeAsTifffileReadsThem(_ name: String) throws {
        let (pixels, _) = try Pixels.read(Self.folder.appendingPathComponent(name + ".tiff").path)
        let (stored, _) = try Pixels.read(Self.folder.appendingPathComponent(name + ".stored.png").path)
        #expect(pixels.width == stored.width && pixels.height == stored.height && pixels.format == stored.format)
        let channels = pixels.format.channels.count
        var wrong = 0
        for i in 0..<(pixels.width * pixels.height) {
            let a = channels == 4 ? stored.samples[i * 4 + 3] : 65535
            for k in 0..<channels {
                let s = stored.samples[i * channels + k]
                let expected = channels == 4 && k < 3 ? Self.unpremultiplied(s, alpha: a, top: 65535) : s
                if pixels.samples[i * channels + k] != expected { wrong += 1 }
            }
        }
        #expect(wrong == 0, "\(name): \(wrong) samples differ")
    }

    /// BigTIFF (version 43) is recognised in both byte orders and decodes to the sample, with
    /// its resolution and its Software tag (read from its 20-byte directory entries).
    @Test(arguments: ["big-II.tif", "big-MM.tif"])
    func bigTIFFInBothByteOrders(_ name: String) throws {
        let path = Self.folder.appendingPathComponent(name).path
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        #expect(bytes[2...3] == (name == "big-II.tif" ? [0x2B, 0x00] : [0x00, 0x2B]))
        let reader = try ImageReader.open(.file(path))
        #expect(reader.info.sourceFormat == .tiff)
        let pixels = Pixels(bytes: try reader.readAll(), width: reader.info.width, height: reader.info.height,
                            format: reader.info.format)
        let expected = (0..<Self.height).flatMap { y in
            (0..<Self.width).flatMap { x in (0..<3).map { Self.sample(depth: 8, x: x, y: y, c: $0) } }
        }
        #expect(pixels.format == PixelFormat(.rgb, .eight))
        #expect(pixels.samples == expected)
        let resolution = try #require(reader.info.metadata.resolution)
        #expect(abs(resolution.x - 300) < 1e-9 && abs(resolution.y - 300) < 1e-9, "\(resolution)")
        let exif = try #require(reader.info.metadata.exif)
        #expect(String(decoding: exif, as: UTF8.self).contains("make-fixtures.py"))
        #expect(reader.notices.isEmpty, "\(reader.notices)")
    }

    /// Pillow's BigTIFF is its classic hopper.tif, sample for sample.
    @Test func pillowsBigTIFFIsItsClassicTwin() throws {
        let (big, _) = try Pixels.read(Self.folder.appendingPathComponent("hopper_bigtiff.tif").path)
        let (classic, _) = try Pixels.read(Self.folder.appendingPathComponent("hopper.tif").path)
        #expect(big == classic)
        #expect(big.width == 128 && big.height == 128)
    }
}
