import Foundation
import Testing
import FilterChain

/// Every public entry point fed bad arguments in code: each throws a typed error, none traps.
/// A plain `import FilterChain`: this is what a client package sees.
@Suite struct BadArgumentTests {
    static let rgb8 = PixelFormat(.rgb, .eight)
    static func image(width: Int = 4, height: Int = 3, format: PixelFormat = rgb8) throws -> RasterImage {
        try RasterImage(width: width, height: height, format: format,
                        samples: (0..<width * height * format.channels.count).map { $0 * 7 % 256 })
    }
    static let threeSteps = Chain([ColorControls(), ToneCurve(), GaussianBlur()])

    static func renderReason(_ body: () throws -> Void) -> RenderError.Reason? {
        do { try body() } catch let error as RenderError { return error.reason } catch { return nil }
        return nil
    }

    @Test(arguments: [7, 4, -1])
    func aStepTheChainLacksThrows(step: Int) throws {
        let image = try Self.image()
        #expect(Self.renderReason { _ = try Renderer(threads: 1).apply(Self.threeSteps, to: image, step: step) }
            == .noSuchStep(step, count: 3))
        let folder = NSTemporaryDirectory() + "/fc-\(UUID().uuidString)"
        #expect(Self.renderReason {
            _ = try Renderer(threads: 1).render(Self.threeSteps, image: image,
                                                outputs: [RenderOutput(step: step, file: folder + "/x.png")])
        } == .noSuchStep(step, count: 3))
    }

    /// The message a chain file with this parameter value gets.
    static func fileMessage(_ type: String, _ json: String) throws -> String {
        let text = #"{"version": 1, "filters": [{"id": "0F6C1B9E-3C1A-4D2B-8E57-6A1F0B2C3D41", "type": "\#(type)", "parameters": \#(json)}]}"#
        let error = try #require(throws: ChainError.self) { _ = try Chain.parse(Array(text.utf8), file: "chain") }
        return "\(error.path): \(error.message)"
    }

    @Test(arguments: [
        (GaussianBlur(sigma: -3) as any Filter, "gaussianBlur", #"{"sigma": -3}"#),
        (ColorControls(saturation: 9), "colorControls", #"{"saturation": 9}"#),
        (ToneCurve(points: [CurvePoint(0, 0), CurvePoint(0, 1)]), "toneCurve", #"{"points": [[0, 0], [0, 1]]}"#),
        (ToneCurve(points: [CurvePoint(0.5, 0.5)]), "toneCurve", #"{"points": [[0.5, 0.5]]}"#),
        (ToneCurve(red: [CurvePoint(0, 0), CurvePoint(1, 2)]), "toneCurve", #"{"red": [[0, 0], [1, 2]]}"#),
    ] as [(any Filter, String, String)])
    func filterValuesSetInCodeAreCheckedWithTheChainFilesMessages(filter: any Filter, type: String, json: String) throws {
        let chain = Chain([filter])
        let error = try #require(throws: ChainError.self) { _ = try Renderer(threads: 1).apply(chain, to: try Self.image()) }
        #expect("\(error.path): \(error.message)" == (try Self.fileMessage(type, json)))
        #expect(error.path.hasPrefix("filters[0].parameters."))
    }

    @Test func aNaNContrastIsRefusedNotRenderedBlack() throws {
        let chain = Chain([ColorControls(contrast: .nan)])
        let error = try #require(throws: ChainError.self) { _ = try Renderer(threads: 1).apply(chain, to: try Self.image()) }
        #expect(error.problem == .notFinite)
        #expect(error.description == "chain: filters[0].parameters.contrast: the number is not finite")
        #expect(throws: ParameterError.self) { try ColorControls(brightness: .infinity).validate() }
        #expect(throws: ParameterError.self) { _ = try GaussianBlur().setting("sigma", to: JSONNode(.number(-1))) }
    }

    @Test func operationsOfInvalidFiltersAskedForDirectlyDoNotTrap() {
        for filter in [GaussianBlur(sigma: -3), GaussianBlur(sigma: .nan), ToneCurve(points: [CurvePoint(0.5, 0.5)]),
                       ToneCurve(points: [])] as [any Filter] {
            #expect(!filter.isValid)
            guard case .identity = filter.operation() else { Issue.record("\(filter)"); continue }
        }
    }

    @Test func pixelBuffersOfTheWrongSizeThrow() throws {
        #expect(Self.renderReason { _ = try RasterImage(width: 2, height: 2, format: Self.rgb8, pixels: [UInt8](repeating: 0, count: 11)) }
            == .wrongBufferSize(expected: 12, found: 11))
        #expect(Self.renderReason { _ = try RasterImage(width: 0, height: 2, format: Self.rgb8, pixels: []) }
            == .badSize(width: 0, height: 2))
        #expect(Self.renderReason { _ = try RasterImage(width: Int.max, height: 2, format: Self.rgb8, pixels: []) }
            == .badSize(width: Int.max, height: 2))
        #expect(Self.renderReason { _ = try RasterImage(width: 2, height: 2, format: Self.rgb8, samples: [1, 2, 3]) }
            == .wrongBufferSize(expected: 12, found: 3))
        // pixels is a public var: a buffer changed after the fact is caught by every consumer.
        var image = try Self.image()
        image.pixels.removeLast()
        #expect(Self.renderReason { _ = try Renderer(threads: 1).apply(Chain(), to: image) } == .wrongBufferSize(expected: 36, found: 35))
        #expect(Self.renderReason { _ = try image.encoded(as: .png) } == .wrongBufferSize(expected: 36, found: 35))
        #expect(Self.renderReason { _ = try ContactSheet.make([image], labels: ["1"]) } == .wrongBufferSize(expected: 36, found: 35))
    }

    @Test func samplesOutsideTheImageThrow() throws {
        let image = try Self.image()
        #expect(try image.sample(x: 3, y: 2, channel: 2) == (35 * 7) % 256)
        for (x, y, c) in [(4, 0, 0), (0, 3, 0), (0, 0, 3), (-1, 0, 0)] {
            #expect(throws: RenderError.self) { _ = try image.sample(x: x, y: y, channel: c) }
        }
    }

    @Test func contactSheetArgumentsAreChecked() throws {
        #expect(throws: RenderError.self) { _ = try ContactSheet.make([], labels: []) }
        #expect(throws: RenderError.self) { _ = try ContactSheet.make([try Self.image()], labels: ["1", "2"]) }
    }

    @Test func writersRefuseRowsThatDoNotFit() throws {
        let buffer = OutputBuffer()
        let rgba = PixelFormat(.rgba, .eight)
        #expect(throws: RenderError.self) {
            _ = try ImageWriter(.memory(buffer), format: .jpeg, header: EncodeHeader(width: 2, height: 2, format: rgba))
        }
        #expect(throws: RenderError.self) {
            _ = try ImageWriter(.memory(buffer), format: .png, header: EncodeHeader(width: 0, height: 2, format: rgba))
        }
        #expect(throws: RenderError.self) {
            _ = try ImageWriter(.memory(buffer), format: .jpeg, header: EncodeHeader(width: 2, height: 2, format: Self.rgb8),
                                options: EncodeOptions(quality: 0))
        }
        let writer = try ImageWriter(.memory(buffer), format: .png, header: EncodeHeader(width: 4, height: 3, format: Self.rgb8))
        let rows = [UInt8](repeating: 0, count: 12 * 4)
        #expect(throws: RenderError.self) { _ = try rows.withUnsafeBytes { try writer.write(rows: $0.baseAddress!, stride: 12, count: 4) } }
        #expect(throws: RenderError.self) { _ = try rows.withUnsafeBytes { try writer.write(rows: $0.baseAddress!, stride: 5, count: 1) } }
        #expect(throws: RenderError.self) { try writer.write(try Self.image(width: 3, height: 3)) }
        _ = try rows.withUnsafeBytes { try writer.write(rows: $0.baseAddress!, stride: 12, count: 2) }
        #expect(throws: RenderError.self) { try writer.complete() }
        writer.abort()
        #expect(buffer.bytes.isEmpty)
    }

    @Test func readersRefuseReadsPastTheEnd() throws {
        let png = try Self.image().encoded(as: .png)
        let reader = try ImageReader.open(.bytes(png, name: "a.png"))
        var rows = [UInt8](repeating: 0, count: 12 * 4)
        #expect(throws: RenderError.self) { try rows.withUnsafeMutableBytes { try reader.read(into: $0.baseAddress!, stride: 12, rows: 4) } }
        #expect(throws: RenderError.self) { try rows.withUnsafeMutableBytes { try reader.read(into: $0.baseAddress!, stride: 3, rows: 1) } }
        #expect(throws: RenderError.self) { _ = try ImageReader.open(.bytes(png, name: "a.png"), options: DecodeOptions(maxPixels: -1)) }
    }

    @Test func badOptionsThrow() throws {
        let image = try Self.image()
        for options in [EncodeOptions(quality: 0), EncodeOptions(quality: 101), EncodeOptions(compressionLevel: 10),
                        EncodeOptions(background: RGBColor(red: .nan, green: 0, blue: 0)),
                        EncodeOptions(background: RGBColor(red: 0, green: 2, blue: 0))] {
            #expect(throws: RenderError.self) { _ = try image.encoded(as: .jpeg, options: options) }
        }
        #expect(throws: CodecError.self) {
            _ = try Renderer(threads: 1).render(Chain(), image: image, outputs: [RenderOutput(step: 0, .file(.memory(OutputBuffer()), EncodeOptions()))])
        }
    }

    /// The library's messages name its own API (EncodeOptions.format, DecodeOptions.maxPixels,
    /// settings["quality"]), never a command-line flag; the command line words the same
    /// problems with its flags (`OptionProblem.commandLine`; CLI tests check what it prints).
    @Test func messagesSpeakOfTheLibraryAPI() throws {
        let image = try Self.image()
        func message(_ body: () throws -> Void) -> String {
            do { try body(); return "no error" } catch { return "\(error)" }
        }
        let messages = [
            message { try image.write(to: NSTemporaryDirectory() + "x.bmp") },
            message { try image.write(to: NSTemporaryDirectory() + "noextension") },
            message { _ = try ImageReader.open(.bytes(try image.encoded(as: .png), name: "a.png"), options: DecodeOptions(maxPixels: 10)) },
            message { _ = try image.encoded(as: .webp, options: EncodeOptions(quality: 80, settings: ["lossless": .boolean(true)])) },
            message { _ = try image.encoded(as: .tiff, options: EncodeOptions(quality: 80)) },
            message { _ = try image.encoded(as: .tiff, options: EncodeOptions(depth: .sixteen, settings: ["tiffCompression": .choice("jpeg")])) },
        ]
        #expect(messages[0].hasSuffix("unsupported output format '.bmp' (end the name with .png, .jpg, .jpeg, .webp, .tif, .tiff, .avif, .heic, .heif, .gif, .jxl, or set EncodeOptions.format)"), "\(messages[0])")
        #expect(messages[1].hasSuffix("cannot tell the output format: no extension (end the name with .png, .jpg, .jpeg, .webp, .tif, .tiff, .avif, .heic, .heif, .gif, .jxl, or set EncodeOptions.format)"))
        #expect(messages[2] == "a.png: image is 4 x 3 = 12 pixels, over the limit of 10 (raise DecodeOptions.maxPixels; 0 for none)", "\(messages[2])")
        #expect(messages[3] == "settings[\"quality\"] is for lossy WebP; lossless WebP takes settings[\"effort\"]", "\(messages[3])")
        #expect(messages[4] == "settings[\"quality\"] is for TIFF's jpeg compression (settings[\"tiffCompression\"] = \"jpeg\"); the others are lossless", "\(messages[4])")
        #expect(messages[5] == "settings[\"tiffCompression\"] = \"jpeg\" holds 8-bit samples only, and this output is 16-bit: add depth = .eight, or choose another settings[\"tiffCompression\"]", "\(messages[5])")
        for text in messages { #expect(!text.contains("--"), "\(text)") }
        // The same problems in the command line's words.
        let webp = try #require(ImageFormat.webp.declaration.combinationProblem(["lossless": .boolean(true), "quality": .integer(80)]))
        #expect(webp.commandLine == "--quality is for lossy WebP; lossless WebP takes --effort")
        let tiff = try #require(ImageFormat.tiff.declaration.combinationProblem(["tiffCompression": .choice("jpeg")], depth: .sixteen))
        #expect(tiff.commandLine == "--tiff-compression jpeg holds 8-bit samples only, and this output is 16-bit: add --depth 8, or choose another --tiff-compression")
    }

    @Test func decodingBadFilesThrows() throws {
        #expect(throws: CodecError.self) { _ = try RasterImage(decoding: Array("hello".utf8)) }
        #expect(throws: CodecError.self) { _ = try RasterImage(decoding: []) }
        #expect(throws: CodecError.self) { _ = try RasterImage(contentsOf: "/nonexistent/a.png") }
        let png = try Self.image().encoded(as: .png)
        #expect(throws: CodecError.self) { _ = try RasterImage(decoding: Array(png.prefix(png.count - 20))) }
    }

    @Test func chainEditingOutsideTheChainThrows() throws {
        var chain = Self.threeSteps
        #expect(throws: ChainError.self) { try chain.setParameter(at: 3, "sigma", to: JSONNode(.number(1)), file: "c.json") }
        #expect(throws: ChainError.self) { try chain.setParameter(at: -1, "sigma", to: JSONNode(.number(1)), file: "c.json") }
        #expect(chain.prefix(through: -2).steps.isEmpty)
        #expect(chain.prefix(through: 9).steps.count == 3)
        #expect(throws: StepError.self) { _ = try StepReference("9").resolve(in: chain) }
    }
}
