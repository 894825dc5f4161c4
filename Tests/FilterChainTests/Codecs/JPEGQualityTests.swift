import Foundation
import Testing
@testable import FilterChain

/// A JPEG re-encoded without a quality or chroma keeps its own: the quality is estimated
/// from the quantisation tables as ImageMagick does, the subsampling read from the frame.
@Suite struct JPEGQualityTests {
    static func image(_ channels: Channels) throws -> RasterImage {
        let format = PixelFormat(channels, .eight)
        return try RasterImage(width: 40, height: 24, format: format,
                               samples: (0..<40 * 24 * channels.count).map { ($0 * 53 + $0 / 120 * 7) % 256 })
    }

    /// JPEGs written by filterchain at a known quality: the estimate is a quality with the same
    /// tables (qualities 1 and 2 share theirs, every entry 255), so a re-encode writes them again.
    @Test(arguments: [Channels.rgb, .grey])
    func theEstimateFindsTheQualityAJPEGWasMadeAt(channels: Channels) throws {
        let image = try Self.image(channels)
        var wrong: [String] = []
        for quality in 1...100 {
            let jpeg = try image.encoded(as: .jpeg, options: EncodeOptions(quality: quality))
            let found = try RasterImage(decoding: jpeg).metadata.sourceJPEG?.quality
            let same = found.map { JPEGTables.tables(quality: $0) == JPEGTables.tables(quality: quality) } ?? false
            if !same { wrong.append("\(quality) -> \(found.map(String.init) ?? "nil")") }
        }
        #expect(wrong.isEmpty, "\(wrong)")
    }

    /// The standard's example tables (Annex K.1), as libjpeg's jpeg_set_quality scales them
    /// (most cameras and tools write these): the estimate finds each quality exactly.
    @Test func theEstimateFindsLibjpegsQualities() {
        let luma: [Int] = [16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56,
                           14, 17, 22, 29, 51, 87, 80, 62, 18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113, 92,
                           49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99]
        let chroma: [Int] = [17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99, 24, 26, 56, 99, 99, 99, 99, 99,
                             47, 66, 99, 99, 99, 99, 99, 99] + [Int](repeating: 99, count: 32)
        var wrong: [String] = []
        for quality in 1...100 {
            let scale = quality < 50 ? 5000 / quality : 200 - 2 * quality
            func scaled(_ t: [Int]) -> [UInt16] { t.map { UInt16(max(1, min(255, ($0 * scale + 50) / 100))) } }
            for tables in [[scaled(luma), scaled(chroma)], [scaled(luma)]] {
                let found = JPEGEncoding.estimateQuality(tables)
                if found != quality { wrong.append("\(quality) (\(tables.count) tables) -> \(found.map(String.init) ?? "nil")") }
            }
        }
        #expect(wrong.isEmpty, "\(wrong)")
    }

    @Test(arguments: [ChromaSubsampling.yuv420, .yuv422, .yuv444])
    func aReencodeKeepsTheSourcesQualityAndChroma(chroma: ChromaSubsampling) throws {
        let source = try Self.image(.rgb).encoded(as: .jpeg, options: EncodeOptions(quality: 97, chroma: chroma))
        let decoded = try RasterImage(decoding: source)
        #expect(decoded.metadata.sourceJPEG == JPEGEncoding(quality: 97, chroma: chroma))
        let again = try RasterImage(decoding: try decoded.encoded(as: .jpeg)).metadata.sourceJPEG
        #expect(again == JPEGEncoding(quality: 97, chroma: chroma))
        // Options given win.
        let given = try RasterImage(decoding: try decoded.encoded(as: .jpeg, options: EncodeOptions(quality: 60, chroma: .yuv444)))
        #expect(given.metadata.sourceJPEG == JPEGEncoding(quality: 60, chroma: .yuv444))
    }

    @Test func withoutAJPEGSourceTheDefaultsAre90And420() throws {
        let png = try RasterImage(decoding: try Self.image(.rgb).encoded(as: .png))
        #expect(png.metadata.sourceJPEG == nil)
        let out = try RasterImage(decoding: try png.encoded(as: .jpeg)).metadata.sourceJPEG
        #expect(out == JPEGEncoding(quality: EncodeOptions.defaultQuality, chroma: EncodeOptions.defaultChroma))
        #expect(EncodeOptions().jpegSettings(for: png.metadata) == (90, .yuv420))
    }

    @Test func theSamplePhotographIsAbout97AndStaysNearItsSize() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("samples/rocket.jpg").path
        let photo = try RasterImage(contentsOf: path)
        let quality = try #require(photo.metadata.sourceJPEG?.quality)
        #expect((95...98).contains(quality))
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as! Int
        let out = try photo.encoded(as: .jpeg).count
        // A q90 re-encode was under half the size; at the source's quality it is about the same.
        #expect(Double(out) > 0.8 * Double(size), "\(out) bytes from \(size)")
    }
}
