import Foundation
import Testing
import FilterChain

/// The library as a client uses it: decode and encode in memory, render steps to memory.
@Suite struct LibraryAPITests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    @Test func filtersAreBuiltWithArgumentsAndDefaults() {
        let c = ColorControls(saturation: 1.2, contrast: 1.1)
        #expect(c.saturation == 1.2 && c.brightness == 0 && c.contrast == 1.1)
        #expect(GaussianBlur(sigma: 3).sigma == 3 && GaussianBlur().sigma == 2)
        let t = ToneCurve(points: [CurvePoint(0, 0.1), CurvePoint(1, 0.9)], interpolation: .linear)
        #expect(t.points.count == 2 && t.red == nil && t.interpolation == .linear)
        // The defaults are the declared defaults `filterchain filters` lists.
        for type in FilterRegistry.types {
            let info = type.info
            let made = type.init().parametersJSON
            guard case .object(let members) = made.value else { Issue.record("not an object"); continue }
            for p in info.parameters { #expect(members.first { $0.0 == p.name }?.1 == p.defaultValue) }
        }
    }

    @Test func pngBytesRoundTripExactlyWithMetadata() throws {
        let samples = (0..<5 * 3 * 4).map { ($0 * 5171) % 65536 }
        let image = try RasterImage(width: 5, height: 3, format: PixelFormat(.rgba, .sixteen), samples: samples,
                                    metadata: ImageMetadata(exif: [0x4D, 0x4D, 0, 42, 0, 0, 0, 8, 0, 0]))
        let png = try image.encoded(as: .png)
        #expect(Array(png.prefix(4)) == [0x89, 0x50, 0x4E, 0x47])
        let back = try RasterImage(decoding: png)
        #expect(back.samples == samples)
        #expect(back.format == image.format)
        #expect(back.metadata.exif == image.metadata.exif)
    }

    @Test func jpegBytesDecodeWithTheirICCProfile() throws {
        let photo = try RasterImage(contentsOf: Self.root.appendingPathComponent("samples/rocket.jpg").path)
        #expect(photo.metadata.iccProfile != nil)
        let jpeg = try photo.encoded(as: .jpeg, options: EncodeOptions(quality: 95))
        #expect(Array(jpeg.prefix(3)) == [0xFF, 0xD8, 0xFF])
        let back = try RasterImage(decoding: jpeg)
        #expect(back.width == photo.width && back.height == photo.height)
        #expect(back.metadata.iccProfile == photo.metadata.iccProfile)
        #expect(!"\(back)".contains("[") && "\(back.metadata)".contains("ICC profile (RGB, "))
    }

    @Test func stepsRenderToMemoryFromOneEvaluation() throws {
        let chain = Chain([ColorControls(saturation: 0), GaussianBlur(sigma: 1)])
        let path = Self.root.appendingPathComponent("samples/chelsea.png").path
        let renderer = Renderer(threads: 2)
        let shots = try renderer.images(chain, source: .file(path), steps: [0, 1, 2])
        #expect(shots.images.count == 3 && shots.positions == [0, 1, 2])
        let decoded = try RasterImage(contentsOf: path)
        #expect(shots[0].pixels == decoded.pixels)
        #expect(try renderer.apply(chain, to: decoded, step: 1) == shots[1])
        #expect(try renderer.apply(chain, to: decoded) == shots[2])
        #expect(shots.final == shots[2] && shots[.final] == shots.final)
        #expect(shots.info.sourceFormat == .png)
    }

    /// One call on an image already in memory gives the final image and the steps asked
    /// for, by position or name, without unwrapping: each equal to `apply` of that step,
    /// the reference one evaluation at a time.
    @Test func imagesOfAnImageInMemory() throws {
        var chain = Chain([ColorControls(saturation: 1.5), GaussianBlur(sigma: 2), Invert()])
        chain.steps[1].name = "blur"
        let photo = try RasterImage(contentsOf: Self.root.appendingPathComponent("samples/rocket.jpg").path)
        let renderer = Renderer(threads: 2)
        let shots = try renderer.images(chain, of: photo, steps: [1, "blur"])
        #expect(shots.positions == [1, 2])
        #expect(shots.final == (try renderer.apply(chain, to: photo)))
        #expect(shots[1] == (try renderer.apply(chain, to: photo, step: 1)))
        #expect(shots["blur"] == (try renderer.apply(chain, to: photo, step: 2)))
        #expect(shots[2] == shots["blur"])
        #expect(shots.image(at: 0) == nil && shots.image(at: "nothing") == nil && shots.image(at: 1) == shots[1])
        // No steps asked: the final image alone.
        let final = try renderer.images(chain, of: photo)
        #expect(final.images.isEmpty && final.final == shots.final)
        // A step the chain lacks throws before any work, naming what there is.
        #expect(throws: RenderError(.noSuchStep(7, count: 3))) { _ = try renderer.images(chain, of: photo, steps: [7]) }
        #expect(throws: StepError.self) { _ = try renderer.images(chain, of: photo, steps: ["sharpen"]) }
    }

    /// RenderResult.info names the format the pixels were decoded from, whether the render
    /// read the file or an image decoded from it; pixels made in memory are "in memory".
    @Test func infoNamesTheFormatDecodedFrom() throws {
        let renderer = Renderer(threads: 1)
        for (name, format) in [("rocket.jpg", ImageFormat.jpeg), ("coffee.png", .png)] {
            let path = Self.root.appendingPathComponent("samples/" + name).path
            let fromFile = try renderer.render(Chain(), source: .file(path), outputs: [RenderOutput(step: 0, .memory())])
            #expect(fromFile.info.sourceFormat == format && "\(fromFile.info)".contains("from \(format.name)"))
            let photo = try RasterImage(contentsOf: path)
            #expect(photo.sourceFormat == format)
            let inMemory = try renderer.render(Chain(), image: photo, outputs: [RenderOutput(step: 0, .memory())])
            #expect(inMemory.info.sourceFormat == format && "\(inMemory.info)".contains("from \(format.name)"), "\(inMemory.info)")
            // An image a render made was never a file.
            let made = try renderer.apply(Chain([Invert()]), to: photo)
            #expect(made.sourceFormat == nil)
            let again = try renderer.render(Chain(), image: made, outputs: [RenderOutput(step: 0, .memory())])
            #expect(again.info.sourceFormat == nil && "\(again.info)".contains(" in memory") && !"\(again.info)".contains("from"))
            // Where it came from is not what it is: equal pixels and metadata are equal images.
            var copy = photo
            copy.sourceFormat = nil
            #expect(copy == photo && copy.hashValue == photo.hashValue)
        }
    }

    @Test func writeToAFileIsAtomicAndReadable() throws {
        let folder = NSTemporaryDirectory() + "fc-api-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let image = try RasterImage(width: 3, height: 2, format: PixelFormat(.grey, .eight), samples: [0, 50, 100, 150, 200, 250])
        try image.write(to: folder + "/g.png")
        #expect(try RasterImage(contentsOf: folder + "/g.png").samples == image.samples)
        #expect(throws: CodecError.self) { try image.write(to: folder + "/g.bmp") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["g.png"])
    }
}
