import Foundation
import Testing
@testable import FilterChain

/// A JPEG stored on its side (EXIF Orientation 6) as a chain's image layer is the same layer as
/// its upright picture in a PNG: the graph reads it as a plain decode turned upright, whatever
/// the chroma subsampling, progressive or not, placed at an offset or resized to fit, and with
/// its ICC profile converted as any image's is. The upright picture is made here from the
/// stored samples (decoded without turning) by the rule of Orientation 6, independently of the
/// decoder's own turning. (Issue 36's sixth report, that such a layer came out up to 17 levels
/// off, matches a layer whose profile was converted into the working space, as filters.md says
/// every image's is, against a reference that took its samples as sRGB: a Display P3 layer
/// taken so is 15 levels off at most, 1.9 on average.)
@Suite struct ImageLayerOrientationTests {
    static let folder = TestData.fixtures.appendingPathComponent("orientation")

    /// The picture upright: Orientation 6 is "row 0 on the right, column 0 at the top", so the
    /// upright image's (x, y) is the stored image's (y, height - 1 - x).
    static func upright(_ stored: Pixels) -> Pixels {
        let n = stored.format.channels.count
        var samples: [Int] = []
        for y in 0..<stored.width {
            for x in 0..<stored.height {
                let at = ((stored.height - 1 - x) * stored.width + y) * n
                samples += stored.samples[at..<at + n]
            }
        }
        return Pixels(width: stored.height, height: stored.width, format: stored.format, samples: samples)
    }

    /// A 203x157 base, cut from coffee.png.
    static func base() throws -> RasterImage {
        let coffee = try Pixels.read(TestData.samples.appendingPathComponent("coffee.png").path).0
        var samples: [Int] = []
        for y in 0..<157 { samples += coffee.samples[(y * coffee.width * 3)..<(y * coffee.width * 3 + 203 * 3)] }
        return try RasterImage(width: 203, height: 157, format: PixelFormat(.rgb, .eight), samples: samples)
    }

    static func render(layer path: String, placement: String, in folder: URL) throws -> [UInt8] {
        let chain = """
            { "version": 2, "images": [ { "id": "7494D0A0-15E1-4BEF-B05F-30B4CC0A4F82", "name": "layer", "file": "\(path)" } ],
              "filters": [ { "id": "B470FFDC-5631-42FD-8769-5B233D40CFD8", "type": "blend",
                             "parameters": { "layer": "layer", "mode": "multiply", "opacity": 0.7\(placement) } } ] }
            """
        let file = folder.appendingPathComponent("chain-\(UUID().uuidString).json").path
        try chain.write(toFile: file, atomically: true, encoding: .utf8)
        let result = try Renderer(threads: 2).render(try Chain.load(file), image: try base(),
                                                     outputs: [RenderOutput(step: 1, .memory(depth: .sixteen))])
        return try #require(result.images[0]).pixels
    }

    @Test(arguments: ["layer-420.jpg", "layer-422.jpg", "layer-progressive.jpg", "layer-p3.jpg"],
          [("centred", ""), ("contain, east", #", "placement": { "fit": "contain", "gravity": "east" }"#)])
    func aJPEGOnItsSideIsItsUprightPicture(_ name: String, _ placement: (name: String, json: String)) throws {
        let path = Self.folder.appendingPathComponent(name).path
        let (stored, info) = try Pixels.read(path, options: DecodeOptions(autoOrient: false))
        #expect(info.metadata.exif.flatMap(Exif.orientation(in:)) == .right, "\(name)")
        let upright = Self.upright(stored)
        let folder = TestData.temporaryFolder()
        let png = folder.appendingPathComponent("upright.png").path
        var metadata = ImageMetadata()
        metadata.iccProfile = info.metadata.iccProfile
        try RasterImage(width: upright.width, height: upright.height, format: upright.format, samples: upright.samples,
                        metadata: metadata).write(to: png)
        let fromJPEG = try Self.render(layer: path, placement: placement.json, in: folder)
        let fromPNG = try Self.render(layer: png, placement: placement.json, in: folder)
        #expect(fromJPEG == fromPNG, "\(name), \(placement.name)")
    }
}
