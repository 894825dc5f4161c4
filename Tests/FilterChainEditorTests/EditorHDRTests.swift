import Foundation
import Testing
import FilterChain
@testable import FilterChainEditor

/// A source with an HDR gain map in the editor: `/api/info` says so (the page marks it), the
/// previews are its SDR image, and Export keeps the map as `apply` does: an Ultra HDR JPEG
/// whose map moved with the chain's geometry, or with `--hdr` the HDR rendition.
@Suite struct EditorHDRTests {
    /// ../shared/conformance/hdr/files, beside the package.
    static let hdr = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("shared/conformance/hdr/files")

    func editor(output: String, options: EncodeOptions = EncodeOptions()) throws -> (Editor, String) {
        let folder = NSTemporaryDirectory() + "/editor-hdr-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let chain = #"{"version": 1, "filters": [{"id": "7FC24D02-BC43-416B-8469-02169C97D567", "type": "resize", "parameters": {"width": 100}}]}"#
        try Data(chain.utf8).write(to: URL(fileURLWithPath: folder + "/chain.json"))
        let e = try Editor(chainPath: folder + "/chain.json", imagePath: Self.hdr.appendingPathComponent("gen_chelsea_300x451_s2.jpg").path,
                           outputPath: folder + "/" + output, renderer: Renderer(threads: 2), exportOptions: options)
        return (e, folder + "/" + output)
    }

    @Test func theInfoSaysSoAndExportKeepsTheMapMovedWithTheImage() throws {
        let (e, path) = try editor(output: "out.jpg")
        let info = try #require(try JSONSerialization.jsonObject(with: Data(JSONWriter.compact(e.infoJSON).utf8)) as? [String: Any])
        let map = try #require(info["gainMap"] as? [String: Any])
        #expect(map["width"] as? Int == 150 && map["height"] as? Int == 225 && map["channels"] as? Int == 1)
        #expect(map["metadata"] as? String == "ISO 21496-1")
        #expect(info["hdr"] is NSNull)
        #expect(e.image.metadata.gainMap == nil)   // the previews' image: SDR
        try e.startExport()
        e.export!.waitUntilIdle()
        #expect(e.export!.statusJSON.member("state") == JSONNode(.string("done")))
        // Resized to 100 x 150: its map (half scale) to 50 x 75, as apply moves it.
        guard case .found(let written) = GainMap.search(jpeg: Array(try Data(contentsOf: URL(fileURLWithPath: path)))) else {
            Issue.record("the export has no gain map")
            return
        }
        #expect(written.width == 50 && written.height == 75)
    }

    @Test func exportWithHDRWritesTheRendition() throws {
        let (e, path) = try editor(output: "out.png", options: { var o = EncodeOptions(); o.hdr = HDROutput(.pq); return o }())
        let info = try #require(try JSONSerialization.jsonObject(with: Data(JSONWriter.compact(e.infoJSON).utf8)) as? [String: Any])
        #expect(info["hdr"] as? String == "pq")
        try e.startExport()
        e.export!.waitUntilIdle()
        let image = try RasterImage(contentsOf: path)
        #expect(image.width == 100 && image.format == PixelFormat(.rgb, .sixteen))
        #expect(image.metadata.nclx?.transferCharacteristics == 16)
    }

    /// A PQ source without a map (the conformance AVIF): `/api/info` says its transfer, the
    /// previews are its SDR rendition (not its PQ samples taken as sRGB), and Export to AVIF
    /// keeps it PQ as `apply` does.
    @Test func aPQSourceIsMarkedAndExportKeepsItHDR() throws {
        let folder = NSTemporaryDirectory() + "/editor-pq-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Data(#"{"version": 1, "filters": []}"#.utf8).write(to: URL(fileURLWithPath: folder + "/chain.json"))
        let source = Self.hdr.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("avif/files/gen_avifenc_10bit_422_pq_limited.avif").path
        let e = try Editor(chainPath: folder + "/chain.json", imagePath: source, outputPath: folder + "/out.avif",
                           renderer: Renderer(threads: 2))
        let info = try #require(try JSONSerialization.jsonObject(with: Data(JSONWriter.compact(e.infoJSON).utf8)) as? [String: Any])
        #expect(info["transfer"] as? String == "pq" && info["gainMap"] is NSNull)
        // The decoded image keeps the PQ samples and says so; the page's PNG is SDR (sRGB),
        // tone-mapped: far from the PQ samples read as if they were sRGB.
        #expect(e.image.metadata.nclx?.transferCharacteristics == 16 && e.image.format.depth == .sixteen)
        let again = try Renderer(threads: 2).render(Chain(), image: e.image, outputs: [RenderOutput(step: 0, .memory())])
        #expect(again.hdr == [HDROutput(.pq)])
        let png = try RasterImage(decoding: e.encodePNG(e.image))
        #expect(png.format.depth == .eight && png.metadata.nclx == nil)
        let asIs = e.image.samples, shown = png.samples
        let meanDifference = zip(asIs, shown).map { abs(Double($0) / 257 - Double($1)) }.reduce(0, +) / Double(shown.count)
        #expect(meanDifference > 10, "\(meanDifference)")
        try e.startExport()
        e.export!.waitUntilIdle()
        #expect(e.export!.statusJSON.member("state") == JSONNode(.string("done")))
        #expect(try RasterImage(contentsOf: folder + "/out.avif").metadata.nclx?.transferCharacteristics == 16)
    }

}
