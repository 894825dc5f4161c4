import Foundation
import Testing
@testable import FilterChain

/// Chains with expressions render exactly as the same chains with the literals the
/// expressions evaluate to (worked out here by hand from the images' sizes), in memory and
/// as files, byte for byte; variables given to the render call; previews; and an image for
/// which a value is out of range fails alone, naming itself.
@Suite struct ExpressionRenderTests {
    static let ids = (0..<8).map { "00000000-0000-4000-8000-00000000000\($0)" }

    /// Resize to half the width (at most `long`), a blur of 0.002 x the short side x 10, a
    /// crop of the middle half, colour from `strength`, a vignette centred by expressions,
    /// and a colour matrix with one computed number.
    static let chainText = """
        { "version": 2,
          "variables": [ { "name": "strength", "value": 0.5, "min": 0, "max": 1 }, { "name": "long", "value": 1600 },
                         { "name": "soft", "value": "=strength * 20" } ],
          "filters": [
            { "id": "\(ids[0])", "type": "resize", "parameters": { "width": "=min(long, width) / 2" } },
            { "id": "\(ids[1])", "type": "gaussianBlur", "parameters": { "sigma": "=0.0002 * min(width, height) * soft" } },
            { "id": "\(ids[2])", "type": "crop", "parameters": { "x": "=floor(width / 4)", "y": "=floor(height / 4)",
              "width": "=floor(width / 2)", "height": "=floor(height / 2)" } },
            { "id": "\(ids[3])", "type": "colorControls", "parameters": { "saturation": "=1 + strength", "contrast": "=lerp(1, 1.2, strength)" } },
            { "id": "\(ids[4])", "type": "vignette", "parameters": { "intensity": "=strength", "center": ["=0.5", "=if(width > height, 0.4, 0.6)"] } },
            { "id": "\(ids[5])", "type": "colorMatrix", "parameters": { "matrix": [[1, 0, 0, 0, "=strength / 10"], [0, 1, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 0, 1, 0]] } } ] }
        """

    /// The same chain with the literals it takes on an image of w x h (h' the resized
    /// height, from resize's rule round(h W / w)), strength `s`.
    static func literalChain(width w: Int, height h: Int, strength s: Double = 0.5) -> Chain {
        let W = (min(1600, w) + 1) / 2   // min(long, width) / 2, a whole number: halves round up
        let H = max(1, (2 * h * W + w) / (2 * w))
        let soft = s * 20
        var matrix = ColorMatrix()
        matrix.matrix[0][4] = s / 10
        let cw = (Double(W) / 2).rounded(.down), ch = (Double(H) / 2).rounded(.down)
        return Chain([
            Resize(width: W),
            GaussianBlur(sigma: 0.0002 * Double(min(W, H)) * soft),
            Crop(x: (Double(W) / 4).rounded(.down), y: (Double(H) / 4).rounded(.down), width: cw, height: ch),
            ColorControls(saturation: 1 + s, brightness: 0, contrast: 1 + (1.2 - 1) * s),
            Vignette(intensity: s, center: ImagePoint(0.5, cw > ch ? 0.4 : 0.6)),
            matrix,
        ])
    }

    func chain() throws -> Chain { try Chain.parse(Array(Self.chainText.utf8), file: "c.json") }

    @Test(arguments: ["coffee.png", "chelsea.png", "rocket.jpg"])
    func renderedLikeTheLiteralsTheyTake(_ name: String) throws {
        let path = TestData.samples.appendingPathComponent(name).path
        let info = try ImageReader.open(.file(path)).info
        let renderer = Renderer(threads: 2)
        let folder = TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let a = folder.appendingPathComponent("a.png").path, b = folder.appendingPathComponent("b.png").path
        let result = try renderer.render(try chain(), source: .file(path), outputs: [RenderOutput(step: 6, .file(.file(a), EncodeOptions()))])
        let literal = Self.literalChain(width: info.width, height: info.height)
        _ = try renderer.render(literal, source: .file(path), outputs: [RenderOutput(step: 6, .file(.file(b), EncodeOptions()))])
        #expect(FileManager.default.contents(atPath: a) == FileManager.default.contents(atPath: b), "\(name)")
        // The values the image took, as the literal chain has them.
        let blur = literal.steps[1].filter as! GaussianBlur
        #expect(result.values.parameters.first { $0.path == "filters[1].parameters.sigma" }?.value == blur.sigma)
        #expect(result.values.variables.map(\.value) == [0.5, 1600, 10])
        // In memory, at every position.
        let outputs = (0...6).map { RenderOutput(step: $0, .memory(depth: .sixteen)) }
        let image = try RasterImage(contentsOf: path)
        #expect(try renderer.render(try chain(), image: image, outputs: outputs).images == renderer.render(literal, image: image, outputs: outputs).images)
    }

