import Foundation
import Testing
import FilterChain

/// A JPEG re-encoded without a quality or chroma keeps its own: the quality is estimated
/// from the quantisation tables as ImageMagick does, the subsampling read from the frame.
@Suite struct JPEGQualityTests {
    static func image(_ channels: Channels) throws -> RasterImage {
        let format = PixelFormat(channels, .eight)
        return try RasterImage(width: 40, height: 24, format: format,
                               samples: (0..<40 * 24 * channels.count).map { ($0 * 53 + $0 / 120 * 7) % 256 })
    }

    /// JPEGs made by libjpeg at a known quality (jpeg_set_quality scales the IJG tables).
    @Test(arguments: [Channels.rgb, .grey])
    func theEstimateFindsTheQualityAJPEGWasMadeAt(channels: Channels) throws {
        let image = try Self.image(channels)
        var wrong: [String] = []
        for quality in 1...100 {
            let jpeg = try image.encoded(as: .jpeg, options: EncodeOptions(quality: quality))
            let found = try RasterImage(decoding: jpeg).metadata.sourceJPEG?.quality
            if found != quality { wrong.append("\(quality) -> \(found.map(String.init) ?? "nil")") }
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