    @Test func variablesGivenToTheRender() throws {
        let image = try RasterImage(contentsOf: TestData.samples.appendingPathComponent("coffee.png").path)
        let renderer = Renderer(threads: 2)
        let set = try renderer.apply(try chain(), to: image, variables: ["strength": 0.9])
        #expect(set == (try renderer.apply(Self.literalChain(width: 600, height: 400, strength: 0.9), to: image)))
        #expect(set != (try renderer.apply(try chain(), to: image)))
        #expect(throws: ChainError.self) { try renderer.apply(try chain(), to: image, variables: ["strength": 2]) }
        #expect(throws: ChainError.self) { try renderer.apply(try chain(), to: image, variables: ["gain": 1]) }
    }

    /// A value out of range for one image fails that image with its name, the chain's path,
    /// the expression and the value; nothing is written.
    @Test func anImageWhoseValueIsOutOfRangeFailsAlone() throws {
        let text = """
            { "version": 2, "filters": [ { "id": "\(Self.ids[0])", "type": "gaussianBlur", "parameters": { "sigma": "=width / 2" } } ] }
            """
        let chain = try Chain.parse(Array(text.utf8), file: "wide.json")
        let folder = TestData.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let out = folder.appendingPathComponent("out.png").path
        let coffee = TestData.samples.appendingPathComponent("coffee.png").path   // 600 wide: sigma 300
        _ = try Renderer(threads: 1).render(chain, source: .file(coffee), outputs: [RenderOutput(step: 1, .file(.file(out), EncodeOptions()))])
        try FileManager.default.removeItem(atPath: out)
        let wide = folder.appendingPathComponent("wide.png").path            // 1100 wide: sigma 550
        let image = try RasterImage(width: 1100, height: 2, format: PixelFormat(.rgb, .eight), samples: Array(repeating: 7, count: 6600))
        _ = try Renderer(threads: 1).render(Chain(), image: image, outputs: [RenderOutput(step: 0, .file(.file(wide), EncodeOptions()))])
        do {
            _ = try Renderer(threads: 1).render(chain, source: .file(wide), outputs: [RenderOutput(step: 1, .file(.file(out), EncodeOptions()))])
            Issue.record("rendered")
        } catch let error as RenderError {
            #expect(error.description == #"\#(wide): wide.json: filters[0].parameters.sigma: "=width / 2" took 550 with this step's input 1100x2, which is not allowed; allowed: a number in 0...500 (line 1, column 128)"#)
        }
        #expect(!FileManager.default.fileExists(atPath: out))
    }

    /// A preview evaluates expressions for the full-size image, then scales pixel parameters
    /// with the rest: it equals the preview of the literal chain.
    @Test func previewsTakeFullSizeValues() throws {
        let image = try RasterImage(contentsOf: TestData.samples.appendingPathComponent("coffee.png").path)
        let session = try PreviewSession(image: image, maxSize: 150, renderer: Renderer(threads: 2))
        #expect(session.fullSize == ImageSize(width: 600, height: 400))
        let computed = try session.render(try chain(), at: [2, 6])
        let literal = try session.render(Self.literalChain(width: 600, height: 400), at: [2, 6])
        #expect(computed == literal)
        // Another value of a variable is another preview (the cache sees the values).
        let stronger = try session.render(try chain().settingVariables(["strength": 1]), at: [6])
        #expect(stronger[0] == (try session.render(Self.literalChain(width: 600, height: 400, strength: 1), at: [6]))[0])
        #expect(stronger[0] != computed[1])
    }
}
